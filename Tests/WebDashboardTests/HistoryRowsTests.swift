// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import Testing

@testable import WebDashboard

/// The history rows over stored values at their extremes (rows an older version let in, or a
/// hand-edited database): they render, never trap.
@Suite("Web dashboard: history rows over extreme values")
struct HistoryRowsTests {
    static func session(samples: Int, lost: Int, startedAt: Date, endedAt: Date?) -> SessionInfo {
        SessionInfo(
            id: "6f9619ff-8b86-d011-b42d-00c04fc964ff", sensor: "CA:FE:00:00:00:01", alias: nil, athlete: "Ada",
            profile: "jump", startedAt: startedAt, endedAt: endedAt, endReason: "imported", isLive: false,
            eventCounts: ["jump": Int.max, "hit": 1], samples: samples, lostSamples: lost, malformedNotifications: 0,
            sampleRate: 1e300)
    }

    @Test("lost_samples of Int64.max, a start in year 1 and an event at 1e300 s: rows and page render")
    func extremes() {
        let far = Self.session(
            samples: Int.max, lost: Int.max, startedAt: Date(timeIntervalSince1970: -62_135_596_800),
            endedAt: Date(timeIntervalSince1970: 1e15))
        let row = HistoryRows.session(far)
        #expect(row["completeness"] as? String == "50.0 %")
        #expect(row["count"] as? Int == Int.max)
        #expect(row["duration"] as? String != nil)
        var farCharts = SessionCharts(far)
        farCharts.add([EventRecord(type: "jump", t: 1e300, heightM: 1e300)])
        let page = HistoryRows.sessionPage(far, charts: farCharts)
        #expect((page["chartIntensity"] as? String)?.contains("<svg") == true)
        let negative = Self.session(
            samples: 0, lost: -5, startedAt: Date(timeIntervalSince1970: 0), endedAt: Date(timeIntervalSince1970: -1e12)
        )
        #expect(HistoryRows.session(negative)["completeness"] as? String == "–")
        var negativeCharts = SessionCharts(negative)
        negativeCharts.add([EventRecord(type: "jump", t: -.infinity)])
        _ = HistoryRows.sessionPage(negative, charts: negativeCharts)
        _ = [far, negative].map(HistoryRows.sessionCSVLine)
    }

    @Test("/sessions.csv and the events CSV write names a spreadsheet would evaluate as text; numbers stay numbers")
    func formulaNames() {
        var session = Self.session(
            samples: 12, lost: 3, startedAt: Date(timeIntervalSince1970: 1_767_225_600),
            endedAt: Date(timeIntervalSince1970: 1_767_225_660))
        session.athlete = "=HYPERLINK(\"http://x\")"
        session.alias = "@evil"
        session.eventCounts = ["jump": 2]
        let row: String? = HistoryRows.sessionCSVLine(session)
        let expected: String =
            "6f9619ff-8b86-d011-b42d-00c04fc964ff,2026-01-01T00:00:00Z,2026-01-01T00:01:00Z,"
            + "\"'=HYPERLINK(\"\"http://x\"\")\",\"'@evil\",jump,2,12,3,imported"
        #expect(row == expected, "\(Array((row ?? "").unicodeScalars.map(\.value)))")
        let event = HistoryRows.eventCSVLine(EventRecord(type: "+cmd", t: 1.5, side: "=1+1"))
        #expect(event == "\"'+cmd\",1.5000,,,,,,\"'=1+1\"")
    }
}
