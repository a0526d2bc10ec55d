// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_FIND_BY_TYPE_VALUE_REQ: find attributes of a 16-bit type with a given value (Core Vol 3
/// Part F 3.4.3.3). GATT uses it to discover a primary service by its UUID: type 0x2800 and the
/// service UUID as the value.
public struct ATTFindByTypeValueRequest: ATTMessage {
    /// 0x06.
    public static let opcode = ATTOpcode.findByTypeValueRequest
    /// The handles to search.
    public var range: ATTHandleRange
    /// The attribute type, always a 16-bit UUID in this request.
    public var attributeType: UInt16
    /// The value to match, compared byte for byte.
    public var value: [UInt8]

    /// A search in `range` for attributes of `attributeType` whose value is `value`.
    public init(range: ATTHandleRange, attributeType: UInt16, value: [UInt8]) {
        self.range = range
        self.attributeType = attributeType
        self.value = value
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Find By Type Value Request")
        range = try ATTHandleRange(reading: &reader)
        attributeType = try reader.readUInt16LE()
        value = Array(reader.readRest())
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        range.encode(into: &buffer)
        buffer.appendUInt16LE(attributeType)
        buffer.append(contentsOf: value)
    }
}
