// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayTesting
import Glibc
import Testing

@testable import ControlAPI

/// The control API under a careless or hostile client: thousands of idle connections, random
/// routes, methods and bodies, requests trickled in byte by byte. Bounded by counts, seeded, so
/// every run sends the same requests; no timing is asserted (the latency figures come from
/// `sportsensor-dev soak-api`, Docs/PERFORMANCE.md).
@Suite("Control API soak: idle floods, random requests, slow clients", .serialized)
struct ControlAPISoakTests {
    static let idleConnections = 2000
    static let randomRequests = 400

    /// `GET /v1/status` on a new connection: the answer and its decoded body.
    static func status(_ socketPath: String) async throws -> Int {
        let client = try RawHTTPClient.connect(unixSocket: socketPath)
        defer { client.close() }
        let answer = try await client.exchange("GET", "/v1/status")
        if answer.status == 200 {
            _ = try JSONDecoder.controlAPI.decode(GatewayStatus.self, from: Data(answer.body))
        }
        return answer.status
    }

    @Test("2 000 idle connections past a cap of 64: the idle-longest are closed and /v1/status answers throughout")
    func idleFlood() async throws {
        try DescriptorLimit.raise(to: 8192)
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil, idleTimeout: .seconds(600),
            maxConnections: 64)
        try await ControlServerHarness.with(FakeGatewayControl().services, configuration: configuration) { listening in
            var idle: [RawHTTPClient] = []
            defer { for client in idle { client.close() } }
            for index in 0..<Self.idleConnections {
                idle.append(try RawHTTPClient.connect(unixSocket: listening.socketPath))
                if index % 250 == 249 {
                    #expect(try await Self.status(listening.socketPath) == 200, "after \(index + 1) idle connections")
                }
            }
            // A half-sent request head counts as idle too.
            try await idle[Self.idleConnections - 1].send("GET /v1/status HTTP/1.1\r\nHo")
            #expect(try await Self.status(listening.socketPath) == 200)
            // The oldest idle connections were closed by the server (end of stream, no answer),
            // not left to the 600-s idle timeout.
            for client in idle.prefix(200) {
                #expect(try await client.readToEnd(timeout: .seconds(30)).isEmpty)
            }
        }
    }

    @Test("every connection busy: a new one is closed at once, the busy ones are served")
    func allBusy() async throws {
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil,
            keepAliveInterval: .seconds(600), maxConnections: 4)
        try await ControlServerHarness.with(FakeGatewayControl().services, configuration: configuration) { listening in
            var streams: [RawHTTPClient] = []
            defer { for stream in streams { stream.close() } }
            for _ in 0..<4 {
                let stream = try RawHTTPClient.connect(unixSocket: listening.socketPath)
                try await stream.sendRequest("GET", "/v1/events")
                #expect(try await stream.readHead().status == 200)
                streams.append(stream)
            }
            let refused = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            defer { refused.close() }
            #expect(try await refused.readToEnd(timeout: .seconds(30)).isEmpty, "closed without an answer")
        }
    }

    /// A request line and body drawn from `random`.
    static func randomRequest(_ random: inout SeededRandom) -> (method: String, path: String, body: String?) {
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        let methods = ["GET", "GET", "POST", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
        let segments = [
            "anna", "virtual-1", "AA:BB:CC:DD:EE:FF", "0", "-1", "..", "%00", "%FF%FE", "%E2%80%AE", "stop",
            "events", "samples.csv", "reanalyze", "import", String(repeating: "x", count: 300), "%2F..%2Fetc",
        ]
        let prefixes = [
            "/v1/status", "/v1/adapters", "/v1/scan", "/v1/sensors", "/v1/sessions", "/v1/prune", "/metrics", "/v1",
            "/", "/v2/status", "/v1/sessions/import",
        ]
        var path = pick(prefixes)
        for _ in 0..<Int(random.next() % 3) { path += "/" + pick(segments) }
        if random.next() % 3 == 0 {
            let queries = [
                "seconds=5", "seconds=1e999", "seconds=-1", "live=maybe", "limit=0", "limit=9999999999999",
                "athlete=%00", "x=y&x=z", "=",
            ]
            path += "?" + pick(queries)
        }
        let bodies: [String?] = [
            nil, "{}", "[]", "null", "{\"sensor\":\"virtual-1\"}", "{\"sensor\":1}", "{\"address\":\"zz\"}",
            "{\"older_than_days\":-5,\"dry_run\":true}", "{\"samples\":[[0,1e300,1,2,3]]}", "not json",
            String(repeating: "[", count: 5000), "{\"alias\":\"\\u001b[2J\"}",
        ]
        return (pick(methods), path, pick(bodies))
    }

    @Test("400 seeded random requests, some trickled in pieces: never a 500, and /v1/status answers after each batch")
    func randomRequests() async throws {
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil, maxConnections: 64)
        try await ControlServerHarness.with(FakeGatewayControl().services, configuration: configuration) { listening in
            var random = SeededRandom(seed: 12)
            var statuses: [Int: Int] = [:]
            for index in 0..<Self.randomRequests {
                var request = Self.randomRequest(&random)
                // The event stream never ends by itself: only its head is checked.
                if request.method == "GET", request.path.hasPrefix("/v1/events") { request.path = "/v1/status" }
                let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
                defer { client.close() }
                var text = "\(request.method) \(request.path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                if let body = request.body {
                    text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                }
                text += "\r\n" + (request.body ?? "")
                if random.next() % 4 == 0 {
                    // A slow client: the request in small pieces with pauses between them.
                    let bytes = Array(text.utf8)
                    let piece = max(1, bytes.count / 6)
                    for start in stride(from: 0, to: bytes.count, by: piece) {
                        let end = min(start + piece, bytes.count)
                        try await client.send(String(decoding: bytes[start..<end], as: UTF8.self))
                        try await Task.sleep(for: .milliseconds(3))
                    }
                } else {
                    try await client.send(text)
                }
                let head = try await client.readHead(timeout: .seconds(30))
                statuses[head.status, default: 0] += 1
                #expect(head.status < 500, "\(request.method) \(request.path) answered \(head.status)")
                if index % 25 == 24 {
                    #expect(try await Self.status(listening.socketPath) == 200, "after \(index + 1) random requests")
                }
            }
            #expect(Set([200, 400, 404]).isSubset(of: statuses.keys), "\(statuses)")
        }
    }
}
