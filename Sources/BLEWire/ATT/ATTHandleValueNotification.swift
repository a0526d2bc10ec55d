// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_HANDLE_VALUE_NTF: the server pushes a value, unacknowledged (Core Vol 3 Part F 3.4.7.1).
///
/// The SDU sensor streams its accelerometer samples this way, at most ATT_MTU − 3 value bytes each.
public struct ATTHandleValueNotification: ATTHandleValueMessage {
    /// 0x1B.
    public static let opcode = ATTOpcode.handleValueNotification
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
    public static let name = "ATT Handle Value Notification"
}
