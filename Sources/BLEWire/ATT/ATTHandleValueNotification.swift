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

extension ATTHandleValueNotification {
    /// A notification read in place: the handle, and the value as a slice of the PDU's bytes
    /// instead of a copy. The receive path reads every notification this way, so a notification
    /// costs no allocation; ``ATTHandleValueNotification/init(parsing:)`` copies.
    public struct Slice: Hashable, Sendable {
        /// The attribute handle.
        public var handle: UInt16
        /// The attribute value (possibly empty): a slice of the parsed PDU.
        public var value: ArraySlice<UInt8>

        /// Parses a whole PDU, opcode byte included, with the checks of
        /// ``ATTHandleValueNotification/init(parsing:)``: `wrongOpcode`, `truncated`.
        public init(parsing pdu: ArraySlice<UInt8>) throws(WireError) {
            let name = ATTHandleValueNotification.name
            guard let first = pdu.first else { throw WireError.truncated(name, need: 1, have: 0) }
            let opcode = ATTOpcode(rawValue: first)
            let expected = ATTHandleValueNotification.opcode
            guard opcode == expected else {
                throw WireError(.wrongOpcode, "\(name): opcode \(opcode), expected \(expected)")
            }
            guard pdu.count >= 3 else { throw WireError.truncated(name, need: 3 - pdu.count, have: pdu.count - 1) }
            let start = pdu.startIndex
            handle = UInt16(pdu[start + 1]) | UInt16(pdu[start + 2]) << 8
            value = pdu[(start + 3)...]
        }
    }
}
