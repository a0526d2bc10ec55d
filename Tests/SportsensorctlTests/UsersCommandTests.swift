// SPDX-License-Identifier: GPL-2.0-or-later
import DashboardUsers
import Foundation
import GatewayTesting
import Testing

/// `sportsensorctl users`: what a mistake answers, and that nothing already stored is lost. (A
/// successful `users add` with a password on standard input runs in the browser test and the demo.)
@Suite("sportsensorctl users")
struct UsersCommandTests {
    static var executable: String { BuiltProducts.path(of: "sportsensorctl") ?? "sportsensorctl (not built)" }

    func run(_ arguments: [String], stateDirectory: String) async throws -> CommandResult {
        try await runCommand(Self.executable, ["users"] + arguments + ["--state-dir", stateDirectory])
    }

    @Test("mistakes exit non-zero with the fix and leave the accounts as they were")
    func mistakes() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let file = DashboardUsersFile(stateDirectory: directory.path)
        let hash = DashboardPassword.hash("coach-password", cost: 4)
        try file.save(DashboardUserList(users: [DashboardUser(name: "maria", role: .coach, passwordHash: hash)]))

        let list = try await run(["list"], stateDirectory: directory.path)
        #expect(list.status == 0)
        #expect(list.standardOutput == "maria\tcoach\n")

        let role = try await run(["add", "tv", "--role", "admin"], stateDirectory: directory.path)
        #expect(role.status == 64)
        #expect(role.standardError.contains("unknown role 'admin': give coach or viewer"), "\(role)")

        let name = try await run(["add", "bad name", "--role", "viewer"], stateDirectory: directory.path)
        #expect(name.status == 64)
        #expect(name.standardError.contains("is not a login name"), "\(name)")

        let noPassword = try await run(["add", "tv", "--role", "viewer"], stateDirectory: directory.path)
        #expect(noPassword.status == 64)
        #expect(noPassword.standardError.contains("no password on standard input"), "\(noPassword)")

        let unknown = try await run(["remove", "nobody"], stateDirectory: directory.path)
        #expect(unknown.status == 66)
        #expect(unknown.standardError.contains("users list"), "\(unknown)")

        let passwd = try await run(["passwd", "nobody"], stateDirectory: directory.path)
        #expect(passwd.status == 66)

        #expect(try file.load().users == [DashboardUser(name: "maria", role: .coach, passwordHash: hash)])

        let removed = try await run(["remove", "maria"], stateDirectory: directory.path)
        #expect(removed.status == 0)
        #expect(try file.load().users.isEmpty)
    }
}
