// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import SDUSensor
import SessionStore
import StoreFormats
import Testing

/// Thirty clients ask for the samples CSV of a 3-million-sample session and read nothing: the
/// daemon makes each download only as fast as its client reads, so its memory stays far below the
/// unit's MemoryMax=512M and `/v1/status` answers meanwhile. Memory is read from the daemon's
/// /proc/PID/status (a measurement of another process, nothing shared with other suites);
/// latency is recorded, not asserted. Runs in a process of its own (SOAK_SUITES in the Makefile).
@Suite("Download soak: stalled clients of a huge samples CSV", .serialized, .timeLimit(.minutes(3)))
struct DownloadSoakTests {
    static let sampleCount = 3_000_000
    static let stalledClients = 30
    /// The unit's MemoryMax (systemd/sportsensord.service).
    static let memoryMax = 512 << 20
    /// `/v1/status` requests made while the downloads stall, 100 ms apart.
    static let statusProbes = 50

    /// A session of `sampleCount` samples at 100 Hz, stored before the daemon starts.
    static func makeSession(in state: String) async throws -> String {
        let store = try SessionStore.open(at: StateDirectory(path: state))
        defer { try? store.close() }
        var samples: [IndexedSample] = []
        samples.reserveCapacity(sampleCount)
        for index in 0..<sampleCount {
            let wave = Int16(truncatingIfNeeded: (index % 200) * 40 - 4000)
            samples.append(
                IndexedSample(
                    index: Int64(index), t: Double(index) / 100, raw: RawAcceleration(x: wave, y: -wave, z: 16384)))
        }
        let record = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .steps)), samples: samples, events: [],
            chunkLength: 32_768)
        return record.id.uuidString.lowercased()
    }

    /// The daemon's resident memory, kB: (VmRSS, RssAnon) from /proc/PID/status.
    static func memory(of pid: Int32) throws -> (rss: Int, anonymous: Int) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return (field("VmRSS"), field("RssAnon"))
    }

    @Test("30 stalled downloads of a 3-million-sample CSV: RSS stays far under MemoryMax, /v1/status answers")
    func stalledDownloads() async throws {
        try DescriptorLimit.raise(to: 4096)
        let directory = try RunningGateway.makeDirectory()
        let id = try await Self.makeSession(in: directory + "/state")
        try await RunningGateway.with(config: "[virtual]\nsensors = 1\n", in: directory) { gateway in
            let pid = gateway.daemon.process.processIdentifier
            let before = try Self.memory(of: pid)
            var stalled: [RawHTTPClient] = []
            defer { for client in stalled { client.close() } }
            for _ in 0..<Self.stalledClients {
                let client = try RawHTTPClient.connect(unixSocket: gateway.socketPath)
                try await client.sendRequest("GET", "/v1/sessions/\(id)/samples.csv")
                stalled.append(client)
            }
            // Every download has started (its head arrived); then nothing more is read.
            for client in stalled { #expect(try await client.readHead(timeout: .seconds(60)).status == 200) }
            var peak = before
            var latencies: [Duration] = []
            for _ in 0..<Self.statusProbes {
                let clock = ContinuousClock()
                let started = clock.now
                let answer = try await RawHTTPClient.connect(unixSocket: gateway.socketPath).exchange(
                    "GET", "/v1/status")
                latencies.append(clock.now - started)
                #expect(answer.status == 200, "/v1/status answers while 30 downloads stall")
                let now = try Self.memory(of: pid)
                peak = (max(peak.rss, now.rss), max(peak.anonymous, now.anonymous))
                try await Task.sleep(for: .milliseconds(100))
            }
            latencies.sort()
            func percentile(_ share: Double) -> String {
                let value = latencies[min(latencies.count - 1, Int(Double(latencies.count) * share))]
                let milliseconds = Double(value.components.seconds) * 1000 + Double(value.components.attoseconds) / 1e15
                return String(format: "%.1f ms", milliseconds)
            }
            print(
                "download soak: \(Self.stalledClients) stalled clients, \(Self.sampleCount) samples: VmRSS "
                    + "\(before.rss / 1024) → peak \(peak.rss / 1024) MB, RssAnon \(before.anonymous / 1024) → "
                    + "peak \(peak.anonymous / 1024) MB; /v1/status over \(latencies.count) probes: p50 "
                    + "\(percentile(0.5)), p99 \(percentile(0.99)), max \(percentile(1))")
            // Each download holds one store page (1.5 MB) and a 64 kB piece: 30 of them, about
            // 50 MB. Before pages, each held the whole session (3 M samples, 70+ MB): 1 GB for 30.
            #expect(
                peak.anonymous - before.anonymous < 150 * 1024,
                "RssAnon grew by \(peak.anonymous - before.anonymous) kB")
            #expect(peak.rss * 1024 < Self.memoryMax / 2, "VmRSS peaked at \(peak.rss) kB")
        }
    }

    /// An import body of `count` samples at 100 Hz, as `sportsensorctl import` sends it.
    static func importBody(count: Int) -> String {
        var text = #"{"profile":"steps","rules":"standard","set":[],"lost_samples":0,"malformed_notifications":0,"#
        text += #""samples":["#
        text.reserveCapacity(count * 32)
        for index in 0..<count {
            if index > 0 { text += "," }
            let wave = (index % 200) * 40 - 4000
            text += "[\(index),\(Double(index) / 100),\(wave),\(-wave),16384]"
        }
        return text + "]}"
    }

    @Test("a 400 000-sample import body is parsed as it arrives: RssAnon grows by far less than the body's JSON tree")
    func largeImport() async throws {
        let body = Self.importBody(count: 400_000)
        try await RunningGateway.with(config: "[virtual]\nsensors = 1\n") { gateway in
            let pid = gateway.daemon.process.processIdentifier
            let before = try Self.memory(of: pid)
            // Sampled every 50 ms while the body goes out and the daemon imports it: a
            // measurement window, nothing waits on it.
            let sampler = Task { () -> (rss: Int, anonymous: Int) in
                var peak = before
                while !Task.isCancelled {
                    guard let now = try? Self.memory(of: pid) else { break }
                    peak = (max(peak.rss, now.rss), max(peak.anonymous, now.anonymous))
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return peak
            }
            let client = try RawHTTPClient.connect(unixSocket: gateway.socketPath)
            defer { client.close() }
            try await client.send(
                "POST /v1/sessions/import HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n")
            var rest = Substring(body)
            while !rest.isEmpty {
                let piece = rest.prefix(1 << 20)
                try await client.send(String(piece))
                rest = rest.dropFirst(piece.count)
            }
            let head = try await client.readHead(timeout: .seconds(120))
            sampler.cancel()
            let peak = await sampler.value
            #expect(head.status == 201, "\(gateway.log.suffix(2000))")
            let megabytes = body.utf8.count >> 20
            print(
                "import soak: \(megabytes) MB body, 400 000 samples: RssAnon \(before.anonymous / 1024) → peak "
                    + "\(peak.anonymous / 1024) MB (sampled every 50 ms), VmRSS peak "
                    + "\(peak.rss / 1024) MB")
            // Parsing holds 24 bytes a sample; the import then detects and stores them (about 3.3
            // times the body in all, measured). Decoding the whole body into [[Double]] held about
            // 9 times the body (984 MB for 109 MB).
            #expect(
                peak.anonymous - before.anonymous < 6 * megabytes * 1024,
                "RssAnon grew by \(peak.anonymous - before.anonymous) kB")
        }
    }
}
