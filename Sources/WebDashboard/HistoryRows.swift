// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation

/// What the history pages show, as template values and CSV text.
enum HistoryRows {
    static func session(_ session: SessionInfo) -> [String: Any] {
        let count = session.eventCounts.values.saturatingSum
        // In Double: a stored count near Int64.max must not overflow the sum.
        let expected = Double(session.samples) + Double(session.lostSamples)
        return [
            "id": session.id, "short": String(session.id.prefix(8)), "athlete": session.athlete ?? "",
            "sensor": session.alias ?? session.sensor, "profile": session.profile,
            "started": stamp(session.startedAt), "duration": duration(session), "count": count,
            "completeness": expected > 0
                ? String(format: "%.1f %%", Double(session.samples) / expected * 100) : "–",
            "live": session.isLive, "endReason": session.endReason ?? "live",
        ]
    }

    static func sessionPage(_ session: SessionInfo, charts: SessionCharts) -> [String: Any] {
        var values = Self.session(session)
        values["samples"] = session.samples
        values["lost"] = session.lostSamples
        // Shown only when the store could not keep some: the coach must see a loss, not a zero.
        if session.unsavedSamples > 0 { values["unsaved"] = session.unsavedSamples }
        values["rate"] = session.sampleRate.map { String(format: "%.1f Hz", $0) } ?? "–"
        values["countsByType"] = session.eventCounts.sorted { $0.key < $1.key }.map { ["type": $0.key, "n": $0.value] }
        values.merge(charts.values) { _, new in new }
        values["eventsCsv"] = "/sessions/\(session.id)/events.csv"
        values["eventsJson"] = "/sessions/\(session.id)/events.json"
        values["samplesCsv"] = "/v1/sessions/\(session.id)/samples.csv"
        return values
    }

    static func athletePage(
        name: String, sessions: [SessionInfo], bests: [PersonalBest], summaries: [(SessionInfo, SessionSummary)]
    ) -> [String: Any] {
        var values: [String: Any] = ["athlete": name, "rows": sessions.map(session), "empty": sessions.isEmpty]
        values["bests"] = bests.map { best -> [String: Any] in
            let label = SummaryMetric(rawValue: best.metric).map(LeaderboardQuery.label) ?? best.metric
            return ["label": label, "value": number(best.value), "session": best.sessionId, "date": day(best.at)]
        }
        // Load and bests over the weeks, the oldest week first.
        var load: [Int: Double] = [:]
        var height: [Int: Double] = [:]
        var peak: [Int: Double] = [:]
        for (session, summary) in summaries {
            let week = Int(saturating: session.startedAt.timeIntervalSince1970 / (7 * 86_400))
            load[week, default: 0] += summary.playerload
            if let value = summary.bestHeightM ?? summary.bestThrowHeightM {
                height[week] = max(height[week] ?? 0, value)
            }
            if let value = summary.maxPeakG { peak[week] = max(peak[week] ?? 0, value) }
        }
        func weekly(_ values: [Int: Double]) -> [(x: Double, y: Double)] {
            guard let first = values.keys.min() else { return [] }
            return values.keys.sorted().map { (x: Double($0) - Double(first) + 1, y: values[$0] ?? 0) }
        }
        if !load.isEmpty {
            values["chartWeeks"] =
                SVGChart(
                    title: "PlayerLoad per week", xUnit: "week", yUnit: "PlayerLoad", style: .bars, points: weekly(load)
                )
                .svg
        }
        if !height.isEmpty {
            values["chartBests"] =
                SVGChart(title: "Best height per week", xUnit: "week", yUnit: "m", style: .bars, points: weekly(height))
                .svg
        } else if !peak.isEmpty {
            values["chartBests"] =
                SVGChart(title: "Hardest hit per week", xUnit: "week", yUnit: "g", style: .bars, points: weekly(peak))
                .svg
        }
        return values
    }

    /// The first line of `/sessions.csv`.
    static let sessionsCSVHeader =
        "session_id,started_at,ended_at,athlete,sensor,profile,events,samples,lost_samples,end_reason"

    /// One session's line of `/sessions.csv` (without the newline).
    static func sessionCSVLine(_ session: SessionInfo) -> String {
        [
            session.id, iso(session.startedAt), session.endedAt.map(iso) ?? "",
            CSVCell.text(session.athlete ?? ""), CSVCell.text(session.alias ?? session.sensor),
            CSVCell.text(session.profile),
            "\(session.eventCounts.values.saturatingSum)", "\(session.samples)", "\(session.lostSamples)",
            CSVCell.text(session.endReason ?? ""),
        ].joined(separator: ",")
    }

    /// The first line of a session's events CSV.
    static let eventsCSVHeader = "type,t,peak_g,intensity_g,flight_s,height_m,cadence_spm,side"

    /// One event's line of the events CSV (without the newline).
    static func eventCSVLine(_ event: EventRecord) -> String {
        func value(_ number: Double?) -> String { number.map { String(format: "%.4f", $0) } ?? "" }
        return [
            CSVCell.text(event.type), value(event.t), value(event.peakG), value(event.intensityG),
            value(event.flightS), value(event.heightM), value(event.cadenceSpm), CSVCell.text(event.side ?? ""),
        ].joined(separator: ",")
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    static func duration(_ session: SessionInfo) -> String {
        let seconds = Int(saturating: (session.endedAt ?? Date()).timeIntervalSince(session.startedAt))
        return String(format: "%d:%02d", seconds / 60, seconds % 60)
    }

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    static func day(_ date: Date) -> String { String(iso(date).prefix(10)) }
}
