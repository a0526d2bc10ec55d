// SPDX-License-Identifier: GPL-2.0-or-later

/// The return parameters of Read Controller Index List (0x0003): the controllers the kernel
/// knows, by index.
public struct MgmtIndexList: Hashable, Sendable {
    /// The controllers' indices.
    public var indices: [UInt16]

    /// Creates a list.
    public init(indices: [UInt16]) { self.indices = indices }

    /// Parses the return parameters; the count must match the indices that follow.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "mgmt Read Controller Index List reply")
        let count = Int(try reader.readUInt16LE())
        guard reader.count == count * 2 else {
            throw WireError(
                .wrongLength, "\(reader.context): \(count) index(es) need \(count * 2) bytes, have \(reader.count)")
        }
        var indices: [UInt16] = []
        for _ in 0..<count { indices.append(try reader.readUInt16LE()) }
        self.indices = indices
    }

    /// Appends the return parameters.
    public func encode(into buffer: inout [UInt8]) {
        buffer.appendUInt16LE(UInt16(clamping: indices.count))
        for index in indices.prefix(Int(UInt16.max)) { buffer.appendUInt16LE(index) }
    }
}

/// Controller settings, as Read Controller Information and New Settings report them.
public struct MgmtSettings: OptionSet, Hashable, Sendable {
    /// The bit set.
    public var rawValue: UInt32
    /// Wraps a bit set.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Powered (bit 0).
    public static let powered = MgmtSettings(rawValue: 1 << 0)
    /// Connectable (bit 1).
    public static let connectable = MgmtSettings(rawValue: 1 << 1)
    /// Discoverable (bit 3).
    public static let discoverable = MgmtSettings(rawValue: 1 << 3)
    /// BR/EDR (bit 7).
    public static let bredr = MgmtSettings(rawValue: 1 << 7)
    /// Low Energy (bit 9).
    public static let lowEnergy = MgmtSettings(rawValue: 1 << 9)
    /// Advertising (bit 10).
    public static let advertising = MgmtSettings(rawValue: 1 << 10)
}

/// The return parameters of Read Controller Information (0x0004).
public struct MgmtControllerInfo: Hashable, Sendable {
    /// The controller's public address (zero for an LE-only controller without one).
    public var address: BluetoothAddress
    /// The Bluetooth version it implements (HCI version number: 6 is 4.0, 9 is 5.0).
    public var bluetoothVersion: UInt8
    /// The company identifier of its manufacturer.
    public var manufacturer: UInt16
    /// What it can do.
    public var supportedSettings: MgmtSettings
    /// What is on now.
    public var currentSettings: MgmtSettings
    /// The class of device, three bytes little-endian.
    public var classOfDevice: UInt32
    /// The local name (at most 248 bytes of UTF-8).
    public var name: String
    /// The short name (at most 10 bytes).
    public var shortName: String

    static let nameLength = 249
    static let shortNameLength = 11

    /// Creates the information.
    public init(
        address: BluetoothAddress, bluetoothVersion: UInt8, manufacturer: UInt16, supportedSettings: MgmtSettings,
        currentSettings: MgmtSettings, classOfDevice: UInt32 = 0, name: String = "", shortName: String = ""
    ) {
        self.address = address
        self.bluetoothVersion = bluetoothVersion
        self.manufacturer = manufacturer
        self.supportedSettings = supportedSettings
        self.currentSettings = currentSettings
        self.classOfDevice = classOfDevice
        self.name = name
        self.shortName = shortName
    }

    /// Parses the 280 bytes of return parameters.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "mgmt Read Controller Information reply")
        address = try BluetoothAddress(littleEndian: &reader)
        bluetoothVersion = try reader.readUInt8()
        manufacturer = try reader.readUInt16LE()
        supportedSettings = MgmtSettings(rawValue: try reader.readUInt32LE())
        currentSettings = MgmtSettings(rawValue: try reader.readUInt32LE())
        classOfDevice = try reader.readUInt24LE()
        name = Self.string(try reader.readBytes(Self.nameLength))
        shortName = Self.string(try reader.readBytes(Self.shortNameLength))
        try reader.expectEnd()
    }

    /// Appends the 280 bytes of return parameters (names cut to fit, NUL-padded).
    public func encode(into buffer: inout [UInt8]) {
        address.encode(into: &buffer)
        buffer.append(bluetoothVersion)
        buffer.appendUInt16LE(manufacturer)
        buffer.appendUInt32LE(supportedSettings.rawValue)
        buffer.appendUInt32LE(currentSettings.rawValue)
        buffer.append(UInt8(truncatingIfNeeded: classOfDevice))
        buffer.appendUInt16LE(UInt16(truncatingIfNeeded: classOfDevice >> 8))
        Self.append(name, length: Self.nameLength, to: &buffer)
        Self.append(shortName, length: Self.shortNameLength, to: &buffer)
    }

    private static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func append(_ string: String, length: Int, to buffer: inout [UInt8]) {
        let bytes = Array(string.utf8.prefix(length - 1))
        buffer.append(contentsOf: bytes)
        buffer.append(contentsOf: [UInt8](repeating: 0, count: length - bytes.count))
    }
}
