// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

/// Little-endian wire form of the SDU service UUID A2C70010-8F31-11E3-B148-0002A5D5C51B.
private let sduServiceLE = "1bc5d5a5020048b1e311318f1000c7a2"
/// Little-endian wire form of the accelerometer UUID A2C70031-8F31-11E3-B148-0002A5D5C51B.
private let sduAccelerometerLE = "1bc5d5a5020048b1e311318f3100c7a2"

/// One PDU as it appears on the wire, with what it must parse to.
struct ATTFixture: CustomTestStringConvertible, Sendable {
    var name: String
    var hex: String
    var pdu: ATTPDU
    /// True when the PDU has a fixed length, so one extra byte must be rejected.
    var fixedLength: Bool

    var testDescription: String { name }
    var bytes: [UInt8] { [UInt8](hex: hex) }
}

let attFixtures: [ATTFixture] = [
    ATTFixture(
        name: "Error Response", hex: "01 0a 0300 02",
        pdu: .errorResponse(ATTErrorResponse(requestOpcode: .readRequest, handle: 3, error: .readNotPermitted)),
        fixedLength: true),
    ATTFixture(
        name: "Exchange MTU Request", hex: "02 f700", pdu: .exchangeMTURequest(ATTExchangeMTURequest(clientRxMTU: 247)),
        fixedLength: true),
    ATTFixture(
        name: "Exchange MTU Response", hex: "03 1700",
        pdu: .exchangeMTUResponse(ATTExchangeMTUResponse(serverRxMTU: 23)), fixedLength: true),
    ATTFixture(
        name: "Find Information Request", hex: "04 0d00 ffff",
        pdu: .findInformationRequest(ATTFindInformationRequest(range: ATTHandleRange(start: 0x0D, end: 0xFFFF))),
        fixedLength: true),
    ATTFixture(
        name: "Find Information Response (16-bit)", hex: "05 01 0e00 0229 0f00 0129",
        pdu: .findInformationResponse(
            ATTFindInformationResponse(entries: [
                .init(handle: 0x0E, type: BluetoothUUID(0x2902)), .init(handle: 0x0F, type: BluetoothUUID(0x2901)),
            ])), fixedLength: false),
    ATTFixture(
        name: "Find Information Response (128-bit)", hex: "05 02 0d00 " + sduAccelerometerLE,
        pdu: .findInformationResponse(
            ATTFindInformationResponse(entries: [.init(handle: 0x0D, type: SDU.accelerometer)])), fixedLength: false),
    ATTFixture(
        name: "Find By Type Value Request", hex: "06 0100 ffff 0028 " + sduServiceLE,
        pdu: .findByTypeValueRequest(
            ATTFindByTypeValueRequest(
                range: .all, attributeType: 0x2800, value: [UInt8](hex: sduServiceLE))), fixedLength: false),
    ATTFixture(
        name: "Find By Type Value Response", hex: "07 0b00 0e00",
        pdu: .findByTypeValueResponse(ATTFindByTypeValueResponse(groups: [ATTHandleRange(start: 0x0B, end: 0x0E)])),
        fixedLength: false),
    ATTFixture(
        name: "Read By Type Request (16-bit)", hex: "08 0b00 0e00 0328",
        pdu: .readByTypeRequest(
            ATTReadByTypeRequest(range: ATTHandleRange(start: 0x0B, end: 0x0E), attributeType: .characteristic)),
        fixedLength: true),
    ATTFixture(
        name: "Read By Type Request (128-bit)", hex: "08 0100 ffff " + sduAccelerometerLE,
        pdu: .readByTypeRequest(ATTReadByTypeRequest(range: .all, attributeType: SDU.accelerometer)),
        fixedLength: true),
    ATTFixture(
        name: "Read By Type Response", hex: "09 15 0c00 10 0d00 " + sduAccelerometerLE,
        pdu: .readByTypeResponse(
            ATTReadByTypeResponse(entries: [
                .init(handle: 0x0C, value: [UInt8](hex: "10 0d00 " + sduAccelerometerLE))
            ])), fixedLength: false),
    ATTFixture(
        name: "Read Request", hex: "0a 0300", pdu: .readRequest(ATTReadRequest(handle: 3)), fixedLength: true),
    ATTFixture(
        name: "Read Response", hex: "0b 42433035", pdu: .readResponse(ATTReadResponse(value: Array("BC05".utf8))),
        fixedLength: false),
    ATTFixture(
        name: "Read Response (empty value)", hex: "0b", pdu: .readResponse(ATTReadResponse(value: [])),
        fixedLength: false),
    ATTFixture(
        name: "Read Blob Request", hex: "0c 0300 1600",
        pdu: .readBlobRequest(ATTReadBlobRequest(handle: 3, offset: 22)), fixedLength: true),
    ATTFixture(
        name: "Read Blob Response", hex: "0d 3130",
        pdu: .readBlobResponse(ATTReadBlobResponse(partValue: [0x31, 0x30])),
        fixedLength: false),
    ATTFixture(
        name: "Read By Group Type Request", hex: "10 0100 ffff 0028",
        pdu: .readByGroupTypeRequest(ATTReadByGroupTypeRequest(range: .all, groupType: .primaryService)),
        fixedLength: true),
    ATTFixture(
        name: "Read By Group Type Response (16-bit)", hex: "11 06 0100 0700 0018 0800 0b00 0118",
        pdu: .readByGroupTypeResponse(
            ATTReadByGroupTypeResponse(entries: [
                .init(range: ATTHandleRange(start: 1, end: 7), value: [0x00, 0x18]),
                .init(range: ATTHandleRange(start: 8, end: 0x0B), value: [0x01, 0x18]),
            ])), fixedLength: false),
    ATTFixture(
        name: "Read By Group Type Response (128-bit)", hex: "11 14 0b00 ffff " + sduServiceLE,
        pdu: .readByGroupTypeResponse(
            ATTReadByGroupTypeResponse(entries: [
                .init(range: ATTHandleRange(start: 0x0B, end: 0xFFFF), value: [UInt8](hex: sduServiceLE))
            ])), fixedLength: false),
    ATTFixture(
        name: "Write Request (CCCD on)", hex: "12 0e00 0100",
        pdu: .writeRequest(ATTWriteRequest(handle: 0x0E, value: [0x01, 0x00])), fixedLength: false),
    ATTFixture(name: "Write Response", hex: "13", pdu: .writeResponse(ATTWriteResponse()), fixedLength: true),
    ATTFixture(
        name: "Write Command", hex: "52 0e00 0000", pdu: .writeCommand(ATTWriteCommand(handle: 0x0E, value: [0, 0])),
        fixedLength: false),
    ATTFixture(
        name: "Handle Value Notification (SDU, 3 samples)",
        hex: "1b 0d00 3412 0000 0000 0040 1000 f0ff 0040 ff7f 0080 0000",
        pdu: .handleValueNotification(
            ATTHandleValueNotification(
                handle: 0x0D, value: [UInt8](hex: "3412 0000 0000 0040 1000 f0ff 0040 ff7f 0080 0000"))),
        fixedLength: false),
    ATTFixture(
        name: "Handle Value Indication", hex: "1d 0300 0100ffff",
        pdu: .handleValueIndication(ATTHandleValueIndication(handle: 3, value: [0x01, 0x00, 0xFF, 0xFF])),
        fixedLength: false),
    ATTFixture(
        name: "Handle Value Confirmation", hex: "1e", pdu: .handleValueConfirmation(ATTHandleValueConfirmation()),
        fixedLength: true),
    ATTFixture(
        name: "Prepare Write Request (not modelled)", hex: "16 0300 0000 41",
        pdu: .unsupported(opcode: .prepareWriteRequest, parameters: [0x03, 0x00, 0x00, 0x00, 0x41]),
        fixedLength: false),
    ATTFixture(
        name: "Signed Write Command (not modelled)", hex: "d2 0300 00",
        pdu: .unsupported(opcode: .signedWriteCommand, parameters: [0x03, 0x00, 0x00]), fixedLength: false),
]

private enum SDU {
    static let accelerometer = BluetoothUUID(string: "A2C70031-8F31-11E3-B148-0002A5D5C51B")!
}

@Suite("ATT PDUs")
struct ATTPDUTests {
    @Test("each fixture parses to its PDU and encodes back to the same bytes", arguments: attFixtures)
    func roundTrip(fixture: ATTFixture) throws {
        let parsed = try ATTPDU(parsing: fixture.bytes)
        #expect(parsed == fixture.pdu)
        #expect(parsed.opcode.rawValue == fixture.bytes[0])
        #expect(fixture.pdu.bytes == fixture.bytes)
        if let message = parsed.message {
            #expect(message.bytes == fixture.bytes)
            #expect(type(of: message).opcode == parsed.opcode)
        }
    }

    @Test("a fixture cut short is rejected, never trapped on", arguments: attFixtures)
    func truncated(fixture: ATTFixture) {
        let bytes = fixture.bytes
        // Every prefix must either parse to something else or throw a WireError; the prefixes a
        // structure cannot accept must throw.
        for length in 0..<bytes.count {
            let prefix = Array(bytes.prefix(length))
            do {
                let parsed = try ATTPDU(parsing: prefix)
                #expect(parsed != fixture.pdu, "prefix of \(length) bytes parsed to the full PDU")
            } catch {
                #expect([.truncated, .wrongLength, .invalidValue].contains(error.code), "\(error)")
            }
        }
        if fixture.fixedLength && bytes.count > 1 {
            #expect(throws: WireError.self) { try ATTPDU(parsing: bytes.dropLast()) }
        }
    }

    @Test(
        "a fixed-length PDU with a trailing byte is a wrong-length error", arguments: attFixtures.filter(\.fixedLength))
    func trailingByte(fixture: ATTFixture) {
        #expect {
            try ATTPDU(parsing: fixture.bytes + [0x00])
        } throws: { error in
            (error as? WireError)?.code == .wrongLength
        }
    }

    @Test("a message type rejects another message's opcode")
    func wrongOpcode() {
        let notification = [UInt8](hex: "1b 0d00 0102")
        #expect(
            throws: WireError(
                .wrongOpcode,
                "ATT Handle Value Indication: opcode Handle Value Notification (0x1B), expected Handle Value Indication (0x1D)"
            )
        ) {
            try ATTHandleValueIndication(parsing: notification)
        }
        #expect { try ATTReadRequest(parsing: [0x0B, 0x03, 0x00]) } throws: { ($0 as? WireError)?.code == .wrongOpcode }
        #expect { try ATTErrorResponse(parsing: [0x13]) } throws: { ($0 as? WireError)?.code == .wrongOpcode }
    }

    @Test("an opcode the specification does not define is a wrong-opcode error")
    func undefinedOpcode() {
        for opcode: UInt8 in [0x00, 0x14, 0x30, 0x7F, 0xFF] {
            #expect { try ATTPDU(parsing: [opcode, 0x01]) } throws: { ($0 as? WireError)?.code == .wrongOpcode }
        }
        #expect { try ATTPDU(parsing: []) } throws: { ($0 as? WireError)?.code == .truncated }
    }

    @Test("a notification read in place has the copying parse's handle, value and errors")
    func notificationSlice() throws {
        // The SDU fixture inside a larger buffer, as the bearer's receive buffer holds it.
        let pdu = [UInt8](hex: "1b 0d00 3412 0000 0000 0040 1000 f0ff 0040 ff7f 0080 0000")
        let buffer = [0xEE, 0xEE] + pdu + [0xEE]
        let slice = try ATTHandleValueNotification.Slice(parsing: buffer[2..<(2 + pdu.count)])
        let copied = try ATTHandleValueNotification(parsing: pdu)
        #expect(slice.handle == 0x0D)
        #expect(Array(slice.value) == copied.value)
        #expect(try ATTHandleValueNotification.Slice(parsing: [0x1B, 0x2A, 0x00][...]).value.isEmpty)
        for length in 0..<3 {
            let expected: WireError
            do {
                _ = try ATTHandleValueNotification(parsing: pdu.prefix(length))
                Issue.record("a \(length)-byte prefix parsed")
                continue
            } catch {
                expected = error
            }
            #expect(throws: expected) { try ATTHandleValueNotification.Slice(parsing: pdu.prefix(length)) }
        }
        #expect {
            try ATTHandleValueNotification.Slice(parsing: [0x1D, 0x03, 0x00][...])
        } throws: { ($0 as? WireError)?.code == .wrongOpcode }
    }

    @Test("list responses reject data that is not a whole number of entries")
    func wrongLengthLists() {
        let cases: [String] = [
            "05 01 0e00 02",  // 16-bit format with a 3-byte entry
            "05 02 0d00 0229",  // 128-bit format with a 16-bit UUID
            "05 01",  // no entries at all
            "07 0b00 0e",  // 3-byte group
            "09 04 0c00 01 0d00",  // 3 bytes left after one 4-byte pair
            "09 15",  // length, but no entries
            "11 06 0100 0700 0018 0800",  // second entry cut short
            "08 0100 ffff 030428",  // 3-byte attribute type
            "10 0100 ffff 00",  // 1-byte group type
        ]
        for hex in cases {
            #expect(throws: WireError.self, "\(hex)") { try ATTPDU(parsing: [UInt8](hex: hex)) }
            do {
                _ = try ATTPDU(parsing: [UInt8](hex: hex))
            } catch {
                #expect(error.code == .wrongLength || error.code == .truncated, "\(hex): \(error)")
            }
        }
    }

    @Test("fields outside their domain are invalid values")
    func invalidValues() {
        for hex in ["02 1600", "03 0000", "05 03 0e00 0229", "09 01 0c00", "11 03 0100 07"] {
            #expect { try ATTPDU(parsing: [UInt8](hex: hex)) } throws: { ($0 as? WireError)?.code == .invalidValue }
        }
    }

    @Test("opcode classification: requests, responses, commands")
    func classification() {
        #expect(ATTOpcode.readRequest.isRequest && !ATTOpcode.readRequest.isCommand)
        #expect(ATTOpcode.readResponse.isResponse && !ATTOpcode.readResponse.isRequest)
        #expect(ATTOpcode.writeCommand.isCommand && !ATTOpcode.writeCommand.isRequest)
        #expect(ATTOpcode.signedWriteCommand.isCommand)
        #expect(!ATTOpcode.handleValueNotification.isRequest && !ATTOpcode.handleValueNotification.isResponse)
        #expect(ATTOpcode.errorResponse.description == "Error Response (0x01)")
        #expect(ATTOpcode(rawValue: 0x30).description == "0x30")
        #expect(ATTErrorCode.requestNotSupported.description == "Request Not Supported")
    }

    @Test("Find Information responses never mix UUID widths and respect the MTU")
    func findInformationFitting() {
        let entries: [ATTFindInformationResponse.Entry] = [
            .init(handle: 1, type: BluetoothUUID(0x2800)), .init(handle: 2, type: BluetoothUUID(0x2803)),
            .init(handle: 3, type: SDU.accelerometer), .init(handle: 4, type: BluetoothUUID(0x2902)),
        ]
        let first = ATTFindInformationResponse.fitting(entries, mtu: 23)
        #expect(first.entries.map(\.handle) == [1, 2])
        let small = ATTFindInformationResponse.fitting(entries, mtu: 7)
        #expect(small.entries.map(\.handle) == [1])
        let long = ATTFindInformationResponse.fitting(entries.dropFirst(2), mtu: 23)
        #expect(long.entries.map(\.handle) == [3])
        #expect(long.bytes.count == 2 + 18)
    }

    @Test("handle ranges")
    func handleRanges() {
        #expect(ATTHandleRange.all.isValid)
        #expect(!ATTHandleRange(start: 0, end: 5).isValid)
        #expect(!ATTHandleRange(start: 6, end: 5).isValid)
        #expect(ATTHandleRange(start: 3, end: 5).contains(5) && !ATTHandleRange(start: 3, end: 5).contains(6))
        #expect(ATTHandleRange(start: 1, end: 0xFFFF).description == "0x0001-0xFFFF")
    }

    @Test("characteristic declaration values")
    func characteristicDeclaration() throws {
        let bytes = [UInt8](hex: "10 0d00 " + sduAccelerometerLE)
        let declaration = try GATTCharacteristicDeclaration(parsing: bytes)
        #expect(declaration.properties == .notify)
        #expect(declaration.valueHandle == 0x0D)
        #expect(declaration.uuid == SDU.accelerometer)
        #expect(declaration.bytes == bytes)
        let short = try GATTCharacteristicDeclaration(parsing: [UInt8](hex: "0a 0300 002a"))
        #expect(short.properties == [.read, .write])
        #expect(short.uuid == .deviceName)
        #expect { try GATTCharacteristicDeclaration(parsing: [UInt8](hex: "02 0300 00")) } throws: {
            ($0 as? WireError)?.code == .wrongLength
        }
        #expect { try GATTCharacteristicDeclaration(parsing: [UInt8](hex: "02 03")) } throws: {
            ($0 as? WireError)?.code == .truncated
        }
    }
}
