// SPDX-License-Identifier: GPL-2.0-or-later

/// ATT_WRITE_REQ: write a value and wait for ATT_WRITE_RSP (Core Vol 3 Part F 3.4.5.1).
///
/// GATT writes a CCCD with it: `0x0001` enables notifications, `0x0002` indications.
public struct ATTWriteRequest: ATTHandleValueMessage {
    /// 0x12.
    public static let opcode = ATTOpcode.writeRequest
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
    public static let name = "ATT Write Request"
}
