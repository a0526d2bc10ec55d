// SPDX-License-Identifier: GPL-2.0-or-later

/// The value of a characteristic declaration attribute (type 0x2803, Core Vol 3 Part G 3.3.1):
/// properties, the handle of the characteristic's value, and its UUID. 5 or 19 bytes.
///
/// A Read By Type Response to a 0x2803 request carries one of these per entry; the entry's
/// handle is the declaration's own handle.
public struct GATTCharacteristicDeclaration: Hashable, Sendable {
    /// Characteristic properties (Core Vol 3 Part G 3.3.1.1).
    public struct Properties: OptionSet, Hashable, Sendable {
        /// The property bits.
        public var rawValue: UInt8

        /// Wraps property bits.
        public init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// The value may be broadcast in advertising data.
        public static let broadcast = Properties(rawValue: 0x01)
        /// The value may be read.
        public static let read = Properties(rawValue: 0x02)
        /// The value may be written without a response.
        public static let writeWithoutResponse = Properties(rawValue: 0x04)
        /// The value may be written with a response.
        public static let write = Properties(rawValue: 0x08)
        /// The value may be notified (a CCCD follows).
        public static let notify = Properties(rawValue: 0x10)
        /// The value may be indicated (a CCCD follows).
        public static let indicate = Properties(rawValue: 0x20)
        /// Signed writes are allowed.
        public static let authenticatedSignedWrites = Properties(rawValue: 0x40)
        /// More properties are in the Extended Properties descriptor.
        public static let extendedProperties = Properties(rawValue: 0x80)
    }

    /// What the characteristic's value allows.
    public var properties: Properties
    /// The handle of the characteristic value attribute.
    public var valueHandle: UInt16
    /// The characteristic's type.
    public var uuid: BluetoothUUID

    /// A declaration of characteristic `uuid` whose value lives at `valueHandle`.
    public init(properties: Properties, valueHandle: UInt16, uuid: BluetoothUUID) {
        self.properties = properties
        self.valueHandle = valueHandle
        self.uuid = uuid
    }

    /// Parses a declaration value: 1 byte properties, 2 bytes handle, 2 or 16 bytes UUID.
    public init(parsing value: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(value, context: "GATT characteristic declaration")
        properties = Properties(rawValue: try reader.readUInt8())
        valueHandle = try reader.readUInt16LE()
        guard reader.count == 2 || reader.count == 16 else {
            throw WireError(
                .wrongLength, "GATT characteristic declaration: UUID is \(reader.count) bytes, expected 2 or 16")
        }
        uuid = try BluetoothUUID(littleEndian: reader.readRest())
    }

    /// Appends the declaration value.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(properties.rawValue)
        buffer.appendUInt16LE(valueHandle)
        uuid.encode(into: &buffer)
    }

    /// The declaration value as bytes.
    public var bytes: [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }
}
