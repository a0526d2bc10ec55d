// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
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

    @Test("an unknown name is refused, not read as another state")
    func unknownName() {
        let json = Data(#"{"sensor":"s","address":"a","state":"dozing"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LinkPayload.self, from: json) }
    }
}
