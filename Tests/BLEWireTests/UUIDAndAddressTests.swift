// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@Suite("Bluetooth UUIDs")
struct BluetoothUUIDTests {
    @Test("16-bit UUIDs print short and expand onto the base UUID")
    func shortForm() {
        let cccd = BluetoothUUID(0x2902)
        #expect(cccd.description == "2902")
        #expect(cccd.longDescription == "00002902-0000-1000-8000-00805F9B34FB")
        #expect(cccd.uuid16 == 0x2902)
        #expect(BluetoothUUID(string: "00002902-0000-1000-8000-00805f9b34fb") == cccd)
        #expect(BluetoothUUID(string: "0x2902") == cccd)
    }

    @Test("32-bit UUIDs")
    func uuid32() throws {
        let u = BluetoothUUID(uuid32: 0x1234_5678)
        #expect(u.uuid16 == nil)
        #expect(u.uuid32 == 0x1234_5678)
        #expect(BluetoothUUID(string: "12345678") == u)
        var wire: [UInt8] = []
        u.encode(into: &wire, width: 4)
        #expect(wire == [0x78, 0x56, 0x34, 0x12])
        #expect(try BluetoothUUID(littleEndian: wire) == u)
    }

    @Test("128-bit vendor UUIDs round-trip through the little-endian wire form")
    func vendor() throws {
        let s = "A2C70031-8F31-11E3-B148-0002A5D5C51B"
        let u = try #require(BluetoothUUID(string: s))
        #expect(u.description == s)
        #expect(u.uuid16 == nil && u.uuid32 == nil)
        var wire: [UInt8] = []
        u.encode(into: &wire)
        #expect(wire == [UInt8](hex: "1bc5d5a50200 48b1 e311 318f 3100c7a2"))
        #expect(try BluetoothUUID(littleEndian: wire) == u)
    }

    @Test(
        "malformed strings and wire lengths are rejected",
        arguments: ["", "29", "2902x", "123", "A2C70031-8F3111E3-B148-0002A5D5C51B", "zz02"])
    func rejects(_ text: String) {
        #expect(BluetoothUUID(string: text) == nil)
    }

    @Test("wrong wire length throws wrongLength")
    func wrongWireLength() {
        #expect(throws: WireError.self) { try BluetoothUUID(littleEndian: [1, 2, 3]) }
        do {
            _ = try BluetoothUUID(littleEndian: [1, 2, 3])
        } catch {
            #expect(error.code == .wrongLength)
        }
    }
}

@Suite("Bluetooth addresses")
struct BluetoothAddressTests {
    @Test("parse and print")
    func parsePrint() throws {
        let a = try #require(BluetoothAddress(string: "bc:05:fc:97:8b:75"))
        #expect(a.description == "BC:05:FC:97:8B:75")
        #expect(BluetoothAddress(string: "BC-05-FC-97-8B-75") == a)
        for bad in ["", "BC:05:FC:97:8B", "BC:05:FC:97:8B:7", "BC:05:FC:97:8B:ZZ", "BC:05:FC:97:8B:75:00"] {
            #expect(BluetoothAddress(string: bad) == nil)
        }
    }

    @Test("wire form is little-endian")
    func wire() throws {
        let a = try #require(BluetoothAddress(string: "00:AA:01:01:00:01"))
        var bytes: [UInt8] = []
        a.encode(into: &bytes)
        #expect(bytes == [0x01, 0x00, 0x01, 0x01, 0xAA, 0x00])
        var reader = WireReader(bytes, context: "address")
        #expect(try BluetoothAddress(littleEndian: &reader) == a)
        var short = WireReader(bytes.prefix(5), context: "address")
        #expect(throws: WireError.self) { try BluetoothAddress(littleEndian: &short) }
    }

    @Test("random subtypes come from the top two bits")
    func randomSubtypes() throws {
        #expect(BluetoothAddress(string: "C0:00:00:00:00:01", kind: .random)?.randomSubtype == .staticAddress)
        #expect(BluetoothAddress(string: "40:00:00:00:00:01", kind: .random)?.randomSubtype == .resolvablePrivate)
        #expect(BluetoothAddress(string: "00:00:00:00:00:01", kind: .random)?.randomSubtype == .nonResolvablePrivate)
        #expect(BluetoothAddress(string: "C0:00:00:00:00:01")?.randomSubtype == nil)
    }
}
