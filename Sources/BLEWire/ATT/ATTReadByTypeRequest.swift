// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_READ_BY_TYPE_REQ: read every attribute of a type in a range (Core Vol 3 Part F 3.4.4.1).
/// GATT uses it with type 0x2803 to discover a service's characteristics. 7 or 21 bytes.
public struct ATTReadByTypeRequest: ATTMessage {
    /// 0x08.
    public static let opcode = ATTOpcode.readByTypeRequest
    /// The handles to search.
    public var range: ATTHandleRange
    /// The attribute type, 16- or 128-bit on the wire.
    public var attributeType: BluetoothUUID

    /// A request for attributes of `attributeType` in `range`.
    public init(range: ATTHandleRange, attributeType: BluetoothUUID) {
        self.range = range
        self.attributeType = attributeType
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Read By Type Request")
        range = try ATTHandleRange(reading: &reader)
        guard reader.count == 2 || reader.count == 16 else {
            throw WireError(.wrongLength, "ATT Read By Type Request: type is \(reader.count) bytes, expected 2 or 16")
        }
        attributeType = try BluetoothUUID(littleEndian: reader.readRest())
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        range.encode(into: &buffer)
        attributeType.encode(into: &buffer)
    }
}
