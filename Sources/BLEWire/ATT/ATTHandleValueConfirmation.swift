// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_HANDLE_VALUE_CFM: the client received an indication (Core Vol 3 Part F 3.4.7.3). Just the opcode.
public struct ATTHandleValueConfirmation: ATTMessage {
    /// 0x1E.
    public static let opcode = ATTOpcode.handleValueConfirmation

    /// The confirmation.
    public init() {}

    /// Parses a whole PDU: exactly one byte.
    public init(parsing pdu: some Collection<UInt8>) throws(WireError) {
        try Self.parameters(of: pdu, "ATT Handle Value Confirmation").expectEnd()
    }

    /// Appends the whole PDU.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(Self.opcode.rawValue)
    }
}
