// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Detection
import Foundation

extension SummaryMetric: ExpressibleByArgument {}

/// `sportsensorctl leaderboard METRIC`: each athlete's best, best first.
struct LeaderboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leaderboard",
        abstract: "Rank athletes by their best value of a metric (through the daemon).",
        discussion: "Metrics: " + SummaryMetric.allCases.map(\.rawValue).joined(separator: ", ")
            + ". --json prints a list of {rank, athlete, value, session_id, at}.")

    /// The windows a leaderboard can cover.
    enum Period: String, ExpressibleByArgument, CaseIterable {
        case day, week, month, all
    }

    @Argument(help: "The metric, a summary key (best_height_m, hits, playerload_per_min, ...).")
    var metric: SummaryMetric

    @Option(help: "Only sessions started in the last day, week (7 days), month (30 days), or all.")
    var period: Period = .all

    @Option(help: "Only the athletes of this team.")
    var team: String?

    @OptionGroup var client: ClientOptions

    func run() async throws {
        var query: KeyValuePairs<String, String> = ["period": period.rawValue]
        if let team { query = ["period": period.rawValue, "team": team] }
        let request = ControlRoute.leaderboard.request(metric.rawValue, query: query)
        try await runClientCommand(client) { connection in
            let rows: [LeaderboardRow] = try await connection.get(request)
            client.output(rows) { rows in
                guard !rows.isEmpty else {
                    return
                        "no \(metric.rawValue) yet for \(period == .all ? "any time" : "the last \(period.rawValue)")"
                        + (team.map { " in team \($0)" } ?? "") + "\n"
                }
                var table = TextTable(
                    ["RANK", "ATHLETE", metric.rawValue.uppercased(), "SESSION", "AT"],
                    alignments: [.right, .left, .right])
                for row in rows {
                    table.append([
                        "\(row.rank)", row.athlete, GatewayFormatting.fixed(row.value, decimals: 3),
                        GatewayFormatting.shortID(row.sessionId), GatewayFormatting.timestamp(row.at),
                    ])
                }
                return table.rendered
            }
        }
    }
}

/// `sportsensorctl targets set|list|remove`: goals live sessions count towards.
struct TargetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "targets", abstract: "Set, list or remove targets of athletes or sessions (through the daemon).",
        subcommands: [List.self, Set.self, Remove.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the targets.")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await runClientCommand(client) { connection in
                let targets: [TargetInfo] = try await connection.get(ControlRoute.targets.request())
                client.output(targets) { targets in
                    var table = TextTable(
                        ["ID", "FOR", "METRIC", "TARGET"], alignments: [.right, .left, .left, .right])
                    for target in targets {
                        table.append([
                            "\(target.id)",
                            target.athlete ?? target.sessionId.map { "session " + GatewayFormatting.shortID($0) }
                                ?? "-",
                            target.metric, GatewayFormatting.fixed(target.value, decimals: 3),
                        ])
                    }
                    return targets.isEmpty
                        ? "no targets: set one with `sportsensorctl targets set METRIC VALUE --athlete A`\n"
                        : table.rendered
                }
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract:
                "Set a target for an athlete (each of their sessions) or for one session (replaces the athlete's).")
        @Argument(help: "The metric (hits, jumps, playerload, ...).") var metric: SummaryMetric
        @Argument(help: "The value to reach (above 0).") var value: Double
        @Option(help: "The athlete.") var athlete: String?
        @Option(help: "The session (id or unique prefix).") var session: String?
        @OptionGroup var client: ClientOptions

        func validate() throws {
            guard (athlete == nil) != (session == nil) else {
                throw ValidationError(
                    "a target is for an athlete or for a session: give exactly one of --athlete and --session")
            }
            guard value > 0, value.isFinite else {
                throw ValidationError("a target of \(value) cannot be reached: give a number above 0")
            }
        }

        func run() async throws {
            let request = TargetRequest(athlete: athlete, sessionId: session, metric: metric.rawValue, value: value)
            try await runClientCommand(client) { connection in
                let target: TargetInfo = try await connection.send(ControlRoute.setTarget.request(), json: request)
                client.output(target) { target in
                    "target \(target.id): \(target.metric) \(GatewayFormatting.fixed(target.value, decimals: 3)) for "
                        + (target.athlete ?? "session \(target.sessionId.map(GatewayFormatting.shortID) ?? "-")") + "\n"
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a target by id.")
        @Argument(help: "The target's id (see `targets list`).") var id: Int64
        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await runClientCommand(client) { connection in
                try await connection.send(ControlRoute.removeTarget.request("\(id)"))
                writeStandardOutput(client.json ? "{\"removed\":\(id)}\n" : "removed target \(id)\n")
            }
        }
    }
}
