// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import Hummingbird

/// Athletes ranked by one metric over a period, from the stored sessions and their events.
enum Leaderboard {
    /// What can be ranked.
    enum Metric: String, CaseIterable, Sendable {
        case events
        case bestHeight = "best-height"
        case maxPeakG = "max-peak-g"

        var label: String {
            switch self {
            case .events: "events in a session"
            case .bestHeight: "best height (m)"
            case .maxPeakG: "hardest hit (g)"
            }
        }
    }

    /// One athlete's figure in one session.
    struct Entry: Sendable {
        var athlete: String
        var metric: Metric
        var value: Double
        var sessionID: String
        var profile: String
        var date: Date
    }

    /// The figures one session gives its athlete (none without an athlete).
    static func entries(session: SessionInfo, events: [EventRecord]) -> [Entry] {
        guard let athlete = session.athlete, !athlete.isEmpty else { return [] }
        func entry(_ metric: Metric, _ value: Double?) -> Entry? {
            value.map {
                Entry(
                    athlete: athlete, metric: metric, value: $0, sessionID: session.id, profile: session.profile,
                    date: session.startedAt)
            }
        }
        return [
            entry(.events, Double(events.count)),
            entry(.bestHeight, events.compactMap(\.heightM).max()),
            entry(.maxPeakG, events.compactMap(\.peakG).max()),
        ].compactMap { $0 }
    }

    /// The best entry per athlete for `metric`, best first.
    static func rank(_ entries: [Entry], metric: Metric) -> [Entry] {
        var best: [String: Entry] = [:]
        for entry in entries where entry.metric == metric {
            if let current = best[entry.athlete], current.value >= entry.value { continue }
            best[entry.athlete] = entry
        }
        return best.values.sorted { $0.value != $1.value ? $0.value > $1.value : $0.athlete < $1.athlete }
    }
}

/// `/leaderboard?metric=&days=&profile=`.
struct LeaderboardQuery {
    var metric: Leaderboard.Metric
    var days: Int?
    var profile: String?

    static let periods: [(days: Int?, label: String)] = [(7, "last 7 days"), (30, "last 30 days"), (nil, "all time")]

    init(_ request: Request) {
        let query = request.uri.queryParameters
        metric = query["metric"].flatMap { Leaderboard.Metric(rawValue: String($0)) } ?? .events
        days = query["days"].flatMap { Int(String($0)) }.flatMap { $0 > 0 ? $0 : nil } ?? 30
        if query["days"] == "all" { days = nil }
        profile = query["profile"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    func ranking(_ control: any GatewayControl) async throws -> [Leaderboard.Entry] {
        let since = days.map { Date().addingTimeInterval(-Double($0) * 86_400) }
        let sessions = try await control.sessions(
            athlete: nil, sensor: nil, profile: profile, live: false, limit: HistoryPages.listLimit)
        var entries: [Leaderboard.Entry] = []
        for session in sessions where since.map({ session.startedAt >= $0 }) ?? true {
            entries += Leaderboard.entries(session: session, events: try await control.sessionEvents(id: session.id))
        }
        return Leaderboard.rank(entries, metric: metric)
    }

    func run(_ control: any GatewayControl) async throws -> [String: Any] {
        let ranking = try await ranking(control)
        let top = ranking.first?.value ?? 1
        return [
            "metricLabel": metric.label,
            "metrics": Leaderboard.Metric.allCases.map {
                ["name": $0.rawValue, "label": $0.label, "selected": $0 == metric] as [String: Any]
            },
            "periods": Self.periods.map {
                ["value": $0.days.map(String.init) ?? "all", "label": $0.label, "selected": $0.days == days]
                    as [String: Any]
            },
            "rows": ranking.enumerated().map { index, entry in
                [
                    "rank": index + 1, "athlete": entry.athlete, "value": HistoryRows.number(entry.value),
                    "session": entry.sessionID, "profile": entry.profile, "date": HistoryRows.day(entry.date),
                    "share": String(format: "%.0f", max(4, entry.value / max(top, 1e-9) * 100)),
                ] as [String: Any]
            },
            "empty": ranking.isEmpty,
            "csv": DashboardPaths.leaderboard + ".csv?metric=\(metric.rawValue)&days=\(days.map(String.init) ?? "all")"
                + (profile.map { "&profile=\($0)" } ?? ""),
        ]
    }

    func csv(_ control: any GatewayControl) async throws -> String {
        var text = "rank,athlete,\(metric.rawValue),profile,session_id,date\n"
        for (index, entry) in try await ranking(control).enumerated() {
            text +=
                "\(index + 1),\(HistoryRows.csvField(entry.athlete)),\(HistoryRows.number(entry.value)),"
                + "\(entry.profile),\(entry.sessionID),\(HistoryRows.day(entry.date))\n"
        }
        return text
    }
}
