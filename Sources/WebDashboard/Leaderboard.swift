// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import Hummingbird

/// `/leaderboard?metric=&period=&team=`: the gateway's leaderboard (`GET /v1/leaderboards/{metric}`,
/// one ranking for the API, the CLI and this page), with its CSV.
struct LeaderboardQuery {
    var metric: SummaryMetric
    var period: String
    var team: String?

    static let periods: [(value: String, label: String)] = [
        ("day", "today"), ("week", "this week"), ("month", "this month"), ("all", "all time"),
    ]

    init(_ request: Request) {
        let query = request.uri.queryParameters
        metric = query["metric"].flatMap { SummaryMetric(rawValue: String($0)) } ?? .playerload
        let period = query["period"].map(String.init) ?? "week"
        self.period = Self.periods.contains { $0.value == period } ? period : "week"
        team = query["team"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    static func label(_ metric: SummaryMetric) -> String {
        switch metric {
        case .hits: "hits"
        case .maxPeakG: "hardest hit (g)"
        case .maxIntensityG: "highest intensity (g)"
        case .jumps: "jumps"
        case .bestHeightM: "best jump height (m)"
        case .bestRsi: "best reactive strength index"
        case .throws: "throws"
        case .bestThrowHeightM: "best throw height (m)"
        case .steps: "steps"
        case .playerload: "PlayerLoad"
        case .playerloadPerMin: "PlayerLoad per minute"
        case .activeS: "active time (s)"
        case .kcal: "kcal"
        }
    }

    func rows(_ roster: any RosterControl) async throws -> [LeaderboardRow] {
        try await roster.leaderboard(metric: metric.rawValue, period: period, team: team)
    }

    func run(_ roster: any RosterControl) async throws -> [String: Any] {
        let rows = try await rows(roster)
        let teams = try await roster.teams()
        let top = rows.first?.value ?? 1
        var query = "metric=\(metric.rawValue)&period=\(period)"
        if let team, let encoded = team.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) {
            query += "&team=\(encoded)"
        }
        return [
            "metricLabel": Self.label(metric),
            "metrics": SummaryMetric.allCases.map {
                ["name": $0.rawValue, "label": Self.label($0), "selected": $0 == metric] as [String: Any]
            },
            "periods": Self.periods.map {
                ["value": $0.value, "label": $0.label, "selected": $0.value == period] as [String: Any]
            },
            "teams": teams.map { ["name": $0.name, "selected": $0.name == team] as [String: Any] },
            "rows": rows.map { row in
                [
                    "rank": row.rank, "athlete": row.athlete, "value": HistoryRows.number(row.value),
                    "session": row.sessionId, "date": HistoryRows.day(row.at),
                    "share": String(format: "%.0f", max(4, row.value / max(top, 1e-9) * 100)),
                ] as [String: Any]
            },
            "empty": rows.isEmpty,
            "csv": DashboardPaths.leaderboard + ".csv?" + query,
        ]
    }

    /// The CSV's header: the metric's column is named for it.
    var csvHeader: String { "rank,athlete,\(metric.rawValue),session_id,date" }

    /// A row of the CSV (the athlete's name made safe for spreadsheets).
    static func csvLine(_ row: LeaderboardRow) -> String {
        "\(row.rank),\(CSVCell.text(row.athlete)),\(HistoryRows.number(row.value)),\(row.sessionId),\(HistoryRows.day(row.at))"
    }
}
