// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Foundation
import Glibc

/// One run of `bench-gateway`: a fresh state directory, the gateway started in a process of its
/// own (`sportsensor-dev bench-gateway-host`), N emulated sensors served from this process, a
/// session on each, `subscribers` SSE streams, then the gateway's own counters over a measuring window.
struct GatewayBenchmarkRun {
    /// The sportsensor-dev executable whose `bench-gateway-host` runs the gateway.
    var host: String
    var mallocCounter: String?
    var directory: String
    var sensors: Int
    var rate: Int
    var subscribers: Int
    var warmUp: Duration
    var window: Duration
    /// Prints a ``GatewayBenchmarkLatencyDetail`` line to standard error after the run.
    var latencyDetail = false

    func run() async throws -> GatewayBenchmarkFigures {
        let stateDirectory = directory + "/state"
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        let control = directory + "/ctl.sock"
        let configuration = directory + "/config.toml"
        try "[virtual]\nrate = \(rate)\n\n[sessions]\nauto_start = false\n".write(
            toFile: configuration, atomically: true, encoding: .utf8)
        let peers = try GatewayBenchmarkSensors(path: directory + "/sensors.sock", rate: rate)
        defer { peers.stop() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: host)
        process.arguments = [
            "bench-gateway-host", "--config", configuration, "--state-dir", stateDirectory, "--socket", control,
            "--virtual-sensors", "\(sensors)", "--sensor-socket", peers.listener.path, "--log-level", "warning",
        ]
        var environment = ProcessInfo.processInfo.environment
        let counterFile = directory + "/mallocs"
        if let mallocCounter {
            environment["LD_PRELOAD"] = mallocCounter
            environment["MALLOC_COUNT_FILE"] = counterFile
        }
        process.environment = environment
        guard FileManager.default.createFile(atPath: directory + "/daemon.log", contents: nil),
            let log = FileHandle(forWritingAtPath: directory + "/daemon.log")
        else {
            throw HarnessError(.systemCall, "cannot create \(directory)/daemon.log: give a writable --directory")
        }
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let pid = process.processIdentifier
        defer {
            if process.isRunning {
                kill(pid, SIGTERM)
                process.waitUntilExit()
            }
        }
        let http = GatewayBenchmarkHTTP(socket: control)
        try await http.waitUntilAnswering(daemonLog: directory + "/daemon.log")
        // The sensors' connections wait in the listener's backlog until accepted: this is the
        // daemon with its links opening but no sample yet.
        try await Task.sleep(for: .seconds(2))
        let idle = try Self.reading(pid: pid, http: http, counter: mallocCounter == nil ? nil : counterFile)
        peers.start()
        try await http.waitForMetric("sportsensord_sensors_connected", toReach: Double(sensors), within: .seconds(120))
        for number in 1...sensors {
            try http.post("/v1/sessions", json: "{\"sensor\":\"virtual-\(number)\"}")
        }
        let streams = try (0..<subscribers).map { _ in try GatewayBenchmarkSubscriber(socket: control, sensors: peers) }
        defer { for stream in streams { stream.close() } }
        try await Task.sleep(for: warmUp)
        let start = try Self.reading(pid: pid, http: http, counter: mallocCounter == nil ? nil : counterFile)
        try await Task.sleep(for: window)
        let end = try Self.reading(pid: pid, http: http, counter: mallocCounter == nil ? nil : counterFile)
        let latencies = streams.flatMap { $0.latencies(in: start.at...end.at) }
        if latencyDetail {
            let detail = GatewayBenchmarkLatencyDetail(
                latencies: streams.flatMap { $0.detailedLatencies(in: start.at...end.at) },
                countersArrivals: streams.map { $0.countersArrivals(in: start.at...end.at) })
            FileHandle.standardError.write(Data((detail.line + "\n").utf8))
        }
        kill(pid, SIGTERM)
        process.waitUntilExit()
        return GatewayBenchmarkFigures(
            sensors: sensors, rate: rate, subscribers: subscribers, start: start, end: end,
            idle: idle, ticksPerSecond: sysconf(Int32(_SC_CLK_TCK)), latencies: latencies)
    }

    /// The daemon's counters now.
    static func reading(pid: Int32, http: GatewayBenchmarkHTTP, counter: String?) throws -> GatewayProcessReading {
        let metrics = try http.get("/metrics")
        let at = ContinuousClock.now
        func file(_ name: String) throws -> String {
            try String(contentsOfFile: "/proc/\(pid)/\(name)", encoding: .utf8)
        }
        guard let ticks = GatewayProcessFiles.cpuTicks(stat: try file("stat")),
            let status = GatewayProcessFiles.status(try file("status")),
            let written = GatewayProcessFiles.writeBytes(io: try file("io")),
            let rollup = GatewayProcessFiles.rollup(smaps: try file("smaps_rollup"))
        else {
            throw HarnessError(
                .systemCall,
                "cannot read /proc/\(pid)/stat, status, io or smaps_rollup: did the daemon exit? Its log is in the run directory"
            )
        }
        var allocations: Int?
        if let counter, let data = FileManager.default.contents(atPath: counter), data.count >= 8 {
            allocations = Int(data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        }
        return GatewayProcessReading(
            cpuTicks: ticks, residentBytes: status.resident, residentAnonymousBytes: status.anonymous,
            proportionalBytes: rollup.proportional, anonymousBytes: rollup.anonymous,
            privateDirtyBytes: rollup.privateDirty, writeBytes: written, allocations: allocations,
            samples: GatewayProcessFiles.metric("sportsensord_samples_total", in: metrics) ?? 0,
            notifications: GatewayProcessFiles.metric("sportsensord_notifications_total", in: metrics) ?? 0,
            lostSamples: GatewayProcessFiles.metric("sportsensord_lost_samples_total", in: metrics) ?? 0, at: at)
    }
}

/// Plain HTTP/1.1 over the control socket, one connection per request.
struct GatewayBenchmarkHTTP {
    var socket: String

    func get(_ path: String) throws -> String {
        try exchange("GET \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    }

    func post(_ path: String, json: String) throws {
        let answer = try exchange(
            "POST \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
        guard answer.hasPrefix("HTTP/1.1 2") else {
            throw HarnessError(.gatewayFailed, "POST \(path) \(json) was refused: \(answer.prefix(300))")
        }
    }

    private func exchange(_ request: String) throws -> String {
        let stream = try UnixStream(path: socket)
        defer { stream.close() }
        try stream.write(Array(request.utf8))
        return String(decoding: try stream.readToEnd(), as: UTF8.self)
    }

    func waitUntilAnswering(daemonLog: String) async throws {
        for _ in 0..<300 {
            if (try? get("/v1/status"))?.hasPrefix("HTTP/1.1 200") == true { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        let log = (try? String(contentsOfFile: daemonLog, encoding: .utf8)) ?? ""
        throw HarnessError(
            .gatewayFailed, "the gateway did not answer on \(socket) within 30 s; its log:\n\(log.suffix(2000))")
    }

    func waitForMetric(_ name: String, toReach value: Double, within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        var last = 0.0
        while ContinuousClock.now < deadline {
            last = GatewayProcessFiles.metric(name, in: (try? get("/metrics")) ?? "") ?? 0
            if last >= value { return }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw HarnessError(
            .timeout,
            "\(name) reached \(last), not \(value), within \(limit): the machine may be too loaded; give fewer --sensors"
        )
    }
}
