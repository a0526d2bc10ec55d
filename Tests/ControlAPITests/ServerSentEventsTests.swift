// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import Testing

@testable import ControlAPI

/// One event of each kind.
let eventOfEachKind: [GatewayEvent] = [
    .detection(FakeGatewayControl.Fixtures.detections[0]),
    .link(FakeGatewayControl.Fixtures.link),
    .counters(FakeGatewayControl.Fixtures.counters),
    .session(FakeGatewayControl.Fixtures.session),
]

/// The kind and JSON of one SSE frame; nil when it is not `event: …\ndata: …\n\n`.
func parseFrame(_ frame: String) -> (kind: String, json: String)? {
    guard frame.hasSuffix("\n\n") else { return nil }
    let lines = frame.dropLast(2).split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count == 2, lines[0].hasPrefix("event: "), lines[1].hasPrefix("data: ") else { return nil }
    return (String(lines[0].dropFirst(7)), String(lines[1].dropFirst(6)))
}

@Suite("Server-Sent Events")
struct ServerSentEventsTests {
    @Test("a frame is event: kind, one data line of JSON, a blank line; it decodes back", arguments: eventOfEachKind)
    func frameFormat(event: GatewayEvent) throws {
        let frame = try ServerSentEvents.frame(for: event)
        let parsed = try #require(parseFrame(frame))
        #expect(parsed.kind == event.kind)
        #expect(try GatewayEvent(kind: parsed.kind, payloadJSON: Data(parsed.json.utf8)) == event)
    }

    @Test("line breaks inside strings stay escaped, so data is one line")
    func lineBreaksEscaped() throws {
        let event = GatewayEvent.link(
            LinkPayload(sensor: "a\nb", address: "FC:97:8B:75:10:AB", state: .lost, detail: "line1\r\nline2"))
        let frame = try ServerSentEvents.frame(for: event)
        let parsed = try #require(parseFrame(frame))
        #expect(try GatewayEvent(kind: parsed.kind, payloadJSON: Data(parsed.json.utf8)) == event)
    }

    @Test("over the Unix socket: every kind streams as it is emitted, then keep-alives while idle")
    func streamsEachKind() async throws {
        let control = FakeGatewayControl()
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil,
            keepAliveInterval: .milliseconds(300))
        try await ControlServerHarness.with(control, configuration: configuration) { listening in
            let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await client.sendRequest("GET", "/v1/events", headers: ["Accept: text/event-stream"])
            let head = try await client.readHead()
            #expect(head.status == 200)
            #expect(head.headers["content-type"] == "text/event-stream; charset=utf-8")
            #expect(head.headers["cache-control"] == "no-cache")
            #expect(head.headers["transfer-encoding"] == "chunked")
            #expect(control.subscriberCount == 1)
            for event in eventOfEachKind {
                control.emit(event)
                var chunk = try #require(try await client.readChunk())
                while chunk == ServerSentEvents.keepAliveFrame {
                    chunk = try #require(try await client.readChunk())
                }
                #expect(chunk == (try ServerSentEvents.frame(for: event)))
            }
            let idle = try await client.readChunk(timeout: .seconds(5))
            #expect(idle == ": keep-alive\n\n")
            client.close()
        }
        #expect(control.calls == [.events])
    }

    @Test("a client that hangs up ends the subscription")
    func disconnectEndsSubscription() async throws {
        let control = FakeGatewayControl()
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil,
            keepAliveInterval: .milliseconds(50))
        try await ControlServerHarness.with(control, configuration: configuration) { listening in
            let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await client.sendRequest("GET", "/v1/events")
            #expect(try await client.readHead().status == 200)
            control.emit(eventOfEachKind[0])
            // Keep-alives every 50 ms may come first on a busy machine.
            var chunk = try #require(try await client.readChunk())
            while chunk == ServerSentEvents.keepAliveFrame { chunk = try #require(try await client.readChunk()) }
            #expect(chunk == (try ServerSentEvents.frame(for: eventOfEachKind[0])))
            #expect(control.subscriberCount == 1)
            client.close()
            #expect(await control.waitForSubscribers(0, timeout: .seconds(10)))
            #expect(control.subscriptionsEnded == 1)
        }
    }

    @Test("the gateway ending its stream ends the response cleanly")
    func gatewayEndsStream() async throws {
        let control = FakeGatewayControl()
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil)
        try await ControlServerHarness.with(control, configuration: configuration) { listening in
            let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await client.sendRequest("GET", "/v1/events")
            #expect(try await client.readHead().status == 200)
            control.emit(eventOfEachKind[1])
            control.finishEvents()
            #expect(try await client.readChunk() == (try ServerSentEvents.frame(for: eventOfEachKind[1])))
            #expect(try await client.readChunk() == nil)
        }
    }

    @Test("graceful shutdown ends open streams, the server stops and removes its socket")
    func shutdownEndsStreams() async throws {
        let control = FakeGatewayControl()
        let path = ControlServerHarness.temporarySocketPath()
        let configuration = ControlServerConfiguration(socketPath: path, socketGroup: nil)
        let client = try await ControlServerHarness.with(control, configuration: configuration) { listening in
            let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await client.sendRequest("GET", "/v1/events")
            #expect(try await client.readHead().status == 200)
            #expect(control.subscriberCount == 1)
            return UncheckedBox(client)
        }
        // The harness returned: the server shut down although the stream was open.
        #expect(try await client.value.readChunk() == nil)
        #expect(control.subscriberCount == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

/// Carries a non-Sendable test object out of a harness closure that is done with it.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

@Suite("SSE frames are encoded once per event")
struct SSEFrameCacheTests {
    static func link(_ sensor: String) -> GatewayEvent {
        .link(LinkPayload(sensor: sensor, address: "CA:FE:00:00:00:01", state: .connected, detail: nil))
    }

    @Test("equal events share one encoding; different ones are encoded apart")
    func sharedEncoding() throws {
        let cache = SSEFrameCache(capacity: 4)
        var encoded = 0
        let encode = { (event: GatewayEvent) throws -> String in
            encoded += 1
            return try ServerSentEvents.frame(for: event)
        }
        let first = Self.link("virtual-1")
        let frames = try (0..<10).map { _ in try cache.frame(for: first, encode: encode) }
        #expect(encoded == 1)
        #expect(frames.allSatisfy { $0 == frames[0] })
        #expect(frames[0] == (try ServerSentEvents.frame(for: first)))
        let second = Self.link("virtual-2")
        #expect(try cache.frame(for: second, encode: encode) == (try ServerSentEvents.frame(for: second)))
        #expect(encoded == 2)
    }

    @Test("the oldest frames leave once the capacity is reached")
    func eviction() throws {
        let cache = SSEFrameCache(capacity: 2)
        var encoded = 0
        let encode = { (event: GatewayEvent) throws -> String in
            encoded += 1
            return try ServerSentEvents.frame(for: event)
        }
        for name in ["a", "b", "c"] { _ = try cache.frame(for: Self.link(name), encode: encode) }
        _ = try cache.frame(for: Self.link("c"), encode: encode)
        #expect(encoded == 3)
        _ = try cache.frame(for: Self.link("a"), encode: encode)
        #expect(encoded == 4)
    }
}
