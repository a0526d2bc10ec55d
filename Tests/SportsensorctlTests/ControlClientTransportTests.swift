// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLETransport
import ControlProtocol
import Foundation
import GatewayTesting
import Glibc
import Testing

@testable import sportsensorctl

/// The real client (async-http-client over `http+unix`) against a tiny HTTP server on a Unix
/// socket: requests, answers, errors and the event stream cross a real socket.
@Suite("control client over a Unix socket", .timeLimit(.minutes(5)))
struct ControlClientTransportTests {
    /// A fresh short socket path (sun_path holds 108 bytes).
    static func socketPath() -> String { "/tmp/ssctl-\(UUID().uuidString.prefix(12)).sock" }

    static let status = GatewayStatus(
        version: "0.1.0", uptimeSeconds: 12.5, stateDirectory: "/var/lib/sportsensord", storeHealthy: true,
        adapters: [AdapterInfo(name: "hci0", address: "00:1A:7D:DA:71:13", up: true)], sensorsPaired: 1,
        sensorsConnected: 1, liveSessions: 0)

    static func json<T: Encodable>(_ value: T) -> [UInt8] { Array(try! JSONEncoder.controlAPI.encode(value)) }

    @Test("GET /v1/status decodes; the request reached the socket with the path and headers")
    func status() async throws {
        let server = try UnixSocketHTTPServer(path: Self.socketPath()) { _ in
            .full(status: 200, contentType: "application/json", body: Self.json(Self.status))
        }
        defer { server.close() }
        let answer: GatewayStatus = try await ControlClient.with(.unixSocket(path: server.path)) { client in
            try await client.get(ControlRoute.status.request())
        }
        #expect(answer == Self.status)
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.target == "/v1/status")
        #expect(request.headers["accept"] == "application/json")
    }

    @Test("POST with a JSON body: snake_case keys on the wire, the answer decoded")
    func post() async throws {
        let sensor = SensorInfo(
            address: "FC:97:8B:75:10:AB", addressType: "random", alias: "anna-left", name: "BC05FC978B7510AB",
            athlete: "Anna", linkState: .connecting, lastSeen: Date(timeIntervalSince1970: 1_700_000_000),
            isVirtual: false, liveSessionId: nil)
        let server = try UnixSocketHTTPServer(path: Self.socketPath()) { _ in
            .full(status: 201, contentType: "application/json", body: Self.json(sensor))
        }
        defer { server.close() }
        let request = PairRequest(address: "FC:97:8B:75:10:AB", alias: "anna-left", athlete: "Anna")
        let answer: SensorInfo = try await ControlClient.with(.unixSocket(path: server.path)) { client in
            try await client.send(ControlRoute.pair.request(), json: request)
        }
        #expect(answer == sensor)
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.headers["content-type"] == "application/json")
        let body = String(decoding: received.body, as: UTF8.self)
        #expect(body.contains("\"address\":\"FC:97:8B:75:10:AB\"") && body.contains("\"alias\":\"anna-left\""))
        #expect(try JSONDecoder.controlAPI.decode(PairRequest.self, from: Data(received.body)) == request)
    }

    @Test("a daemon that takes the request but does not answer in time: said so, not 'cannot reach'")
    func slowAnswer() async throws {
        let answer = DispatchSemaphore(value: 0)
        let server = try UnixSocketHTTPServer(path: Self.socketPath()) { _ in
            // Holds the answer until the client has given up.
            answer.wait()
            return .hangUp
        }
        defer { server.close() }
        await #expect {
            let _: SessionInfo = try await ControlClient.with(.unixSocket(path: server.path)) { client in
                try await client.send(ControlRoute.stopSession.request("abc"), json: String?.none, timeout: 1)
            }
        } throws: { error in
            let error = error as? ClientError
            return error?.code == .connectionLost && error?.message.contains("did not answer within 1 s") == true
                && error?.fix?.contains("it may still have done it") == true
        }
        answer.signal()
    }

    @Test("an error answer becomes the daemon's message, fix and exit code")
    func errorAnswer() async throws {
        let body = ControlErrorBody(
            code: "not-found", error: "no sensor is called anna", fix: "list them with sportsensorctl sensors")
        let server = try UnixSocketHTTPServer(path: Self.socketPath()) { _ in
            .full(status: 404, contentType: "application/json", body: Self.json(body))
        }
        defer { server.close() }
        await #expect {
            try await ControlClient.with(.unixSocket(path: server.path)) { client in
                try await client.send(ControlRoute.unpair.request("anna"))
            }
        } throws: { error in
            (error as? ClientError)?.body == body && (error as? ClientError)?.exitCode == 65
        }
    }

    @Test("no socket file: cannot reach, exit 69")
    func missingSocket() async throws {
        let path = Self.socketPath()
        await #expect {
            let _: GatewayStatus = try await ControlClient.with(.unixSocket(path: path)) {
                try await $0.get(ControlRoute.status.request())
            }
        } throws: { error in
            let error = error as? ClientError
            return error?.code == .unreachable && error?.exitCode == 69
                && error?.message == "cannot reach sportsensord at \(path)"
        }
    }

    @Test("a socket file nobody listens on (a stopped daemon's leftover): refused, exit 69")
    func refused() async throws {
        let path = Self.socketPath()
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try UnixSocketHTTPServer.bind(descriptor, to: path)
        _ = Glibc.close(descriptor)
        defer { _ = Glibc.unlink(path) }
        await #expect {
            let _: GatewayStatus = try await ControlClient.with(.unixSocket(path: path)) {
                try await $0.get(ControlRoute.status.request())
            }
        } throws: { error in
            let error = error as? ClientError
            return error?.code == .unreachable && ControlClient.errno(of: error?.cause ?? error!) == ECONNREFUSED
        }
    }

    @Test("a garbled answer is a protocol error (exit 76), not a crash")
    func garbled() async throws {
        let server = try UnixSocketHTTPServer(path: Self.socketPath()) { _ in
            .full(status: 200, contentType: "application/json", body: Array("{\"version\": 3}".utf8))
        }
        defer { server.close() }
        await #expect {
            let _: GatewayStatus = try await ControlClient.with(.unixSocket(path: server.path)) {
                try await $0.get(ControlRoute.status.request())
            }
        } throws: { error in
            (error as? ClientError)?.exitCode == 76
        }
    }

    static func sseChunks() throws -> [[UInt8]] {
        let counters = SessionCounters(
            sessionId: "5f0c", sensor: "anna", athlete: nil, profile: "jump", count: 2, lastPeakG: nil, maxPeakG: nil,
            ratePerMinute: 4, bestHeightM: 0.3, cadence: nil, linkState: .connected, elapsedSeconds: 30)
        let data = String(decoding: try GatewayEvent.counters(counters).payloadJSON(), as: UTF8.self)
        let stream = Array(
            ": hello\r\n\r\nevent: counters\r\ndata: \(data)\r\n\r\nevent: future-kind\ndata: {}\n\n".utf8)
        // Cut mid-field and between the CR and LF of a line end.
        let cuts = [5, 20, stream.count - 17, stream.count - 16]
        var chunks: [[UInt8]] = []
        var start = 0
        for cut in cuts {
            chunks.append(Array(stream[start..<cut]))
            start = cut
        }
        chunks.append(Array(stream[start...]))
        return chunks
    }

    @Test("the event stream: items across chunk boundaries arrive in order; a clean end returns")
    func eventStream() async throws {
        let chunks = try Self.sseChunks()
        let server = try UnixSocketHTTPServer(path: Self.socketPath()) { _ in
            .chunked(
                status: 200, contentType: "text/event-stream", chunks: chunks, interval: .milliseconds(20),
                endsCleanly: true)
        }
        defer { server.close() }
        var received: [ServerSentEvent] = []
        try await ControlClient.with(.unixSocket(path: server.path)) { client in
            try await client.events { received.append($0) }
        }
        #expect(received.map(\.event) == ["counters", "future-kind"])
        let decoded = try GatewayEvent(kind: received[0].event, payloadJSON: Data(received[0].data.utf8))
        guard case .counters(let counters)? = decoded else {
            Issue.record("expected counters, got \(String(describing: decoded))")
            return
        }
        #expect(counters.bestHeightM == 0.3)
        #expect(server.requests.first?.target == "/v1/events")
        #expect(server.requests.first?.headers["accept"] == "text/event-stream")
    }

    @Test("the daemon going away mid-stream: connection lost, exit 69, after the items before it")
    func streamBreaksOff() async throws {
        let chunks = try Self.sseChunks()
        let server = try UnixSocketHTTPServer(path: Self.socketPath()) { _ in
            .chunked(
                status: 200, contentType: "text/event-stream", chunks: chunks, interval: .milliseconds(10),
                endsCleanly: false)
        }
        defer { server.close() }
        var received: [String] = []
        await #expect {
            try await ControlClient.with(.unixSocket(path: server.path)) { client in
                try await client.events { received.append($0.event) }
            }
        } throws: { error in
            (error as? ClientError)?.code == .connectionLost && (error as? ClientError)?.exitCode == 69
        }
        // The server resets the connection mid-stream; items it wrote just before may still be in
        // flight and the kernel discards unread data on a reset, so the client may see all, some
        // or none of them, but never anything else and never out of order.
        #expect(["counters", "future-kind"].starts(with: received))
    }

    @Test("the CLI end to end: `status --socket` to a missing socket exits 69")
    func commandExitCode() async throws {
        let command = try SportsensorCtl.parseAsRoot(["status", "--socket", Self.socketPath()])
        guard let status = command as? StatusCommand else {
            Issue.record("status did not parse as StatusCommand: \(command)")
            return
        }
        await #expect {
            try await status.run()
        } throws: { error in
            (error as? ExitCode)?.rawValue == 69
        }
    }
}
