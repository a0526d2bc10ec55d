// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_READ_RSP: an attribute's value, or its first ATT_MTU − 1 bytes (Core Vol 3 Part F 3.4.4.4).
public struct ATTReadResponse: ATTMessage {
    /// 0x0B.
    public static let opcode = ATTOpcode.readResponse
    /// The value (possibly empty).
    public var value: [UInt8]

    /// A response carrying `value`.
    public init(value: [UInt8]) {
        self.value = value
    }

    /// Parses a whole PDU.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        var reader = try Self.parameters(of: pdu, "ATT Read Response")
        value = Array(reader.readRest())
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
        buffer.append(contentsOf: value)
    }
}
