// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_READ_BY_GROUP_TYPE_RSP: handle, group end handle and value for each group (Core Vol 3
/// Part F 3.4.4.10). The first parameter byte is each entry's length (4 + value length).
public struct ATTReadByGroupTypeResponse: ATTMessage {
    /// 0x11.
    public static let opcode = ATTOpcode.readByGroupTypeResponse

    /// One group: its handle range and the grouping attribute's value (the service UUID).
    public struct Entry: Hashable, Sendable {
        /// The group's first and last handle.
        public var range: ATTHandleRange
        /// The grouping attribute's value.
        public var value: [UInt8]

        /// An entry for the group in `range` with `value`.
        public init(range: ATTHandleRange, value: [UInt8]) {
            self.range = range
            self.value = value
        }
    }

    /// At least one entry; all values have the same length.
    public var entries: [Entry]

    /// A response with `entries`, whose values must all have the same length.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Read By Group Type Response")
        let length = Int(try reader.readUInt8())
        guard length >= 4 else {
            throw WireError(.invalidValue, "ATT Read By Group Type Response: entry length \(length) is below 4")
        }
        guard reader.count > 0, reader.count % length == 0 else {
            throw WireError(
                .wrongLength,
                "ATT Read By Group Type Response: \(reader.count) data bytes is not a whole number of "
                    + "\(length)-byte entries")
        }
        var entries: [Entry] = []
        while !reader.isAtEnd {
            let range = try ATTHandleRange(reading: &reader)
            entries.append(Entry(range: range, value: Array(try reader.readBytes(length - 4))))
        }
        self.entries = entries
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.append(UInt8(truncatingIfNeeded: 4 + (entries.first?.value.count ?? 0)))
        for entry in entries {
            entry.range.encode(into: &buffer)
            buffer.append(contentsOf: entry.value)
        }
    }
}
