// SPDX-License-Identifier: GPL-2.0-or-later

/// The datalink type in a btsnoop file header: what each record holds.
public struct BTSnoopDatalink: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 32-bit datalink code.
    public var rawValue: UInt32

    /// Wraps a datalink code.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// 1001, HCI un-encapsulated: one HCI packet per record, its kind and direction in the flags.
    public static let hciUnencapsulated = BTSnoopDatalink(rawValue: 1001)
    /// 1002, HCI UART (H4): a packet-type byte, then the packet. Android's snoop log.
    public static let hciUART = BTSnoopDatalink(rawValue: 1002)
    /// 2001, Linux monitor (`btmon -w`): flags hold controller index and monitor opcode.
    public static let linuxMonitor = BTSnoopDatalink(rawValue: 2001)

    /// The datalinks this package reads and writes.
    public static let supported: [BTSnoopDatalink] = [.hciUnencapsulated, .hciUART, .linuxMonitor]

    /// True for 1001, 1002 and 2001.
    public var isSupported: Bool { Self.supported.contains(self) }

    /// `1002 (HCI UART)`.
    public var description: String {
        switch rawValue {
        case 1001: "1001 (HCI un-encapsulated)"
        case 1002: "1002 (HCI UART/H4)"
        case 1003: "1003 (HCI BSCP)"
        case 1004: "1004 (HCI three-wire)"
        case 2001: "2001 (Linux monitor)"
        case 2002: "2002 (simulator)"
        default: "\(rawValue)"
        }
    }
}
