// SPDX-License-Identifier: GPL-2.0-or-later

/// Device Found (0x0012): the kernel saw a device during a discovery (anyone's: the event goes to
/// every trusted mgmt socket). For LE, the EIR data is the advertising data, followed by the scan
/// response's when the kernel merged the two.
public struct MgmtDeviceFoundEvent: MgmtEvent {
    /// Device Found.
    public static let code = MgmtEventCode.deviceFound

    /// The flag bits of a report.
    public struct Flags: OptionSet, Hashable, Sendable {
        /// The bit set.
        public var rawValue: UInt32
        /// Wraps a bit set.
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// The kernel asks whether user space knows the name (BR/EDR; bit 0).
        public static let confirmName = Flags(rawValue: 1 << 0)
        /// Legacy pairing is likely (BR/EDR; bit 1).
        public static let legacyPairing = Flags(rawValue: 1 << 1)
        /// The device does not accept connections (bit 2).
        public static let notConnectable = Flags(rawValue: 1 << 2)
        /// The name request failed (BR/EDR; bit 4).
        public static let nameRequestFailed = Flags(rawValue: 1 << 4)
        /// The data is a scan response on its own (bit 5).
        public static let scanResponse = Flags(rawValue: 1 << 5)
    }

    /// The device; its kind is public or random as reported.
    public var address: BluetoothAddress
    /// BR/EDR, LE public or LE random.
    public var addressType: MgmtDeviceAddressType
    /// Received signal strength in dBm; nil when the kernel reported 127 (not available).
    public var rssi: Int8?
    /// The report's flags.
    public var flags: Flags
    /// Extended inquiry response data; for LE, advertising data structures.
    public var eir: [UInt8]

    /// Creates the event.
    public init(
        address: BluetoothAddress, addressType: MgmtDeviceAddressType, rssi: Int8?, flags: Flags = [], eir: [UInt8]
    ) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.flags = flags
        self.eir = eir
    }

    /// Parses the parameters; the EIR length must match the bytes that follow.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "mgmt Device Found")
        let octets = try reader.readBytes(6)
        addressType = try MgmtDeviceAddressType.read(&reader)
        address = BluetoothAddress(octets: octets.reversed(), kind: addressType.kind)!
        let rssi = Int8(bitPattern: try reader.readUInt8())
        self.rssi = rssi == 127 ? nil : rssi
        flags = Flags(rawValue: try reader.readUInt32LE())
        let length = Int(try reader.readUInt16LE())
        eir = Array(try reader.readBytes(length))
        try reader.expectEnd()
    }

    /// Appends the parameters.
    public func encodeParameters(into buffer: inout [UInt8]) {
        address.encode(into: &buffer)
        buffer.append(addressType.rawValue)
        buffer.append(UInt8(bitPattern: rssi ?? 127))
        buffer.appendUInt32LE(flags.rawValue)
        let data = eir.prefix(Int(UInt16.max) - 14)
        buffer.appendUInt16LE(UInt16(data.count))
        buffer.append(contentsOf: data)
    }
}

/// Discovering (0x0013): a discovery of these types started or stopped on the controller,
/// whichever program asked for it.
public struct MgmtDiscoveringEvent: MgmtEvent {
    /// Discovering.
    public static let code = MgmtEventCode.discovering

    /// The types of the discovery.
    public var addressTypes: MgmtAddressTypes
    /// Whether it is running now.
    public var isDiscovering: Bool

    /// Creates the event.
    public init(addressTypes: MgmtAddressTypes, isDiscovering: Bool) {
        self.addressTypes = addressTypes
        self.isDiscovering = isDiscovering
    }

    /// Parses the two parameter bytes.
    public init(parameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(parameters, context: "mgmt Discovering")
        addressTypes = MgmtAddressTypes(rawValue: try reader.readUInt8())
        let value = try reader.readUInt8()
        guard value <= 1 else { throw WireError(.invalidValue, "mgmt Discovering: state \(value), expected 0 or 1") }
        isDiscovering = value == 1
        try reader.expectEnd()
    }

    /// Appends the two parameter bytes.
    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(addressTypes.rawValue)
        buffer.append(isDiscovering ? 1 : 0)
    }
}
