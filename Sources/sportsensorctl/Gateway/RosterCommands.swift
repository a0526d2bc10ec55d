// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Detection
import Foundation

/// `sportsensorctl athletes add|list|edit|remove`: the roster, kept by the daemon.
struct AthletesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "athletes", abstract: "List, add, change or remove athletes (through the daemon).",
        subcommands: [List.self, Add.self, Edit.self, Remove.self, Bests.self], defaultSubcommand: List.self)

    /// Checks a request as the daemon will, so a bad value fails before any connection.
    static func checked(_ request: AthleteRequest) throws -> AthleteRequest {
        do { try RosterRules.check(request) } catch { throw ValidationError("\(error.message) (\(error.fix ?? ""))") }
        return request
    }

    /// `--racket-hand` as the request takes it: `left` or `right`, and for `edit` `none` (sent as
    /// "", which clears it).
    static func racketHand(_ option: String?, clearing: Bool) throws -> String? {
        guard let option else { return nil }
        if clearing && option == "none" { return "" }
        guard RacketHand(rawValue: option) != nil else {
            throw ValidationError(
                "--racket-hand \(option) is not a hand: give left or right" + (clearing ? " (none clears it)" : ""))
        }
        return option
    }

    static func line(_ athlete: AthleteInfo) -> String {
        var parts = [athlete.name]
        parts.append(athlete.massKg.map { GatewayFormatting.fixed($0, decimals: 1) + " kg" } ?? "no mass")
        if let year = athlete.birthYear { parts.append("born \(year)") }
        if let hand = athlete.racketHand { parts.append("\(hand)-handed") }
        if !athlete.teams.isEmpty { parts.append("teams " + athlete.teams.joined(separator: ", ")) }
        parts.append("\(athlete.sessions) session(s)")
        return parts.joined(separator: ", ") + "\n"
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the athletes.")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await runClientCommand(client) { connection in
                let athletes: [AthleteInfo] = try await connection.get(ControlRoute.athletes.request())
                client.output(athletes) { athletes in
                    var table = TextTable(
                        ["NAME", "MASS KG", "BORN", "HAND", "TEAMS", "SESSIONS"],
                        alignments: [.left, .right, .right, .left, .left, .right])
                    for athlete in athletes {
                        table.append([
                            athlete.name, athlete.massKg.map { GatewayFormatting.fixed($0, decimals: 1) } ?? "-",
                            athlete.birthYear.map { "\($0)" } ?? "-", athlete.racketHand ?? "-",
                            athlete.teams.joined(separator: ",").isEmpty ? "-" : athlete.teams.joined(separator: ","),
                            "\(athlete.sessions)",
                        ])
                    }
                    return athletes.isEmpty
                        ? "no athletes: add one with `sportsensorctl athletes add NAME`\n" : table.rendered
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an athlete.")
        @Argument(help: "The name (up to 64 printable characters).") var name: String
        @Option(name: .customLong("mass-kg"), help: "Body mass in kg (for kcal).") var massKg: Double?
        @Option(name: .customLong("birth-year"), help: "Year of birth.") var birthYear: Int?
        @Option(
            name: .customLong("racket-hand"),
            help: "The hand holding the racket, left or right (kept for telling a stroke's side).")
        var racketHand: String?
        @Option(help: "A team the athlete is in (repeatable; the team must exist).") var team: [String] = []
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let request = try AthletesCommand.checked(
                AthleteRequest(
                    name: name, massKg: massKg, birthYear: birthYear,
                    racketHand: try AthletesCommand.racketHand(racketHand, clearing: false),
                    teams: team.isEmpty ? nil : team))
            try await runClientCommand(client) { connection in
                let athlete: AthleteInfo = try await connection.send(ControlRoute.addAthlete.request(), json: request)
                client.output(athlete) { "added " + AthletesCommand.line($0) }
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Change an athlete's name, body mass, birth year or teams.")
        @Argument(help: "The athlete's name.") var athlete: String
        @Option(help: "A new name.") var name: String?
        @Option(name: .customLong("mass-kg"), help: "Body mass in kg (0 clears it).") var massKg: Double?
        @Option(name: .customLong("birth-year"), help: "Year of birth (0 clears it).") var birthYear: Int?
        @Option(
            name: .customLong("racket-hand"),
            help: "The hand holding the racket, left or right (none clears it).")
        var racketHand: String?
        @Option(help: "The teams the athlete is in (repeatable; replaces the list).") var team: [String] = []
        @Flag(name: .customLong("no-teams"), help: "Take the athlete out of every team.") var noTeams = false
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let teams: [String]? = noTeams ? [] : (team.isEmpty ? nil : team)
            let request = try AthletesCommand.checked(
                AthleteRequest(
                    name: name, massKg: massKg, birthYear: birthYear,
                    racketHand: try AthletesCommand.racketHand(racketHand, clearing: true), teams: teams))
            guard name != nil || massKg != nil || birthYear != nil || racketHand != nil || teams != nil else {
                throw ValidationError(
                    "nothing to change: give --name, --mass-kg, --birth-year, --racket-hand, --team or --no-teams")
            }
            try await runClientCommand(client) { connection in
                let changed: AthleteInfo = try await connection.send(
                    ControlRoute.updateAthlete.request(athlete), json: request)
                client.output(changed) { "changed " + AthletesCommand.line($0) }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an athlete; one with sessions needs --keep-sessions or --delete-sessions.")
        @Argument(help: "The athlete's name.") var athlete: String
        @Flag(help: "Keep the athlete's sessions, without an athlete.") var keepSessions = false
        @Flag(help: "Delete the athlete's sessions with their samples.") var deleteSessions = false
        @OptionGroup var client: ClientOptions

        func validate() throws {
            if keepSessions && deleteSessions {
                throw ValidationError("--keep-sessions and --delete-sessions exclude each other: choose one")
            }
        }

        func run() async throws {
            let query: KeyValuePairs<String, String> =
                keepSessions ? ["sessions": "keep"] : deleteSessions ? ["sessions": "delete"] : [:]
            try await runClientCommand(client) { connection in
                let removal: AthleteRemoval = try await connection.send(
                    ControlRoute.removeAthlete.request(athlete, query: query), json: String?.none)
                client.output(removal) { removal in
                    "removed \(removal.athlete) (sessions kept: \(removal.sessionsKept), deleted: \(removal.sessionsDeleted))\n"
                }
            }
        }
    }

    struct Bests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bests", abstract: "An athlete's personal bests, each with the session it came from.")
        @Argument(help: "The athlete's name.") var athlete: String
        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await runClientCommand(client) { connection in
                let bests: [PersonalBest] = try await connection.get(ControlRoute.athleteBests.request(athlete))
                client.output(bests) { bests in
                    var table = TextTable(["METRIC", "BEST", "SESSION", "AT"], alignments: [.left, .right])
                    for best in bests {
                        table.append([
                            best.metric, GatewayFormatting.fixed(best.value, decimals: 3),
                            GatewayFormatting.shortID(best.sessionId),
                            GatewayFormatting.timestamp(best.at),
                        ])
                    }
                    return bests.isEmpty
                        ? "no bests yet: \(athlete) has no finished session with a summary\n" : table.rendered
                }
            }
        }
    }
}

/// `sportsensorctl teams add|list|edit|remove`.
struct TeamsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "teams", abstract: "List, add, change or remove teams (through the daemon).",
        subcommands: [List.self, Add.self, Edit.self, Remove.self], defaultSubcommand: List.self)

    static func checkName(_ name: String) throws {
        if let problem = NameRules.problem(with: name) { throw ValidationError("the team name \(problem)") }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the teams.")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await runClientCommand(client) { connection in
                let teams: [TeamInfo] = try await connection.get(ControlRoute.teams.request())
                client.output(teams) { teams in
                    teams.isEmpty
                        ? "no teams: add one with `sportsensorctl teams add NAME`\n"
                        : teams.map {
                            "\($0.name): \($0.athletes.isEmpty ? "-" : $0.athletes.joined(separator: ", "))\n"
                        }
                        .joined()
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a team.")
        @Argument(help: "The name.") var name: String
        @Option(help: "An athlete in the team (repeatable; the athlete must exist).") var athlete: [String] = []
        @OptionGroup var client: ClientOptions

        func validate() throws { try TeamsCommand.checkName(name) }

        func run() async throws {
            try await runClientCommand(client) { connection in
                let team: TeamInfo = try await connection.send(
                    ControlRoute.addTeam.request(),
                    json: TeamRequest(name: name, athletes: athlete.isEmpty ? nil : athlete))
                client.output(team) { "added team \($0.name) (\($0.athletes.count) athlete(s))\n" }
            }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Rename a team or set its athletes.")
        @Argument(help: "The team's name.") var team: String
        @Option(help: "A new name.") var name: String?
        @Option(help: "The athletes (repeatable; replaces the list).") var athlete: [String] = []
        @OptionGroup var client: ClientOptions

        func validate() throws {
            if let name { try TeamsCommand.checkName(name) }
            guard name != nil || !athlete.isEmpty else {
                throw ValidationError("nothing to change: give --name or --athlete")
            }
        }

        func run() async throws {
            try await runClientCommand(client) { connection in
                let changed: TeamInfo = try await connection.send(
                    ControlRoute.updateTeam.request(team),
                    json: TeamRequest(name: name, athletes: athlete.isEmpty ? nil : athlete))
                client.output(changed) { "changed team \($0.name): \($0.athletes.joined(separator: ", "))\n" }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a team (its athletes and their sessions stay).")
        @Argument(help: "The team's name.") var team: String
        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await runClientCommand(client) { connection in
                try await connection.send(ControlRoute.removeTeam.request(team))
                writeHumanOutput(client.json ? "{\"removed\":\(jsonString(team))}\n" : "removed team \(team)\n")
            }
        }
    }
}
