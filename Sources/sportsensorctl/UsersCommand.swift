// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import DashboardUsers
import Foundation
import Glibc

/// `sportsensorctl users add|remove|passwd|list`: the web dashboard's accounts (Docs/DASHBOARD.md).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage the web dashboard's accounts (coach: everything; viewer: read-only).",
        discussion: """
            Accounts live in dashboard-users.json in the state directory (passwords as bcrypt hashes); the \
            daemon rereads the file when it changes, so a removed account or a new password ends that user's \
            logins at once. Run as the daemon's user or with sudo.
            """,
        subcommands: [UsersAddCommand.self, UsersRemoveCommand.self, UsersPasswdCommand.self, UsersListCommand.self])
}

/// Where the users file is and how a password is given.
struct UsersFileOptions: ParsableArguments {
    @OptionGroup var state: StateDirectoryOptions

    @Option(
        name: .customLong("users-file"),
        help: ArgumentHelp(
            "The accounts file (default: dashboard-users.json in the state directory; [web] users_file).",
            valueName: "path"))
    var usersFile: String?

    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of standard input.")
    var passwordStdin = false

    var file: DashboardUsersFile {
        usersFile.map(DashboardUsersFile.init(path:)) ?? DashboardUsersFile(stateDirectory: state.directory.path)
    }

    /// The new password: from standard input (`--password-stdin`, or when it is not a terminal), else
    /// asked twice on the terminal without echo.
    func newPassword() throws(CommandFailure) -> String {
        let password: String
        if passwordStdin || isatty(STDIN_FILENO) == 0 {
            guard let line = readLine(strippingNewline: true) else {
                throw CommandFailure.usage("no password on standard input: pipe one line, e.g. `echo \"$PW\" | ...`")
            }
            password = line
        } else {
            let first = Self.prompt("Password: ")
            guard Self.prompt("Again: ") == first else {
                throw CommandFailure.usage("the two passwords differ: run the command again")
            }
            password = first
        }
        do {
            try DashboardUserList.checkPassword(password)
        } catch {
            throw CommandFailure.usage(error.message)
        }
        return password
    }

    private static func prompt(_ text: String) -> String {
        guard let pointer = getpass(text) else { return "" }
        return String(cString: pointer)
    }
}

extension DashboardUsersError {
    /// The CLI's failure for this error: 66 for an unknown user, 64 for bad arguments, 73 for a file
    /// that cannot be created, 74 for a full disk.
    var commandFailure: CommandFailure {
        switch code {
        case .notFound: CommandFailure.noInput(message)
        case .exists, .invalidName, .weakPassword: CommandFailure.usage(message)
        case .unreadable: CommandFailure.data(description)
        case .unwritable: CommandFailure.cannotCreate(description)
        case .diskFull: CommandFailure(exitCode: 74, message: description)
        }
    }
}

/// Runs `body`, turning a users-file error into the CLI's failure.
func withUsersFile(_ body: () throws(DashboardUsersError) -> Void) async throws {
    try await reportingFailures {
        do throws(DashboardUsersError) {
            try body()
        } catch {
            throw error.commandFailure
        }
    }
}

struct UsersAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add an account.")

    @Argument(help: "The login name (letters, digits, '.', '_', '-').") var name: String
    @Option(help: "coach (everything) or viewer (read-only).") var role: String = "coach"
    @OptionGroup var options: UsersFileOptions

    func run() async throws {
        try await reportingFailures {
            guard let role = DashboardRole(rawValue: role) else {
                throw CommandFailure.usage("unknown role '\(role)': give coach or viewer")
            }
            do throws(DashboardUsersError) {
                try DashboardUserList.checkName(name)
            } catch {
                throw error.commandFailure
            }
            let hash = DashboardPassword.hash(try options.newPassword())
            try await withUsersFile { () throws(DashboardUsersError) in
                try options.file.update { list throws(DashboardUsersError) in
                    try list.add(DashboardUser(name: name, role: role, passwordHash: hash))
                }
            }
            writeHumanOutput("added \(role.rawValue) \(name) to \(options.file.path)\n")
        }
    }
}

struct UsersRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an account (its logins end at their next request).")

    @Argument(help: "The login name.") var name: String
    @OptionGroup var options: UsersFileOptions

    func run() async throws {
        try await withUsersFile { () throws(DashboardUsersError) in
            try options.file.update { list throws(DashboardUsersError) in try list.remove(named: name) }
        }
        writeHumanOutput("removed \(name)\n")
    }
}

struct UsersPasswdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Set an account's password (its logins end).")

    @Argument(help: "The login name.") var name: String
    @OptionGroup var options: UsersFileOptions

    func run() async throws {
        try await reportingFailures {
            let list: DashboardUserList
            do throws(DashboardUsersError) {
                list = try options.file.load()
            } catch {
                throw error.commandFailure
            }
            guard list.user(named: name) != nil else {
                throw CommandFailure.noInput("there is no user named '\(name)': `sportsensorctl users list` shows them")
            }
            let hash = DashboardPassword.hash(try options.newPassword())
            try await withUsersFile { () throws(DashboardUsersError) in
                try options.file.update { list throws(DashboardUsersError) in try list.setPasswordHash(hash, of: name) }
            }
            writeHumanOutput("changed the password of \(name)\n")
        }
    }
}

struct UsersListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the accounts and roles.")

    @OptionGroup var options: UsersFileOptions

    func run() async throws {
        try await withUsersFile { () throws(DashboardUsersError) in
            let list = try options.file.load()
            if list.users.isEmpty {
                writeHumanOutput("no users in \(options.file.path): add one with `sportsensorctl users add NAME`\n")
            }
            for user in list.users { writeHumanOutput("\(user.name)\t\(user.role.rawValue)\n") }
        }
    }
}
