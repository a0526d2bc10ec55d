// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Detection
import Foundation
import SessionStore

/// `sportsensorctl report ATHLETE | --team T`: sessions, totals, the weekly trend of load and
/// bests, and personal bests, read from the store.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Sessions, totals, weekly load and bests of an athlete or a team.",
        discussion: """
            Reads the store (also while the daemon runs). Each session's numbers are its stored \
            summary (Docs/METRICS.md); a session stored before summaries were kept is summarised \
            on the fly. Weeks start on Monday (UTC).
            """)

    /// Output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, csv, json
    }

    @OptionGroup var state: StateDirectoryOptions

    @Argument(help: "The athlete (or give --team).")
    var athlete: String?

    @Option(help: "Every athlete of this team.")
    var team: String?

    @Option(help: "Only sessions started within this age: a number and s, m, h, d or w (30d, 2w).")
    var since: String = "30d"

    @Option(help: "table, csv or json.")
    var format: Format = .table

    func validate() throws {
        guard (athlete == nil) != (team == nil) else {
            throw ValidationError("report on an athlete or a team: give ATHLETE or --team T, not both or neither")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let age = try StoreArguments.duration(since)
            let store = try state.openStoreReadOnly()
            let athletes = try await Self.athletes(named: athlete, team: team, store: store)
            let report = try await TrainingReport.load(
                athletes: athletes, from: Date().addingTimeInterval(-age), store: store)
            switch format {
            case .table: StoreFormat.write(report.table)
            case .csv: StoreFormat.write(report.csv)
            case .json: StoreFormat.write(report.json + "\n")
            }
        }
    }

    /// The athletes a report covers, or a failure naming the fix.
    static func athletes(named name: String?, team: String?, store: SessionStore) async throws -> [Athlete] {
        if let name {
            guard let found = try await store.athlete(named: name) else {
                throw CommandFailure.noInput(
                    "no athlete is called \(name): list them with `sportsensorctl athletes list`")
            }
            return [found]
        }
        guard let team, let found = try await store.team(named: team) else {
            throw CommandFailure.noInput("no team is called \(team ?? ""): list them with `sportsensorctl teams list`")
        }
        return try await store.athletes().filter { found.athleteIDs.contains($0.id) }
    }
}
