// SPDX-License-Identifier: GPL-2.0-or-later
import DashboardUsers
import Foundation
import Testing

@testable import WebDashboard

@Suite("Dashboard logins, throttle and accounts")
struct WebLoginStateTests {
    static let coach = DashboardUser(name: "coach", role: .coach, passwordHash: "$2b$04$hash-one")
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a session lasts its lifetime, then is gone")
    func expiry() {
        var table = WebSessionTable(lifetime: 3600)
        let users = DashboardUserList(users: [Self.coach])
        let (id, entry) = table.open(user: Self.coach, now: Self.start)
        #expect(
            table.identity(id: id, users: users, now: Self.start.addingTimeInterval(3599))
                == WebIdentity(name: "coach", role: .coach, csrfToken: entry.csrfToken))
        #expect(table.identity(id: id, users: users, now: Self.start.addingTimeInterval(3600)) == nil)
        #expect(table.entries.isEmpty)
        #expect(table.identity(id: "no-such-session", users: users, now: Self.start) == nil)
    }

    @Test("a new password, a new role or a removed account ends the sessions at once")
    func accountChanges() {
        var table = WebSessionTable(lifetime: 3600)
        let (id, _) = table.open(user: Self.coach, now: Self.start)
        var changed = Self.coach
        changed.passwordHash = "$2b$04$hash-two"
        #expect(table.identity(id: id, users: DashboardUserList(users: [changed]), now: Self.start) == nil)

        let (second, _) = table.open(user: Self.coach, now: Self.start)
        var demoted = Self.coach
        demoted.role = .viewer
        #expect(table.identity(id: second, users: DashboardUserList(users: [demoted]), now: Self.start) == nil)

        let (third, _) = table.open(user: Self.coach, now: Self.start)
        #expect(table.identity(id: third, users: DashboardUserList(), now: Self.start) == nil)
    }

    @Test("ids and CSRF tokens are 64 hex digits, never repeated; the table holds at most its capacity")
    func tokensAndCapacity() {
        var table = WebSessionTable(lifetime: 3600, capacity: 3)
        var ids: Set<String> = []
        for index in 0..<10 {
            let (id, entry) = table.open(user: Self.coach, now: Self.start.addingTimeInterval(Double(index)))
            #expect(id.count == 64 && id.allSatisfy(\.isHexDigit))
            #expect(entry.csrfToken.count == 64 && entry.csrfToken != id)
            ids.insert(id)
        }
        #expect(ids.count == 10)
        #expect(table.entries.count == 3)
    }

    @Test("five failures within a minute make an address wait; other addresses and a success are not held")
    func throttle() {
        var throttle = LoginThrottle(allowedFailures: 5, window: 60)
        for second in 0..<4 { throttle.failed(client: "10.0.0.9", now: Self.start.addingTimeInterval(Double(second))) }
        #expect(throttle.retryAfter(client: "10.0.0.9", now: Self.start.addingTimeInterval(5)) == nil)
        throttle.failed(client: "10.0.0.9", now: Self.start.addingTimeInterval(5))
        #expect(throttle.retryAfter(client: "10.0.0.9", now: Self.start.addingTimeInterval(6)) == 54)
        #expect(throttle.retryAfter(client: "10.0.0.8", now: Self.start.addingTimeInterval(6)) == nil)
        #expect(throttle.retryAfter(client: "10.0.0.9", now: Self.start.addingTimeInterval(60)) == nil)
        throttle.failed(client: "10.0.0.7", now: Self.start)
        throttle.succeeded(client: "10.0.0.7")
        #expect(throttle.records["10.0.0.7"] == nil)
    }

    @Test("account rules: names, duplicates, password length, unknown users")
    func accountRules() throws {
        var list = DashboardUserList()
        try list.add(Self.coach)
        #expect(throws: DashboardUsersError.self) { try list.add(Self.coach) }
        for bad in ["", "-lead", "a b", "anna/1", String(repeating: "x", count: 33)] {
            #expect(throws: DashboardUsersError.self, "\(bad)") {
                try list.add(DashboardUser(name: bad, role: .viewer, passwordHash: "x"))
            }
        }
        #expect(throws: DashboardUsersError.self) { try DashboardUserList.checkPassword("short") }
        #expect(throws: DashboardUsersError.self) {
            try DashboardUserList.checkPassword(String(repeating: "p", count: 73))
        }
        try DashboardUserList.checkPassword("long-enough")
        #expect(throws: DashboardUsersError.self) { try list.remove(named: "nobody") }
        #expect(throws: DashboardUsersError.self) { try list.setPasswordHash("x", of: "nobody") }
        try list.remove(named: "coach")
        #expect(list.users.isEmpty)
    }

    @Test("the users file round-trips, mode 0640, and a file that is not one is refused with the fix")
    func usersFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString)").path
        let file = DashboardUsersFile(stateDirectory: directory)
        #expect(try file.load().users.isEmpty)
        let hash = DashboardPassword.hash("password-1", cost: 4)
        try file.update { list throws(DashboardUsersError) in
            try list.add(DashboardUser(name: "anna", role: .viewer, passwordHash: hash))
        }
        let loaded = try file.load()
        #expect(loaded.user(named: "anna")?.role == .viewer)
        #expect(DashboardPassword.verify("password-1", hash: try #require(loaded.user(named: "anna")).passwordHash))
        #expect(!DashboardPassword.verify("password-2", hash: hash))
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(!(try String(contentsOfFile: file.path, encoding: .utf8)).contains("password-1"))
        try "not json".write(toFile: file.path, atomically: true, encoding: .utf8)
        let error = #expect(throws: DashboardUsersError.self) { try file.load() }
        #expect(error?.code == .unreadable)
        #expect(error?.message.contains("add the users again") == true)
    }

    @Test("charts: a line through every point, one bar per value, escaped titles, a note when empty")
    func charts() {
        let line = SVGChart(
            title: "A < B", xUnit: "s", yUnit: "events", style: .line, points: [(0, 0), (10, 5), (20, 9)]
        ).svg
        #expect(line.hasPrefix("<svg class=\"chart\""))
        #expect(line.contains("A &lt; B"))
        #expect(line.contains(#"<polyline class="series" points="48.0,192.0 "#))
        let bars = SVGChart(title: "h", xUnit: "s", yUnit: "m", style: .bars, points: [(1, 0.3), (2, 0.4), (3, 0.5)])
            .svg
        #expect(bars.components(separatedBy: "<rect class=\"bar\"").count - 1 == 3)
        let empty = SVGChart(title: "e", xUnit: "s", yUnit: "m", style: .bars, points: []).svg
        #expect(empty.contains("no events"))
    }
}
