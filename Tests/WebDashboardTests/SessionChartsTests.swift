// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import Testing

@testable import WebDashboard

/// The session page's charts, built a page of events at a time: a short session is drawn event
/// by event; a long one keeps at most `SessionCharts.maxPoints` points per chart, and none of its
/// figures depends on how the events were paged.
@Suite("Web dashboard: session charts")
struct SessionChartsTests {
    static func session(seconds: Double, counts: [String: Int]) -> SessionInfo {
        SessionInfo(
            id: "6f9619ff-8b86-d011-b42d-00c04fc964ff", sensor: "CA:FE:00:00:00:01", alias: nil, athlete: "Ada",
            profile: "table-tennis", startedAt: Date(timeIntervalSince1970: 1_767_225_600),
            endedAt: Date(timeIntervalSince1970: 1_767_225_600 + seconds), endReason: "stopped", isLive: false,
            eventCounts: counts, samples: 0, lostSamples: 0, malformedNotifications: 0, sampleRate: 100)
    }

    static func charts(_ session: SessionInfo, _ events: [EventRecord], page: Int) -> SessionCharts {
        var charts = SessionCharts(session)
        for start in stride(from: 0, to: events.count, by: page) {
            charts.add(Array(events[start..<min(start + page, events.count)]))
        }
        return charts
    }

    /// How many points a chart's SVG draws: the polyline's pairs, or the bars.
    static func points(_ svg: Any?) -> Int {
        let text = svg as? String ?? ""
        if let range = text.range(of: #"points=""#) {
            return text[range.upperBound...].prefix { $0 != "\"" }.split(separator: " ").count
        }
        return text.components(separatedBy: "<rect ").count - 1
    }

    @Test("a short session: every event is a point of the line and a bar, as SVGChart draws them")
    func everyEvent() {
        let events = (0..<5).map { EventRecord(type: "hit", t: Double($0) * 10 + 1, peakG: Double($0) / 2 + 1) }
        let values = Self.charts(Self.session(seconds: 60, counts: ["hit": 5]), events, page: 2).values
        let line = [(x: 0.0, y: 0.0)] + events.enumerated().map { (x: $0.element.t, y: Double($0.offset + 1)) }
        #expect(
            values["chartCount"] as? String
                == SVGChart(title: "Events over time", xUnit: "s", yUnit: "events", style: .line, points: line).svg)
        let bars = events.map { (x: $0.t, y: $0.peakG ?? 0) }
        #expect(
            values["chartValue"] as? String
                == SVGChart(title: "Peak g per hit", xUnit: "s", yUnit: "g", style: .bars, points: bars).svg)
        #expect(values["maxPeakG"] as? String == "3.0 g")
    }

    @Test("20 000 hits over three hours: at most 600 points a chart, the last count and the hardest hit kept")
    func longSession() throws {
        let count = 20_000
        let seconds = 3 * 3_600.0
        let step = seconds / Double(count)
        let events = (0..<count).map { (index: Int) -> EventRecord in
            let peak: Double = index == 12_345 ? 7.5 : 1 + Double(index % 97) / 100
            return EventRecord(type: "hit", t: Double(index) * step, peakG: peak)
        }
        let session = Self.session(seconds: seconds, counts: ["hit": count])
        let paged = Self.charts(session, events, page: 1_024)
        let values = paged.values
        #expect((2...SessionCharts.maxPoints + 1).contains(Self.points(values["chartCount"])))
        #expect((values["chartCount"] as? String)?.contains(">\(count)</text>") == true, "the axis shows the count")
        #expect((2...SessionCharts.maxPoints).contains(Self.points(values["chartValue"])))
        #expect((values["chartValue"] as? String)?.contains("7.50 g</title>") == true, "the hardest hit is a bar")
        #expect((values["chartValue"] as? String)?.contains("highest per 18 s") == true)
        #expect(Self.points(values["chartIntensity"]) == 181)
        #expect(values["maxPeakG"] as? String == "7.5 g")
        // Paged or in one piece, the same page.
        let whole = Self.charts(session, events, page: count).values
        for key in ["chartCount", "chartValue", "chartIntensity", "maxPeakG"] {
            #expect(values[key] as? String == whole[key] as? String, "\(key)")
        }
    }
}
