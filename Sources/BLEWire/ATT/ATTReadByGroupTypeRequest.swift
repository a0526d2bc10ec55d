// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_READ_BY_GROUP_TYPE_REQ: read grouping attributes of a type (Core Vol 3 Part F 3.4.4.9).
/// GATT uses it with type 0x2800 to discover all primary services. 7 or 21 bytes.
public struct ATTReadByGroupTypeRequest: ATTMessage {
    /// 0x10.
    public static let opcode = ATTOpcode.readByGroupTypeRequest
    /// The handles to search.
    public var range: ATTHandleRange
    /// The grouping type (0x2800 primary service or 0x2801 secondary service).
    public var groupType: BluetoothUUID

    /// A request for groups of `groupType` in `range`.
    public init(range: ATTHandleRange, groupType: BluetoothUUID) {
        self.range = range
        self.groupType = groupType
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Read By Group Type Request")
        range = try ATTHandleRange(reading: &reader)
        guard reader.count == 2 || reader.count == 16 else {
            throw WireError(
                .wrongLength, "ATT Read By Group Type Request: type is \(reader.count) bytes, expected 2 or 16")
        }
        groupType = try BluetoothUUID(littleEndian: reader.readRest())
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        range.encode(into: &buffer)
        groupType.encode(into: &buffer)
    }
}
