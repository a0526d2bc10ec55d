// SPDX-License-Identifier: GPL-2.0-or-later

/// Start Discovery (0x0023): the kernel scans for devices of the given types and sends a Device
/// Found event for each, until Stop Discovery (an LE-only discovery also ends by itself after
/// about ten seconds, announced by a Discovering event). Its reply returns the address types.
public struct MgmtStartDiscoveryCommand: MgmtCommand {
    /// Start Discovery.
    public static let code = MgmtCommandCode.startDiscovery

    /// What to look for; ``MgmtAddressTypes/le`` for LE devices.
    public var addressTypes: MgmtAddressTypes

    /// Creates the command.
    public init(addressTypes: MgmtAddressTypes = .le) {
        self.addressTypes = addressTypes
    }

    /// Parses the one parameter byte.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "Start Discovery")
        addressTypes = MgmtAddressTypes(rawValue: try reader.readUInt8())
        try reader.expectEnd()
    }

    /// Appends the one parameter byte.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(addressTypes.rawValue)
    }
}

/// Stop Discovery (0x0024): ends the discovery this socket's program started; the address types
/// must be those it was started with. Its reply returns the address types.
public struct MgmtStopDiscoveryCommand: MgmtCommand {
    /// Stop Discovery.
    public static let code = MgmtCommandCode.stopDiscovery

    /// The types the discovery was started with.
    public var addressTypes: MgmtAddressTypes

    /// Creates the command.
    public init(addressTypes: MgmtAddressTypes = .le) {
        self.addressTypes = addressTypes
    }

    /// Parses the one parameter byte.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "Stop Discovery")
        addressTypes = MgmtAddressTypes(rawValue: try reader.readUInt8())
        try reader.expectEnd()
    }

    /// Appends the one parameter byte.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(addressTypes.rawValue)
    }
}

/// Start Service Discovery (0x003A): a discovery that reports only devices at or above an RSSI
/// threshold (127: all) advertising one of the UUIDs (none: all).
public struct MgmtStartServiceDiscoveryCommand: MgmtCommand {
    /// Start Service Discovery.
    public static let code = MgmtCommandCode.startServiceDiscovery

    /// What to look for.
    public var addressTypes: MgmtAddressTypes
    /// Weaker devices are not reported; 127 reports every device.
    public var rssiThreshold: Int8
    /// A device is reported when it advertises any of these; empty reports every device.
    public var uuids: [BluetoothUUID]

    /// Creates the command.
    public init(addressTypes: MgmtAddressTypes = .le, rssiThreshold: Int8 = 127, uuids: [BluetoothUUID] = []) {
        self.addressTypes = addressTypes
        self.rssiThreshold = rssiThreshold
        self.uuids = uuids
    }

    /// Parses the parameters; the UUID count must match the bytes that follow.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "Start Service Discovery")
        addressTypes = MgmtAddressTypes(rawValue: try reader.readUInt8())
        rssiThreshold = Int8(bitPattern: try reader.readUInt8())
        let count = Int(try reader.readUInt16LE())
        guard reader.count == count * 16 else {
            throw WireError(
                .wrongLength, "Start Service Discovery: \(count) UUID(s) need \(count * 16) bytes, have \(reader.count)"
            )
        }
        var uuids: [BluetoothUUID] = []
        for _ in 0..<count { uuids.append(try BluetoothUUID(littleEndian: try reader.readBytes(16))) }
        self.uuids = uuids
    }

    /// Appends the parameters, each UUID as 16 bytes little-endian.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(addressTypes.rawValue)
        buffer.append(UInt8(bitPattern: rssiThreshold))
        buffer.appendUInt16LE(UInt16(clamping: uuids.count))
        for uuid in uuids.prefix(Int(UInt16.max)) { uuid.encode(into: &buffer, width: 16) }
    }
}
