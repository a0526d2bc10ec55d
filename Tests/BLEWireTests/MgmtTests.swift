// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@Suite("mgmt packets")
struct MgmtTests {
    static let sensor = BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random)!
    static let service = BluetoothUUID(string: "A2C70010-8F31-11E3-B148-0002A5D5C51B")!

    /// Start Discovery for LE on hci0: code 0x0023, index 0, one parameter byte 0x06.
    static let startDiscovery = [UInt8](hex: "2300 0000 0100 06")

    @Test("Start and Stop Discovery: LE on hci0")
    func discoveryCommands() throws {
        var out: [UInt8] = []
        MgmtStartDiscoveryCommand(addressTypes: .le).encode(index: MgmtControllerIndex(rawValue: 0), into: &out)
        #expect(out == Self.startDiscovery)
        let parsed = try MgmtStartDiscoveryCommand(parsing: Self.startDiscovery)
        #expect(parsed.addressTypes == .le && parsed.addressTypes.includesLE)
        let stop = [UInt8](hex: "2400 0100 0100 06")
        #expect(MgmtStopDiscoveryCommand().packet(index: MgmtControllerIndex(rawValue: 1)).bytes == stop)
        #expect(try MgmtStopDiscoveryCommand(parsing: stop).addressTypes == .le)
        #expect(wireErrorCode { _ = try MgmtStopDiscoveryCommand(parsing: Self.startDiscovery) } == .wrongOpcode)
        // The length field disagrees with the bytes present.
        #expect(wireErrorCode { _ = try MgmtCommandPacket(parsing: [UInt8](hex: "2300 0000 0200 06")) } == .truncated)
        #expect(wireErrorCode { _ = try MgmtCommandPacket(parsing: Self.startDiscovery + [0]) } == .wrongLength)
        #expect(
            wireErrorCode { _ = try MgmtStartDiscoveryCommand(parsing: [UInt8](hex: "2300 0000 0000")) } == .truncated)
        #expect(
            wireErrorCode { _ = try MgmtStartDiscoveryCommand(parsing: [UInt8](hex: "2300 0000 0200 0600")) }
                == .wrongLength)
    }

    /// Start Service Discovery on hci1, LE, all RSSI, the SDU service UUID.
    static let serviceDiscovery = [UInt8](
        hex: "3a00 0100 1400 06 7f 0100 1bc5d5a50200 48b1 e311 318f 1000c7a2")

    @Test("Start Service Discovery: threshold and UUIDs")
    func serviceDiscovery() throws {
        let command = MgmtStartServiceDiscoveryCommand(addressTypes: .le, rssiThreshold: 127, uuids: [Self.service])
        #expect(command.packet(index: MgmtControllerIndex(rawValue: 1)).bytes == Self.serviceDiscovery)
        #expect(try MgmtStartServiceDiscoveryCommand(parsing: Self.serviceDiscovery) == command)
        var twoUUIDs = Self.serviceDiscovery
        twoUUIDs[8] = 2
        #expect(wireErrorCode { _ = try MgmtStartServiceDiscoveryCommand(parsing: twoUUIDs) } == .wrongLength)
    }

    @Test("Command Complete and Command Status: opcode, status, return parameters")
    func commandResults() throws {
        // Start Discovery on hci0 refused with Busy, returning the address types.
        let busy = [UInt8](hex: "0100 0000 0400 2300 0a 06")
        let complete = try MgmtCommandCompleteEvent(parsing: busy)
        #expect(complete.command == .startDiscovery && complete.status == .busy)
        #expect(complete.returnParameters == [0x06])
        #expect("\(complete.status)" == "Busy (0x0A)")
        var out: [UInt8] = []
        complete.encode(index: MgmtControllerIndex(rawValue: 0), into: &out)
        #expect(out == busy)
        let packet = try MgmtEventPacket(parsing: busy)
        #expect(packet.code == .commandComplete && packet.index == MgmtControllerIndex(rawValue: 0))
        // Start Discovery for an index that does not exist.
        let invalid = [UInt8](hex: "0200 0700 0300 2300 11")
        let status = try MgmtCommandStatusEvent(parsing: invalid)
        #expect(status.command == .startDiscovery && status.status == .invalidIndex)
        #expect(status.packet(index: MgmtControllerIndex(rawValue: 7)) == (try MgmtEventPacket(parsing: invalid)))
        #expect(wireErrorCode { _ = try MgmtCommandStatusEvent(parsing: busy) } == .wrongOpcode)
        #expect(
            wireErrorCode { _ = try MgmtCommandStatusEvent(parsing: [UInt8](hex: "0200 0000 0200 2300")) } == .truncated
        )
        #expect(MgmtStatus(rawValue: 0x40).name == nil)
    }

    /// Device Found on hci0: the sensor (random address), -58 dBm, connectable, its
    /// advertisement (flags, SDU service) merged with its scan response (name).
    static let deviceFound = [UInt8](
        hex: """
            1200 0000 3500
            ab10758b97fc 02 c6 00000000 2700
            020106 1107 1bc5d5a50200 48b1 e311 318f 1000c7a2
            1109 42433035464339373842373531304142
            """)

    @Test("Device Found: address, type, RSSI, flags and advertising data")
    func deviceFound() throws {
        let event = try MgmtDeviceFoundEvent(parsing: Self.deviceFound)
        #expect(event.address == Self.sensor && event.address.kind == .random)
        #expect(event.addressType == .leRandom)
        #expect(event.rssi == -58)
        #expect(event.flags.isEmpty)
        let data = try AdvertisingData(parsing: event.eir)
        #expect(data.serviceUUIDs == [Self.service])
        #expect(data.localName == "BC05FC978B7510AB")
        var out: [UInt8] = []
        event.encode(index: MgmtControllerIndex(rawValue: 0), into: &out)
        #expect(out == Self.deviceFound)

        // RSSI 127 is "not available"; flags: not connectable, scan response.
        var other = Self.deviceFound
        other[12] = 0x01
        other[13] = 0x7F
        other[14] = 0x24
        let unknown = try MgmtDeviceFoundEvent(parsing: other)
        #expect(unknown.rssi == nil && unknown.address.kind == .public && unknown.addressType == .lePublic)
        #expect(unknown.flags == [.notConnectable, .scanResponse])
    }

    @Test("Device Found: truncated, wrong EIR length, bad address type")
    func deviceFoundErrors() {
        var cut = Array(Self.deviceFound.prefix(30))
        cut[4] = UInt8(cut.count - 6)
        #expect(wireErrorCode { _ = try MgmtDeviceFoundEvent(parsing: cut) } == .truncated)
        var longer = Self.deviceFound + [0]
        longer[4] += 1
        #expect(wireErrorCode { _ = try MgmtDeviceFoundEvent(parsing: longer) } == .wrongLength)
        var badType = Self.deviceFound
        badType[12] = 3
        #expect(wireErrorCode { _ = try MgmtDeviceFoundEvent(parsing: badType) } == .invalidValue)
        #expect(
            wireErrorCode { _ = try MgmtDeviceFoundEvent(parsing: [UInt8](hex: "1300 0000 0200 0601")) } == .wrongOpcode
        )
    }

    @Test("Discovering: LE discovery started and stopped")
    func discovering() throws {
        let started = [UInt8](hex: "1300 0000 0200 06 01")
        let event = try MgmtDiscoveringEvent(parsing: started)
        #expect(event.addressTypes == .le && event.isDiscovering)
        #expect(event.packet(index: MgmtControllerIndex(rawValue: 0)) == (try MgmtEventPacket(parsing: started)))
        #expect(try MgmtDiscoveringEvent(parsing: [UInt8](hex: "1300 0000 0200 07 00")).isDiscovering == false)
        #expect(
            wireErrorCode { _ = try MgmtDiscoveringEvent(parsing: [UInt8](hex: "1300 0000 0200 06 02")) }
                == .invalidValue)
    }

    @Test("Index Added and Removed carry only the index")
    func indexEvents() throws {
        let added = try MgmtEventPacket(parsing: [UInt8](hex: "0400 0200 0000"))
        #expect(
            added.code == .indexAdded && added.index == MgmtControllerIndex(rawValue: 2) && added.parameters.isEmpty)
        let removed = try MgmtEventPacket(parsing: [UInt8](hex: "0500 0200 0000"))
        #expect(removed.code == .indexRemoved && "\(removed.index)" == "hci2")
        #expect("\(MgmtControllerIndex.none)" == "none")
    }

    @Test("Read Controller Index List and Read Controller Information replies")
    func controllerReplies() throws {
        let list = [UInt8](hex: "0200 0000 0100")
        #expect(try MgmtIndexList(parsing: list).indices == [0, 1])
        var out: [UInt8] = []
        MgmtIndexList(indices: [0, 1]).encode(into: &out)
        #expect(out == list)
        #expect(wireErrorCode { _ = try MgmtIndexList(parsing: [UInt8](hex: "0300 0000 0100")) } == .wrongLength)

        // hci0 of btvirt: public address 00:AA:01:00:00:23, version 9 (5.0), manufacturer 0x05F1,
        // powered LE controller.
        let infoHead = [UInt8](hex: "230000 01aa00 09 f105 ff0e0000 01020000 000000")
        let info =
            infoHead + Array("BlueZ".utf8) + [UInt8](repeating: 0, count: 249 - 5) + [UInt8](repeating: 0, count: 11)
        let parsed = try MgmtControllerInfo(parsing: info)
        #expect(parsed.address == BluetoothAddress(string: "00:AA:01:00:00:23")!)
        #expect(parsed.bluetoothVersion == 9 && parsed.manufacturer == 0x05F1)
        #expect(parsed.currentSettings.contains(.powered) && parsed.currentSettings.contains(.lowEnergy))
        #expect(!parsed.currentSettings.contains(.bredr))
        #expect(parsed.name == "BlueZ" && parsed.shortName.isEmpty)
        var encoded: [UInt8] = []
        parsed.encode(into: &encoded)
        #expect(encoded == info)
        #expect(wireErrorCode { _ = try MgmtControllerInfo(parsing: info.dropLast()) } == .truncated)
    }
}
