// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_READ_REQ: read one attribute's value (Core Vol 3 Part F 3.4.4.3). Always 3 bytes.
public struct ATTReadRequest: ATTMessage {
    /// 0x0A.
    public static let opcode = ATTOpcode.readRequest
    /// The attribute to read.
    public var handle: UInt16

    /// A request to read `handle`.
    public init(handle: UInt16) {
        self.handle = handle
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Read Request")
        handle = try reader.readUInt16LE()
        try reader.expectEnd()
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.appendUInt16LE(handle)
    }
}
