// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real `sportsensord` process on a temporary state directory and control socket, with
/// `sportsensorctl` pointed at both through `SPORTSENSOR_SOCKET` and `SPORTSENSOR_STATE_DIR`.
final class RunningGateway: Sendable {
    static let daemonPath = BuiltProducts.path(of: "sportsensord")
    static let controlPath = BuiltProducts.path(of: "sportsensorctl")

    /// The temporary directory: `config.toml`, `state/`, `control.sock`, `daemon-N.log`.
    let directory: String
    let daemon: LineCollectingProcess
    let logPath: String

    var stateDirectory: String { directory + "/state" }
    var socketPath: String { directory + "/control.sock" }
    var configPath: String { directory + "/config.toml" }
    var environment: [String: String] {
        ["SPORTSENSOR_SOCKET": socketPath, "SPORTSENSOR_STATE_DIR": stateDirectory]
    }

    private init(directory: String, daemon: LineCollectingProcess, logPath: String) {
        self.directory = directory
        self.daemon = daemon
        self.logPath = logPath
    }

    /// A fresh temporary directory (short, so the socket path fits `sun_path`).
    static func makeDirectory() throws -> String {
        let path = "/tmp/ssd-e2e-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Starts the daemon with `config` (the TOML text) in `directory` (a new one by default) and
    /// waits until `sportsensorctl status` gets an answer.
    static func start(config: String, in directory: String? = nil) async throws -> RunningGateway {
        let daemonPath = try #require(daemonPath, "build the daemon first: swift build --build-tests")
        let directory = try directory ?? makeDirectory()
        try config.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
        var number = 1
        while FileManager.default.fileExists(atPath: directory + "/daemon-\(number).log") { number += 1 }
        let logPath = directory + "/daemon-\(number).log"
        let daemon = try LineCollectingProcess(
            executable: daemonPath,
            arguments: [
                "--config", directory + "/config.toml", "--state-dir", directory + "/state", "--socket",
                directory + "/control.sock",
            ],
            standardErrorPath: logPath)
        let gateway = RunningGateway(directory: directory, daemon: daemon, logPath: logPath)
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline {
            guard daemon.process.isRunning else {
                throw ProcessHarnessError("sportsensord exited at start:\n\(gateway.log)")
            }
            if try await gateway.control(["status", "--json"]).status == 0 { return gateway }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ProcessHarnessError("sportsensord did not answer within 300 s:\n\(gateway.log)")
    }

    /// Runs `body` with a started gateway and always stops the daemon and removes its directory
    /// afterwards, whether `body` returns or throws.
    static func with<T>(
        config: String, in directory: String? = nil, _ body: (RunningGateway) async throws -> T
    ) async throws -> T {
        let gateway = try await start(config: config, in: directory)
        do {
            let result = try await body(gateway)
            await gateway.remove()
            return result
        } catch {
            await gateway.remove()
            throw error
        }
    }

    /// The daemon's log so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Runs `sportsensorctl arguments`.
    func control(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> CommandResult {
        let controlPath = try #require(Self.controlPath, "build sportsensorctl first: swift build --build-tests")
        return try await runCommand(controlPath, arguments, environment: environment, timeout: timeout)
    }

    /// Runs `sportsensorctl arguments`, expects status 0 and returns stdout parsed as JSON.
    func controlJSON(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Any {
        let result = try await control(arguments)
        #expect(result.status == 0, "\(arguments): \(result)", sourceLocation: sourceLocation)
        return try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8), options: [.fragmentsAllowed])
    }

    /// Starts `sportsensorctl tail` with `arguments` in the background.
    func tail(_ arguments: [String] = ["--json"]) throws -> LineCollectingProcess {
        let controlPath = try #require(Self.controlPath, "build sportsensorctl first: swift build --build-tests")
        return try LineCollectingProcess(
            executable: controlPath, arguments: ["tail"] + arguments, environment: environment)
    }

    /// Real-time waits (up to `timeout`) until `condition` holds. The condition is asked once more
    /// at the deadline, as `pollUntil` and `waitForOutput` do: a test whose sleep was held past the
    /// deadline by a busy pool must not fail without looking.
    func waitUntil(
        timeout: Duration = .seconds(30), _ condition: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await condition()
    }

    /// Waits until the sensor called `alias` reports the link `state`.
    func waitForLink(
        _ alias: String, _ state: String = "connected", timeout: Duration = .seconds(30)
    ) async throws
        -> Bool
    {
        try await waitUntil(timeout: timeout) {
            let sensors = try await controlJSON(["sensors", "--json"]) as? [[String: Any]] ?? []
            return sensors.contains { $0["alias"] as? String == alias && $0["link_state"] as? String == state }
        }
    }

    /// `GET path` on the control socket: the status and the body.
    func get(_ path: String) async throws -> RawHTTPClient.Message {
        let client = try RawHTTPClient.connect(unixSocket: socketPath)
        defer { client.close() }
        return try await client.exchange("GET", path, timeout: .seconds(60))
    }

    /// The samples session `id` has received so far, as `GET /v1/sessions/{id}` reports them
    /// (a live session counts what arrived; an ended one what was stored).
    func samples(of id: String) async throws -> Int {
        let answer = try await get("/v1/sessions/\(id)")
        let session = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        return session?["samples"] as? Int ?? 0
    }

    /// Waits until session `id` has received at least `count` samples; returns how many it had.
    func waitForSamples(of id: String, atLeast count: Int, timeout: Duration = .seconds(60)) async throws -> Int {
        var received = 0
        _ = try await waitUntil(timeout: timeout) {
            received = try await samples(of: id)
            return received >= count
        }
        return received
    }

    /// The events of session `id` that the store holds now (`GET /v1/sessions/{id}/events`: the
    /// database and, while it records, the tail segments the recorder has appended to).
    func storedEvents(of id: String) async throws -> [NSDictionary] {
        let answer = try await get("/v1/sessions/\(id)/events")
        return try JSONSerialization.jsonObject(with: Data(answer.body)) as? [NSDictionary] ?? []
    }

    /// The sample lines of session `id` that the store holds now (`GET /v1/sessions/{id}/samples.csv`
    /// without its header).
    func storedSampleLines(of id: String) async throws -> [Substring] {
        let answer = try await get("/v1/sessions/\(id)/samples.csv")
        return Array(answer.text.split(separator: "\n").dropFirst())
    }

    /// Stops the daemon (SIGTERM, then SIGKILL after 20 s) and removes the directory.
    func remove() async {
        if daemon.process.isRunning {
            daemon.send(SIGTERM)
            if await daemon.waitForExit(timeout: .seconds(20)) == nil { daemon.send(SIGKILL) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// One line of `sportsensorctl tail --json`: `{"event": KIND, "data": {...}}`.
struct TailLine {
    var event: String
    var data: [String: Any]

    init?(_ line: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let event = object["event"] as? String, let data = object["data"] as? [String: Any]
        else { return nil }
        self.event = event
        self.data = data
    }

    /// The detections of session `id` in `lines`, as (type, t, peak) in order.
    static func detections(in lines: [String], session id: String) -> [DetectedEvent] {
        lines.compactMap(TailLine.init).filter { $0.event == "detection" && $0.data["session_id"] as? String == id }
            .map(DetectedEvent.init)
    }
}

/// An event as `tail` shows it and `export --format jsonl` stores it.
struct DetectedEvent: Equatable, CustomStringConvertible {
    var type: String
    var t: Double
    var peakG: Double?

    init(_ line: TailLine) { self.init(line.data["event"] as? [String: Any] ?? [:]) }

    init(_ object: [String: Any]) {
        type = object["type"] as? String ?? "?"
        t = object["t"] as? Double ?? .nan
        peakG = object["peak_g"] as? Double
    }

    /// Equal up to the `analyze` schema's printed precision (times to 0.1 ms, g to 0.001 g; the
    /// event stream carries full doubles).
    static func == (lhs: DetectedEvent, rhs: DetectedEvent) -> Bool {
        lhs.type == rhs.type && abs(lhs.t - rhs.t) <= 0.5e-4 + 1e-6
            && ((lhs.peakG == nil && rhs.peakG == nil) || abs((lhs.peakG ?? 0) - (rhs.peakG ?? 0)) <= 0.5e-3 + 1e-9)
    }

    var description: String { "\(type)@\(t)" + (peakG.map { " \($0) g" } ?? "") }
}
