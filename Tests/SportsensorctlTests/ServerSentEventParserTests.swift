import ControlProtocol
// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Testing

@testable import sportsensorctl

@Suite("Server-Sent Events parser")
struct ServerSentEventParserTests {
    static let stream =
        ": keep-alive\n"
        + "event: counters\ndata: {\"a\":1}\n\n"
        + "event: detection\r\ndata: first\r\ndata: second\r\n\r\n"
        + "data: no name\r\rid: 7\ndata:x\n\n"

    static let expected = [
        ServerSentEvent(event: "counters", data: "{\"a\":1}", id: nil),
        ServerSentEvent(event: "detection", data: "first\nsecond", id: nil),
        ServerSentEvent(event: "message", data: "no name", id: nil),
        ServerSentEvent(event: "message", data: "x", id: "7"),
    ]

    @Test("a whole stream: comments skipped, multi-line data joined, LF, CRLF and CR line ends, default name")
    func wholeStream() {
        var parser = ServerSentEventParser()
        #expect(parser.push(Array(Self.stream.utf8)) == Self.expected)
    }

    @Test("every split of the stream into two chunks gives the same items (CR and LF of a CRLF apart too)")
    func everySplit() {
        let bytes = Array(Self.stream.utf8)
        for split in 0...bytes.count {
            var parser = ServerSentEventParser()
            let events = parser.push(bytes[..<split]) + parser.push(bytes[split...])
            #expect(events == Self.expected, "split at \(split)")
        }
    }

    @Test("byte by byte gives the same items")
    func byteByByte() {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for byte in Self.stream.utf8 { events += parser.push([byte]) }
        #expect(events == Self.expected)
    }

    @Test("an item is dispatched only at its blank line; an item cut off by the end of the stream is dropped")
    func dispatchAtBlankLine() {
        var parser = ServerSentEventParser()
        #expect(parser.push(Array("event: link\ndata: {}\n".utf8)).isEmpty)
        #expect(parser.push(Array("\n".utf8)) == [ServerSentEvent(event: "link", data: "{}", id: nil)])
        #expect(parser.push(Array("event: link\ndata: {\"cut".utf8)).isEmpty)
        parser.finish()
        #expect(parser.push(Array("\n\n".utf8)).isEmpty, "the cut item must not come back after finish")
    }

    @Test("items without data, unknown fields, a leading BOM and a value without its space")
    func edgeCases() {
        var parser = ServerSentEventParser()
        let text = "\u{FEFF}event: ping\n\nretry: 10\nfoo: bar\nevent:session\ndata:{}\n\n"
        #expect(parser.push(Array(text.utf8)) == [ServerSentEvent(event: "session", data: "{}", id: nil)])
    }

    @Test("an overlong line is dropped, not buffered without bound")
    func overlongLine() {
        var parser = ServerSentEventParser()
        let long =
            Array("data: ".utf8)
            + Array(repeating: UInt8(ascii: "x"), count: ServerSentEventParser.maximumLineLength + 10)
        #expect(parser.push(long + Array("\n\n".utf8)).isEmpty)
        #expect(parser.push(Array("data: ok\n\n".utf8)) == [ServerSentEvent(event: "message", data: "ok", id: nil)])
    }

    @Test("parsed items decode as GatewayEvents; kinds this version does not know are skipped")
    func decodesGatewayEvents() throws {
        let counters = SessionCounters(
            sessionId: "5f0c", sensor: "anna-left", athlete: "Anna", profile: "table-tennis", count: 12,
            lastPeakG: 1.5, maxPeakG: 1.99, ratePerMinute: 24, bestHeightM: nil, cadence: nil, linkState: .connected,
            elapsedSeconds: 30)
        let json = String(decoding: try GatewayEvent.counters(counters).payloadJSON(), as: UTF8.self)
        var parser = ServerSentEventParser()
        let items = parser.push(Array("event: counters\ndata: \(json)\n\nevent: weather\ndata: {}\n\n".utf8))
        #expect(items.count == 2)
        let decoded = try items.compactMap { try GatewayEvent(kind: $0.event, payloadJSON: Data($0.data.utf8)) }
        #expect(decoded == [.counters(counters)])
    }
}
