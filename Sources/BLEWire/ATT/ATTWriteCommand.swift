// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_WRITE_CMD: write a value without a response (Core Vol 3 Part F 3.4.5.3).
///
/// The server answers nothing, not even an error; unsupported commands are ignored.
public struct ATTWriteCommand: ATTMessage {
    /// 0x52.
    public static let opcode = ATTOpcode.writeCommand
    /// The attribute handle.
    public var handle: UInt16
    /// The attribute value (possibly empty).
    public var value: [UInt8]

    /// A PDU for `handle` carrying `value`.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Write Command")
        (handle, value) = try reader.readHandleAndValue()
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.appendUInt16LE(handle)
        buffer.append(contentsOf: value)
    }
}
