// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@Suite("Advertising data")
struct AdvertisingDataTests {
    static let service = BluetoothUUID(string: "A2C70010-8F31-11E3-B148-0002A5D5C51B")!

    /// What an SDU sensor sends: flags, its 128-bit service, then (in the scan response) its name.
    static let sensorAdvertisement = [UInt8](
        hex: """
            020106
            1107 1bc5d5a50200 48b1 e311 318f 1000c7a2
            1109 42433035464339373842373531304142
            """)

    @Test("an SDU sensor advertisement decodes to flags, service and name, and re-encodes byte for byte")
    func sensor() throws {
        let ad = try AdvertisingData(parsing: Self.sensorAdvertisement)
        #expect(
            ad.structures == [
                .flags(0x06), .serviceUUIDs128(complete: true, [Self.service]),
                .localName(complete: true, bytes: Array("BC05FC978B7510AB".utf8)),
            ])
        #expect(ad.localName == "BC05FC978B7510AB")
        #expect(ad.serviceUUIDs == [Self.service])
        #expect(ad.flags == 0x06)
        #expect(ad.txPower == nil)
        #expect(ad.manufacturerData == nil)
        var out: [UInt8] = []
        ad.encode(into: &out)
        #expect(out == Self.sensorAdvertisement)
    }

    @Test(
        "every typed AD type decodes and round-trips",
        arguments: [
            ("020105", ADStructure.flags(0x05)),
            ("050209180f18", .serviceUUIDs16(complete: false, [BluetoothUUID(0x1809), BluetoothUUID(0x180F)])),
            ("03030d18", .serviceUUIDs16(complete: true, [BluetoothUUID(0x180D)])),
            ("050478563412", .serviceUUIDs32(complete: false, [BluetoothUUID(uuid32: 0x1234_5678)])),
            ("0505efbeadde", .serviceUUIDs32(complete: true, [BluetoothUUID(uuid32: 0xDEAD_BEEF)])),
            ("11061bc5d5a5020048b1e311318f1000c7a2", .serviceUUIDs128(complete: false, [service])),
            ("050842433035", .localName(complete: false, bytes: Array("BC05".utf8))),
            ("0a0942616e6443697a6572", .localName(complete: true, bytes: Array("BandCizer".utf8))),
            ("020af4", .txPowerLevel(-12)),
            ("06ff5900aabbcc", .manufacturerData(companyID: 0x0059, data: [0xAA, 0xBB, 0xCC])),
            ("03ff5900", .manufacturerData(companyID: 0x0059, data: [])),
            ("03191234", .other(type: 0x19, data: [0x12, 0x34])),
            ("0116", .other(type: 0x16, data: [])),
        ])
    func typed(hex: String, expected: ADStructure) throws {
        let bytes = [UInt8](hex: hex)
        #expect(try ADStructure(parsing: bytes) == expected)
        #expect(try AdvertisingData(parsing: bytes).structures == [expected])
        var out: [UInt8] = []
        expected.encode(into: &out)
        #expect(out == bytes)
    }

    @Test("accessors: complete name preferred, UUIDs of all widths, TX power, manufacturer data")
    func accessors() throws {
        let ad = try AdvertisingData(
            parsing: [UInt8](
                hex: "0508 42433035  0a09 42616e6443697a6572  03030d18  0505efbeadde  020a04  05ff5900 0102"))
        #expect(ad.localName == "BandCizer")
        #expect(ad.serviceUUIDs == [BluetoothUUID(0x180D), BluetoothUUID(uuid32: 0xDEAD_BEEF)])
        #expect(ad.txPower == 4)
        #expect(ad.manufacturerData?.companyID == 0x0059)
        #expect(ad.manufacturerData?.data == [0x01, 0x02])
        let shortOnly = try AdvertisingData(parsing: [UInt8](hex: "050842433035"))
        #expect(shortOnly.localName == "BC05")
    }

    @Test("invalid UTF-8 in a name does not trap and keeps its bytes")
    func invalidUTF8() throws {
        let bytes = [UInt8](hex: "0509 42 ff fe 43")
        let ad = try AdvertisingData(parsing: bytes)
        #expect(ad.localName == "B\u{FFFD}\u{FFFD}C")
        var out: [UInt8] = []
        ad.encode(into: &out)
        #expect(out == bytes)
    }

    @Test("a zero length ends the significant part; the padding after it is ignored")
    func padding() throws {
        let ad = try AdvertisingData(parsing: [UInt8](hex: "020106 00 0000ff ffff"))
        #expect(ad.structures == [.flags(0x06)])
        #expect(try AdvertisingData(parsing: []).structures.isEmpty)
        #expect(try AdvertisingData(parsing: [0, 0, 0]).structures.isEmpty)
    }

    @Test("a length running past the end is truncated")
    func truncated() {
        #expect(wireErrorCode { _ = try AdvertisingData(parsing: [UInt8](hex: "020106 1107 1bc5d5")) } == .truncated)
        #expect(wireErrorCode { _ = try AdvertisingData(parsing: [UInt8](hex: "0201")) } == .truncated)
        #expect(wireErrorCode { _ = try ADStructure(parsing: [UInt8](hex: "0309 41")) } == .wrongLength)
        #expect(wireErrorCode { _ = try ADStructure(parsing: []) } == .truncated)
    }

    @Test(
        "data that does not fit its type is wrongLength",
        arguments: [
            "0101", "03010600", "0403010203", "0305aabb", "1007" + String(repeating: "00", count: 15), "010a",
            "030a0102", "02ff59",
        ])
    func wrongLength(hex: String) {
        #expect(wireErrorCode { _ = try AdvertisingData(parsing: [UInt8](hex: hex)) } == .wrongLength)
    }
}
