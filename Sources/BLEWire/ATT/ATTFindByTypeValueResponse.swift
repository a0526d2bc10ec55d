// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_FIND_BY_TYPE_VALUE_RSP: the handle ranges of the matching groups (Core Vol 3 Part F
/// 3.4.3.4), four bytes each: found attribute handle, group end handle.
public struct ATTFindByTypeValueResponse: ATTMessage {
    /// 0x07.
    public static let opcode = ATTOpcode.findByTypeValueResponse
    /// At least one group: `start` is the found attribute, `end` the last handle of its group.
    public var groups: [ATTHandleRange]

    /// A response listing `groups`.
    public init(groups: [ATTHandleRange]) {
        self.groups = groups
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Find By Type Value Response")
        guard reader.count > 0, reader.count % 4 == 0 else {
            throw WireError(
                .wrongLength,
                "ATT Find By Type Value Response: \(reader.count) bytes is not a whole number of 4-byte groups")
        }
        var groups: [ATTHandleRange] = []
        while !reader.isAtEnd { groups.append(try ATTHandleRange(reading: &reader)) }
        self.groups = groups
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        for group in groups { group.encode(into: &buffer) }
    }
}
