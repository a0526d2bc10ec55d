// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Foundation

/// The command-line tool for sportsensord: the daemon's client (status, doctor, scan, pair, start,
/// tail), the stored sessions, and offline work on captures and recordings. Harnesses live in
/// `sportsensor-dev`.
@main
struct SportsensorCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sportsensorctl",
        abstract: "Work with SDU sport sensors, captures and the sportsensord gateway.",
        groupedSubcommands: [
            CommandGroup(
                name: "Gateway",
                subcommands: [
                    StatusCommand.self, DoctorCommand.self, AdaptersCommand.self, ScanCommand.self, PairCommand.self,
                    UnpairCommand.self,
                    SensorsCommand.self, StartCommand.self, StopCommand.self, TailCommand.self,
                    ReplicationCommand.self,
                ]),
            CommandGroup(
                name: "Athletes",
                subcommands: [
                    AthletesCommand.self, TeamsCommand.self, TargetsCommand.self, LeaderboardCommand.self,
                    ReportCommand.self,
                ]),
            CommandGroup(
                name: "Sessions",
                subcommands: [
                    SessionsCommand.self, ShowCommand.self, ExportCommand.self, ImportCommand.self,
                    ReanalyzeCommand.self, PruneCommand.self, StoreCommand.self,
                ]),
            CommandGroup(name: "Files", subcommands: [Decode.self, Analyze.self]),
            CommandGroup(name: "Dashboard", subcommands: [UsersCommand.self]),
        ]
    )

    /// ArgumentParser's own `main`, but its messages (which quote the arguments: `3 unexpected
    /// arguments: …`, a `validate()` error) are escaped for the terminal like every other.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code.rawValue == 0 {
                if !message.isEmpty {
                    writeStandardOutput(TerminalText.escaped(message, keepingLayout: true) + "\n")
                }
            } else if !message.isEmpty {
                writeStandardError(message + "\n")
            }
            Foundation.exit(code.rawValue)
        }
    }
}
