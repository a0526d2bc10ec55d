// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_READ_BY_TYPE_RSP: handle–value pairs of equal length (Core Vol 3 Part F 3.4.4.2).
///
/// The first parameter byte is the length of each pair (2 + value length); every value in one
/// response has the same length, so a server stops at the first attribute whose value differs.
public struct ATTReadByTypeResponse: ATTMessage {
    /// 0x09.
    public static let opcode = ATTOpcode.readByTypeResponse

    /// One attribute: its handle and value.
    public struct Entry: Hashable, Sendable {
        /// The attribute handle.
        public var handle: UInt16
        /// The attribute value (for a characteristic declaration: properties, value handle, UUID).
        public var value: [UInt8]

        /// An entry for `handle` holding `value`.
        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// At least one entry; all values have the same length.
    public var entries: [Entry]

    /// A response with `entries`, whose values must all have the same length (at most 253 bytes).
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Read By Type Response")
        let length = Int(try reader.readUInt8())
        guard length >= 2 else {
            throw WireError(.invalidValue, "ATT Read By Type Response: pair length \(length) is below 2")
        }
        guard reader.count > 0, reader.count % length == 0 else {
            throw WireError(
                .wrongLength,
                "ATT Read By Type Response: \(reader.count) data bytes is not a whole number of \(length)-byte pairs")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(reader.count / length)
        while !reader.isAtEnd {
            let handle = try reader.readUInt16LE()
            entries.append(Entry(handle: handle, value: Array(try reader.readBytes(length - 2))))
        }
        self.entries = entries
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.append(UInt8(truncatingIfNeeded: 2 + (entries.first?.value.count ?? 0)))
        for entry in entries {
            buffer.appendUInt16LE(entry.handle)
            buffer.append(contentsOf: entry.value)
        }
    }
}
