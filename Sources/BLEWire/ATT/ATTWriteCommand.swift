// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_WRITE_CMD: write a value without a response (Core Vol 3 Part F 3.4.5.3).
///
/// The server answers nothing, not even an error; unsupported commands are ignored.
public struct ATTWriteCommand: ATTHandleValueMessage {
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

    /// Names the message in parse errors.
    public static let name = "ATT Write Command"
}
