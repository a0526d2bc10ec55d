// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_HANDLE_VALUE_IND: the server pushes a value and waits for ATT_HANDLE_VALUE_CFM (Core Vol 3 Part F 3.4.7.2).
///
/// Until the client confirms, the server sends no further indication, so a client must always confirm.
public struct ATTHandleValueIndication: ATTHandleValueMessage {
    /// 0x1D.
    public static let opcode = ATTOpcode.handleValueIndication
    /// The attribute handle.
    public var handle: UInt16
    /// The attribute value (possibly empty).
    public var value: [UInt8]

    /// A PDU for `handle` carrying `value`.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }

    /// Names the message in parse errors.
    public static let name = "ATT Handle Value Indication"
}
