// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Foundation
import SystemCalls
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// `soak-api --socket PATH`: how fast a running daemon's `GET /v1/status` answers, alone, while
/// thousands of idle connections sit on its control socket, and (`--download-session ID`) while
/// clients that read nothing hold downloads of a session's samples CSV. The figures behind
/// "answers in < 100 ms throughout" (Docs/PERFORMANCE.md); the deterministic checks are in
/// `ControlAPISoakTests` and `DownloadSoakTests`.
struct SoakAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak-api",
        abstract: "Latency of GET /v1/status on a running sportsensord, with and without an idle-connection flood.")

    @Option(help: "The daemon's control socket.")
    var socket: String

    @Option(help: "Idle connections to open (each held open, sending nothing).")
    var idle = 2000

    @Option(help: "GET /v1/status requests measured in each phase.")
    var requests = 500

    @Option(help: "A stored session whose samples CSV stalled clients download (a last phase).")
    var downloadSession: String?

    @Option(help: "Stalled downloads of --download-session (each reads the answer's first bytes, then nothing).")
    var stalled = 30

    mutating func run() throws {
        try Self.raiseDescriptorLimit(to: rlim_t(idle + 256))
        let quiet = try measure(phase: "no idle connections")
        var held: [UnixStream] = []
        var refusedOrClosed = 0
        for _ in 0..<idle {
            do { held.append(try UnixStream(path: socket)) } catch { refusedOrClosed += 1 }
        }
        let flooded = try measure(phase: "\(idle) idle connections opened (\(refusedOrClosed) refused)")
        let closedByServer = held.filter { $0.isClosedByPeer() }.count
        print("idle connections the daemon closed to stay within its cap: \(closedByServer) of \(held.count)")
        for stream in held { stream.close() }
        var failures = quiet.failures + flooded.failures
        if let session = downloadSession {
            var downloads: [UnixStream] = []
            defer { for stream in downloads { stream.close() } }
            let request = Array("GET /v1/sessions/\(session)/samples.csv HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
            for _ in 0..<stalled {
                let stream = try UnixStream(path: socket)
                try stream.write(request)
                downloads.append(stream)
            }
            // Each download has begun (its first bytes arrived); from now on nothing is read.
            for stream in downloads { _ = try stream.readSome() }
            failures += try measure(phase: "\(stalled) stalled downloads of session \(session)").failures
        }
        if failures > 0 { throw ExitCode.failure }
    }

    struct Phase {
        var latencies: [Double] = []
        var failures = 0
    }

    func measure(phase name: String) throws -> Phase {
        var phase = Phase()
        let request = Array("GET /v1/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        for _ in 0..<requests {
            let started = ContinuousClock.now
            do {
                let stream = try UnixStream(path: socket)
                defer { stream.close() }
                try stream.write(request)
                let answer = try stream.readToEnd()
                guard answer.starts(with: Array("HTTP/1.1 200".utf8)) else {
                    phase.failures += 1
                    continue
                }
                phase.latencies.append((ContinuousClock.now - started).inSeconds * 1000)
            } catch {
                phase.failures += 1
            }
        }
        let sorted = phase.latencies.sorted()
        // Which request was slowest: the first after a burst waits behind the connections queued before it.
        let slowest = phase.latencies.indices.max { phase.latencies[$0] < phase.latencies[$1] }.map { $0 + 1 }
        func quantile(_ q: Double) -> String {
            guard !sorted.isEmpty else { return "-" }
            return String(format: "%.2f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))])
        }
        print(
            "\(name): \(sorted.count) answered, \(phase.failures) failed; /v1/status ms p50 \(quantile(0.5)) "
                + "p99 \(quantile(0.99)) max \(sorted.last.map { String(format: "%.2f", $0) } ?? "-")"
                + " (request \(slowest.map(String.init) ?? "-"))")
        return phase
    }

    static func raiseDescriptorLimit(to wanted: rlim_t) throws {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        guard limit.rlim_cur < wanted else { return }
        guard limit.rlim_max >= wanted else {
            throw ValidationError("\(wanted) descriptors needed, the hard limit is \(limit.rlim_max): lower --idle")
        }
        limit.rlim_cur = wanted
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// A blocking Unix stream socket, enough for a measuring harness.
struct UnixStream {
    let descriptor: Int32

    init(path: String) throws {
        let made = syscall("socket") { Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0) }
        guard case .success(let descriptor) = made else {
            throw HarnessError(.systemCall, "cannot make a Unix socket: \(made)")
        }
        self.descriptor = descriptor
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                syscall("connect") {
                    Glibc.connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        if case .failure(let errno) = connected {
            close()
            throw HarnessError(
                .gatewayFailed, "cannot connect to \(path): is sportsensord running with --socket \(path)?",
                cause: errno)
        }
    }

    /// What to check when the gateway's side of the stream went away.
    static let stopped = "did sportsensord stop or restart? Its log (journalctl -u sportsensord) says why"

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                syscall("send") {
                    Glibc.send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                }
            }
            switch result {
            case .success(let count) where count > 0:
                sent += count
            case .success:
                throw HarnessError(.gatewayFailed, "the gateway took none of the request: \(Self.stopped)")
            case .failure(let errno):
                throw HarnessError(.gatewayFailed, "send to the gateway failed: \(Self.stopped)", cause: errno)
            }
        }
    }

    /// What one `read` returns; empty at the end of the stream.
    func readSome() throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let result = buffer.withUnsafeMutableBytes { raw in
            syscall("read") { Glibc.read(descriptor, raw.baseAddress, raw.count) }
        }
        switch result {
        case .success(let count):
            return Array(buffer.prefix(count))
        case .failure(let errno):
            throw HarnessError(.gatewayFailed, "read from the gateway failed: \(Self.stopped)", cause: errno)
        }
    }

    func readToEnd() throws -> [UInt8] {
        var answer: [UInt8] = []
        while true {
            let part = try readSome()
            if part.isEmpty { return answer }
            answer += part
        }
    }

    /// True when the peer has closed (a non-blocking peek sees the end of the stream).
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let result = syscall("recv") { Glibc.recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) }
        if case .success(0) = result { return true }
        return false
    }

    func close() {
        _ = syscall("close", retryingOnEINTR: false) { Glibc.close(descriptor) }
    }
}
