// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_READ_BLOB_REQ: read part of a long value from an offset (Core Vol 3 Part F 3.4.4.5).
/// Always 5 bytes.
public struct ATTReadBlobRequest: ATTMessage {
    /// 0x0C.
    public static let opcode = ATTOpcode.readBlobRequest
    /// The attribute to read.
    public var handle: UInt16
    /// The first byte of the value to return.
    public var offset: UInt16

    /// A request to read `handle` from `offset`.
    public init(handle: UInt16, offset: UInt16) {
        self.handle = handle
        self.offset = offset
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Read Blob Request")
        handle = try reader.readUInt16LE()
        offset = try reader.readUInt16LE()
        try reader.expectEnd()
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.appendUInt16LE(handle)
        buffer.appendUInt16LE(offset)
    }
}
