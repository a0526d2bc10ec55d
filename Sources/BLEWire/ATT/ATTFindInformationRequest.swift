// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_FIND_INFORMATION_REQ: list handles and types in a range (Core Vol 3 Part F 3.4.3.1).
/// GATT uses it to discover a characteristic's descriptors, such as the CCCD. Always 5 bytes.
public struct ATTFindInformationRequest: ATTMessage {
    /// 0x04.
    public static let opcode = ATTOpcode.findInformationRequest
    /// The handles to list.
    public var range: ATTHandleRange

    /// A request for the attributes in `range`.
    public init(range: ATTHandleRange) {
        self.range = range
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Find Information Request")
        range = try ATTHandleRange(reading: &reader)
        try reader.expectEnd()
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        range.encode(into: &buffer)
    }
}
