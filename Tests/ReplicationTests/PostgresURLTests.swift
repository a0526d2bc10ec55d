// SPDX-License-Identifier: GPL-2.0-or-later
import Replication
import Testing

@Suite("PostgresURL")
struct PostgresURLTests {
    @Test("a full URL parses; the password never shows in its description")
    func full() throws {
        let url = try PostgresURL(parsing: "postgres://coach:p%40ss@db.club.example:6543/club?sslmode=verify-full")
        #expect(url.host == "db.club.example")
        #expect(url.port == 6543)
        #expect(url.user == "coach")
        #expect(url.password == "p@ss")
        #expect(url.database == "club")
        #expect(url.sslMode == .verifyFull)
        #expect(url.redacted == "postgres://coach:***@db.club.example:6543/club?sslmode=verify-full")
        #expect(!"\(url)".contains("p@ss"))
    }

    @Test("defaults as libpq's: port 5432, database = user, sslmode prefer; a socket directory in host=")
    func defaults() throws {
        let url = try PostgresURL(parsing: "postgresql://analyst@10.0.0.5")
        #expect(url.port == 5432)
        #expect(url.database == "analyst")
        #expect(url.sslMode == .prefer)
        #expect(url.password == nil)
        let socket = try PostgresURL(parsing: "postgres://u@/club?host=/run/postgresql")
        #expect(socket.socketPath == "/run/postgresql/.s.PGSQL.5432")
        #expect(socket.host == nil)
    }

    @Test(
        "bad URLs are refused with the fix, never echoing a password",
        arguments: [
            "mysql://u:hunter22@h/d", "postgres://:hunter22@h/d", "postgres://u:hunter22@h/d?sslmode=allow",
            "postgres://u:hunter22@h/d?application_name=x", "postgres://u:hunter22@h:0/d",
        ])
    func refused(text: String) {
        #expect {
            _ = try PostgresURL(parsing: text)
        } throws: { error in
            let description = "\(error)"
            return (error as? ReplicationError)?.code == .badConfiguration && !description.contains("hunter22")
                && description.contains(":")
        }
    }

    @Test("backoff doubles from 0.5 s to 30 s, spread by at most a quarter")
    func backoff() {
        let plain = ReplicationBackoff()
        #expect(plain.delay(afterFailures: 1) == .milliseconds(500))
        #expect(plain.delay(afterFailures: 2) == .seconds(1))
        #expect(plain.delay(afterFailures: 7) == .seconds(30))
        #expect(plain.delay(afterFailures: 1000) == .seconds(30))
        let spread = ReplicationBackoff(spread: 0.5)
        #expect(spread.delay(afterFailures: 1) == .milliseconds(562.5))
    }
}
