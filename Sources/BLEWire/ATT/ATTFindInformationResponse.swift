// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_FIND_INFORMATION_RSP: handle–type pairs (Core Vol 3 Part F 3.4.3.2).
///
/// A format byte says whether every type in this response is a 16-bit UUID (format 1, 4 bytes
/// an entry) or a 128-bit UUID (format 2, 18 bytes an entry); the two never mix in one PDU.
public struct ATTFindInformationResponse: ATTMessage {
    /// 0x05.
    public static let opcode = ATTOpcode.findInformationResponse

    /// One attribute: its handle and type.
    public struct Entry: Hashable, Sendable {
        /// The attribute handle.
        public var handle: UInt16
        /// The attribute type.
        public var type: BluetoothUUID

        /// An entry for the attribute at `handle` of `type`.
        public init(handle: UInt16, type: BluetoothUUID) {
            self.handle = handle
            self.type = type
        }
    }

    /// At least one entry, in handle order.
    public var entries: [Entry]

    /// A response with `entries`. Encoding writes them in the width of the first entry's UUID;
    /// a server must put 16-bit and 128-bit types in separate responses (see `fitting(_:mtu:)`).
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Find Information Response")
        let format = try reader.readUInt8()
        let uuidWidth: Int
        switch format {
        case 1: uuidWidth = 2
        case 2: uuidWidth = 16
        default:
            throw WireError(.invalidValue, "ATT Find Information Response: format \(format), expected 1 or 2")
        }
        let entryLength = 2 + uuidWidth
        guard reader.count > 0, reader.count % entryLength == 0 else {
            throw WireError(
                .wrongLength,
                "ATT Find Information Response: \(reader.count) data bytes is not a whole number of "
                    + "\(entryLength)-byte entries")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(reader.count / entryLength)
        while !reader.isAtEnd {
            let handle = try reader.readUInt16LE()
            let type = try BluetoothUUID(littleEndian: try reader.readBytes(uuidWidth))
            entries.append(Entry(handle: handle, type: type))
        }
        self.entries = entries
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        let width = entries.first?.type.attWidth ?? 2
        buffer.append(Self.opcode.rawValue)
        buffer.append(width == 2 ? 1 : 2)
        for entry in entries {
            buffer.appendUInt16LE(entry.handle)
            entry.type.encode(into: &buffer, width: width)
        }
    }

    /// The longest prefix of `entries` that one response can carry within `mtu`: all of the
    /// same UUID width as the first, at most `(mtu − 2) / entry length` of them.
    public static func fitting(_ entries: some Collection<Entry>, mtu: Int) -> ATTFindInformationResponse {
        guard let first = entries.first else { return ATTFindInformationResponse(entries: []) }
        let width = first.type.attWidth
        let capacity = max(1, (mtu - 2) / (2 + width))
        let chosen = entries.prefix { $0.type.attWidth == width }.prefix(capacity)
        return ATTFindInformationResponse(entries: Array(chosen))
    }
}
