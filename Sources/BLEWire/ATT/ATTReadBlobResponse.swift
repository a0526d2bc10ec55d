// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_READ_BLOB_RSP: part of a long value (Core Vol 3 Part F 3.4.4.6).
public struct ATTReadBlobResponse: ATTMessage {
    /// 0x0D.
    public static let opcode = ATTOpcode.readBlobResponse
    /// The bytes from the requested offset, at most ATT_MTU − 1 of them.
    public var partValue: [UInt8]

    /// A response carrying `partValue`.
    public init(partValue: [UInt8]) {
        self.partValue = partValue
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Read Blob Response")
        partValue = Array(reader.readRest())
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.append(contentsOf: partValue)
    }
}
