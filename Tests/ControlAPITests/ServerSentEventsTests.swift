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
        let frame = try sseFrame(for: event)
        let parsed = try #require(parseFrame(frame))
        #expect(parsed.kind == event.kind)
        #expect(try GatewayEvent(kind: parsed.kind, payloadJSON: Data(parsed.json.utf8)) == event)
    }

    @Test("line breaks inside strings stay escaped, so data is one line")
    func lineBreaksEscaped() throws {
        let event = GatewayEvent.link(
            LinkPayload(sensor: "a\nb", address: "FC:97:8B:75:10:AB", state: .lost, detail: "line1\r\nline2"))
        let frame = try sseFrame(for: event)
        let parsed = try #require(parseFrame(frame))
        #expect(try GatewayEvent(kind: parsed.kind, payloadJSON: Data(parsed.json.utf8)) == event)
    }

    @Test("over the Unix socket: every kind streams as it is emitted, then keep-alives while idle")
    func streamsEachKind() async throws {
        let control = FakeGatewayControl()
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil,
            keepAliveInterval: .milliseconds(300))
        try await ControlServerHarness.with(control.services, configuration: configuration) { listening in
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
                #expect(chunk == (try sseFrame(for: event)))
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
        try await ControlServerHarness.with(control.services, configuration: configuration) { listening in
            let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await client.sendRequest("GET", "/v1/events")
            #expect(try await client.readHead().status == 200)
            control.emit(eventOfEachKind[0])
            // Keep-alives every 50 ms may come first on a busy machine.
            var chunk = try #require(try await client.readChunk())
            while chunk == ServerSentEvents.keepAliveFrame { chunk = try #require(try await client.readChunk()) }
            #expect(chunk == (try sseFrame(for: eventOfEachKind[0])))
            #expect(control.subscriberCount == 1)
            client.close()
            #expect(await control.waitForSubscribers(0))
            #expect(control.subscriptionsEnded == 1)
        }
    }

    @Test("the gateway ending its stream ends the response cleanly")
    func gatewayEndsStream() async throws {
        let control = FakeGatewayControl()
        let configuration = ControlServerConfiguration(
            socketPath: ControlServerHarness.temporarySocketPath(), socketGroup: nil)
        try await ControlServerHarness.with(control.services, configuration: configuration) { listening in
            let client = try RawHTTPClient.connect(unixSocket: listening.socketPath)
            try await client.sendRequest("GET", "/v1/events")
            #expect(try await client.readHead().status == 200)
            control.emit(eventOfEachKind[1])
            control.finishEvents()
            #expect(try await client.readChunk() == (try sseFrame(for: eventOfEachKind[1])))
            #expect(try await client.readChunk() == nil)
        }
    }

    @Test("graceful shutdown ends open streams, the server stops and removes its socket")
    func shutdownEndsStreams() async throws {
        let control = FakeGatewayControl()
        let path = ControlServerHarness.temporarySocketPath()
        let configuration = ControlServerConfiguration(socketPath: path, socketGroup: nil)
        let client = try await ControlServerHarness.with(control.services, configuration: configuration) { listening in
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

@Suite("SSE frames come from the payload encoded once, when the event is published")
struct PublishedEventFrameTests {
    @Test("the published payload is the event's JSON; the frame carries it as it is")
    func encodedOnPublish() throws {
        let event = GatewayEvent.link(
            LinkPayload(sensor: "virtual-1", address: "CA:FE:00:00:00:01", state: .connected, detail: nil))
        let published = PublishedEvent(event)
        let json = String(decoding: try event.payloadJSON(), as: UTF8.self)
        #expect(published.payloadJSON == json)
        #expect(published.encodingFailure == nil)
        #expect(ServerSentEvents.frame(kind: "link", json: json) == "event: link\ndata: \(json)\n\n")
    }

    @Test("a payload JSON cannot carry is published without JSON and with the reason")
    func unencodable() {
        let counters = SessionCounters(
            sessionId: "s", sensor: "virtual-1", athlete: nil, profile: "jumps", count: 1, lastPeakG: .nan,
            maxPeakG: nil, ratePerMinute: 0, bestHeightM: nil, cadence: nil, linkState: .connected,
            elapsedSeconds: 1)
        let published = PublishedEvent(.counters(counters))
        #expect(published.payloadJSON == nil)
        #expect(published.encodingFailure != nil)
    }
}

/// The frame the stream sends for `event`: its published payload in the SSE frame.
func sseFrame(for event: GatewayEvent) throws -> String {
    let published = PublishedEvent(event)
    let json = try #require(published.payloadJSON, "\(published.encodingFailure ?? "")")
    return ServerSentEvents.frame(kind: event.kind, json: json)
}
