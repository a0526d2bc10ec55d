// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_WRITE_RSP: a Write Request succeeded (Core Vol 3 Part F 3.4.5.2). Just the opcode.
public struct ATTWriteResponse: ATTMessage {
    /// 0x13.
    public static let opcode = ATTOpcode.writeResponse

    /// The response.
    public init() {}

    /// Parses a whole PDU: exactly one byte.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        try Self.parameters(of: pdu, "ATT Write Response").expectEnd()
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
    }
}
