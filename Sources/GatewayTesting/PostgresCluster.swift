// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// A throw-away PostgreSQL server from Debian's `postgresql` package: `initdb` into a temporary
/// directory, `postgres` on a free loopback port with its socket in that directory, trust
/// authentication for the superuser `postgres`. `initdb` refuses to run as root, so under root the
/// server runs as the `postgres` system user (`setpriv`), owning the directory. The server is this
/// process's child in the foreground (not `pg_ctl start`, whose daemon would inherit Foundation's
/// process-watching descriptor and never let the start "finish"); SIGINT is its fast shutdown.
public final class PostgresCluster: Sendable {
    /// The directory: `data/`, `server.log`, the socket.
    public let directory: String
    /// The TCP port on 127.0.0.1.
    public let port: Int
    private let binaries: String
    private let server = NIOLockedValueBox<LineCollectingProcess?>(nil)
    private let starts = NIOLockedValueBox(0)

    /// Where Debian installs the server's programs (`/usr/lib/postgresql/<major>/bin`); nil
    /// without the package.
    public static var binaryDirectory: String? {
        let root = "/usr/lib/postgresql"
        let majors = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        guard let newest = majors.compactMap(Int.init).sorted().last else { return nil }
        let binaries = "\(root)/\(newest)/bin"
        return FileManager.default.isExecutableFile(atPath: binaries + "/initdb") ? binaries : nil
    }

    /// Makes and starts a cluster.
    public init() async throws {
        guard let binaries = Self.binaryDirectory else {
            throw ProcessHarnessError("PostgreSQL is not installed: run `make deps` (Debian package postgresql)")
        }
        self.binaries = binaries
        directory = "/tmp/ssd-pg-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        if getuid() == 0 {
            _ = try await runCommand("/usr/bin/chown", ["postgres:postgres", directory])
        }
        let initdb = try await asServerUser(
            "\(binaries)/initdb",
            ["-D", "\(directory)/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        guard initdb.status == 0 else { throw ProcessHarnessError("initdb failed: \(initdb)") }
        try await start()
    }

    /// Starts the server (again) and waits until it accepts connections.
    public func start() async throws {
        let number = starts.withLockedValue { count in
            count += 1
            return count
        }
        let postgres = [
            "\(binaries)/postgres", "-D", "\(directory)/data", "-p", "\(port)", "-k", directory, "-c",
            "listen_addresses=127.0.0.1", "-c", "fsync=off",
        ]
        let process = try LineCollectingProcess(
            executable: getuid() == 0 ? "/usr/bin/setpriv" : postgres[0],
            arguments: getuid() == 0
                ? ["--reuid=postgres", "--regid=postgres", "--init-groups", "--"] + postgres
                : Array(postgres.dropFirst()),
            standardErrorPath: "\(directory)/server-\(number).log")
        server.withLockedValue { $0 = process }
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            guard process.process.isRunning else {
                let log = (try? String(contentsOfFile: "\(directory)/server-\(number).log", encoding: .utf8)) ?? ""
                throw ProcessHarnessError("postgres exited at start:\n\(log)")
            }
            let ready = try await runCommand(
                "\(binaries)/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres"], timeout: .seconds(10))
            if ready.status == 0 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ProcessHarnessError("postgres did not accept connections within 120 s")
    }

    /// Stops the server (fast shutdown: open connections are cut, as when a server goes away).
    public func stop() async throws {
        guard let process = server.withLockedValue({ $0 }) else { return }
        process.send(SIGINT)
        guard await process.waitForExit(timeout: .seconds(60)) != nil else {
            process.send(SIGKILL)
            throw ProcessHarnessError("postgres did not stop within 60 s of SIGINT")
        }
        server.withLockedValue { $0 = nil }
    }

    /// Runs `sql` with `psql` in `database`; returns the rows, unaligned, `|` between columns.
    public func psql(_ sql: String, database: String = "postgres") async throws -> [String] {
        let result = try await runCommand(
            "\(binaries)/psql",
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-At", "-v", "ON_ERROR_STOP=1",
                "-c", sql,
            ])
        guard result.status == 0 else { throw ProcessHarnessError("psql failed: \(sql)\n\(result)") }
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    /// `postgres://postgres:<password>@127.0.0.1:<port>/<database>?sslmode=disable` (trust
    /// authentication ignores the password; it is there to show it never reaches a log).
    public func url(database: String, password: String = "s3cret-never-logged") -> String {
        "postgres://postgres:\(password)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Stops the server if it runs and removes the directory.
    public func remove() async {
        if let process = server.withLockedValue({ $0 }) {
            process.send(SIGQUIT)
            if await process.waitForExit(timeout: .seconds(30)) == nil { process.send(SIGKILL) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func asServerUser(
        _ executable: String, _ arguments: [String], timeout: Duration = .seconds(120)
    ) async throws -> CommandResult {
        if getuid() == 0 {
            return try await runCommand(
                "/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments, timeout: timeout)
        }
        return try await runCommand(executable, arguments, timeout: timeout)
    }

    /// A port the kernel just gave out on 127.0.0.1 (bound, read back, released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProcessHarnessError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw ProcessHarnessError("bind: errno \(errno)") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw ProcessHarnessError("getsockname: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
