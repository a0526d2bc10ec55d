// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayTesting
import Testing

@Suite("Link-state names on the wire")
struct LinkStateNameTests {
    @Test("every state encodes as the string Docs/API.md gives, and decodes back")
    func wireStrings() throws {
        let expected: [LinkStateName: String] = [
            .connecting: "connecting", .connected: "connected", .noSlot: "no-slot", .lost: "lost",
            .retrying: "retrying", .gaveUp: "gave-up", .stopped: "stopped",
        ]
        #expect(Set(expected.keys) == Set(LinkStateName.allCases))
        for (state, name) in expected {
            let encoded = try JSONEncoder().encode(LinkPayload(sensor: "s", address: "a", state: state, detail: nil))
            let text = String(decoding: encoded, as: UTF8.self)
            #expect(text.contains("\"state\":\"\(name)\""), "\(text)")
            #expect(try JSONDecoder().decode(LinkPayload.self, from: encoded).state == state)
        }
    }

    /// What decoding `json` as `T` threw, if anything.
    static func failure<T: Decodable>(decoding json: String, as type: T.Type) -> (any Error)? {
        do {
            _ = try JSONDecoder.controlAPI.decode(T.self, from: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "an unknown name on the wire is a LinkStateNameError naming it, where it was and the fix, never another state",
        arguments: [
            // A state a newer daemon might add, a near miss of `no-slot`, and another case.
            ("dozing", "state"), ("no_slot", "state"), ("Connected", "state"), ("", "state"),
        ])
    func unknownName(name: String, path: String) throws {
        let json = #"{"sensor":"s","address":"a","state":"\#(name)"}"#
        let error = try #require(Self.failure(decoding: json, as: LinkPayload.self) as? LinkStateNameError)
        #expect(error.code == .unknownName)
        #expect(error.name == name)
        #expect(error.message.contains("unknown link state \"\(name)\" at \(path)"), "\(error.message)")
        #expect(error.message.contains("known: connecting, connected, no-slot"), "\(error.message)")
        #expect(error.message.contains("same version as sportsensord"), "the fix: \(error.message)")
        let cause = try #require(error.cause as? DecodingError)
        guard case .dataCorrupted(let context) = cause else {
            Issue.record("cause \(cause)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == [path])
        #expect(error.description.hasPrefix("unknown-link-state: unknown link state"), "\(error)")
    }

    @Test("each model that carries a link state refuses an unknown one at its own key")
    func everyCarrier() throws {
        let sensor = SensorInfo(
            address: "CA:FE:00:00:00:01", addressType: "le-random", alias: "court-1", name: nil, athlete: nil,
            linkState: .connected, lastSeen: nil, isVirtual: true, liveSessionId: nil)
        let sensorJSON = String(decoding: try JSONEncoder.controlAPI.encode(sensor), as: UTF8.self)
        #expect(sensorJSON.contains(#""link_state":"connected""#), "\(sensorJSON)")
        let unknownSensor = sensorJSON.replacingOccurrences(
            of: #""link_state":"connected""#, with: #""link_state":"asleep""#)
        let sensorError = Self.failure(decoding: unknownSensor, as: SensorInfo.self) as? LinkStateNameError
        #expect(sensorError?.message.contains("\"asleep\" at linkState") == true, "\(String(describing: sensorError))")
        // The SSE item the tail reads: the whole item fails, naming the state.
        let link = Data(#"{"sensor":"court-1","address":"CA:FE:00:00:00:01","state":"paused","detail":null}"#.utf8)
        #expect(throws: LinkStateNameError.self) { try GatewayEvent(kind: "link", payloadJSON: link) }
        let known = Data(#"{"sensor":"court-1","address":"CA:FE:00:00:00:01","state":"gave-up"}"#.utf8)
        guard case .link(let payload)? = try GatewayEvent(kind: "link", payloadJSON: known) else {
            Issue.record("a known state decodes")
            return
        }
        #expect(payload.state == .gaveUp)
    }

    @Test("a name carrying terminal escapes is shown escaped in the message (hex fixture of the wire bytes)")
    func escapedName() throws {
        // {"sensor":"s","address":"a","state":"\u001b[2Jx"} as sent: ESC is the JSON escape \u001b.
        let bytes = [UInt8](
            hex: """
                7b2273656e736f72223a2273222c2261646472657373223a2261222c227374617465223a22
                5c75303031625b324a78227d
                """)
        let error = try #require(
            Self.failure(decoding: String(decoding: bytes, as: UTF8.self), as: LinkPayload.self) as? LinkStateNameError)
        #expect(error.name == "\u{1B}[2Jx")
        #expect(!error.message.contains("\u{1B}"), "no raw escape reaches a terminal: \(error.message)")
    }
}
