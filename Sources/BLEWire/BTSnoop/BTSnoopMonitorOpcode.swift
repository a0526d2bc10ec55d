// SPDX-License-Identifier: GPL-2.0-or-later

/// The opcode in the low 16 bits of a Linux-monitor (datalink 2001) record's flags; the high 16
/// bits are the controller index. Values from BlueZ `src/shared/btsnoop.h` and the btsnoop(7)
/// manual page ("BTSnoop/Monitor protocol documentation").
public struct BTSnoopMonitorOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit opcode.
    public var rawValue: UInt16

    /// Wraps an opcode.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// A controller index appeared (type, bus, address, name).
    public static let newIndex = BTSnoopMonitorOpcode(rawValue: 0)
    /// A controller index went away.
    public static let deleteIndex = BTSnoopMonitorOpcode(rawValue: 1)
    /// HCI command packet (host to controller).
    public static let commandPacket = BTSnoopMonitorOpcode(rawValue: 2)
    /// HCI event packet (controller to host).
    public static let eventPacket = BTSnoopMonitorOpcode(rawValue: 3)
    /// Outgoing ACL data.
    public static let aclTX = BTSnoopMonitorOpcode(rawValue: 4)
    /// Incoming ACL data.
    public static let aclRX = BTSnoopMonitorOpcode(rawValue: 5)
    /// Outgoing SCO data.
    public static let scoTX = BTSnoopMonitorOpcode(rawValue: 6)
    /// Incoming SCO data.
    public static let scoRX = BTSnoopMonitorOpcode(rawValue: 7)
    /// The HCI transport of a controller was opened.
    public static let openIndex = BTSnoopMonitorOpcode(rawValue: 8)
    /// The HCI transport of a controller was closed.
    public static let closeIndex = BTSnoopMonitorOpcode(rawValue: 9)
    /// Index information (address, manufacturer).
    public static let indexInfo = BTSnoopMonitorOpcode(rawValue: 10)
    /// Vendor diagnostic data.
    public static let vendorDiagnostic = BTSnoopMonitorOpcode(rawValue: 11)
    /// A system note (text).
    public static let systemNote = BTSnoopMonitorOpcode(rawValue: 12)
    /// User logging (priority, ident, message).
    public static let userLogging = BTSnoopMonitorOpcode(rawValue: 13)
    /// Management control channel opened.
    public static let controlOpen = BTSnoopMonitorOpcode(rawValue: 14)
    /// Management control channel closed.
    public static let controlClose = BTSnoopMonitorOpcode(rawValue: 15)
    /// Management control command.
    public static let controlCommand = BTSnoopMonitorOpcode(rawValue: 16)
    /// Management control event.
    public static let controlEvent = BTSnoopMonitorOpcode(rawValue: 17)
    /// Outgoing ISO data.
    public static let isoTX = BTSnoopMonitorOpcode(rawValue: 18)
    /// Incoming ISO data.
    public static let isoRX = BTSnoopMonitorOpcode(rawValue: 19)

    /// `ACL RX (5)`.
    public var description: String {
        let names = [
            "New Index", "Delete Index", "Command", "Event", "ACL TX", "ACL RX", "SCO TX", "SCO RX", "Open Index",
            "Close Index", "Index Info", "Vendor Diagnostic", "System Note", "User Logging", "Control Open",
            "Control Close", "Control Command", "Control Event", "ISO TX", "ISO RX",
        ]
        let name = Int(rawValue) < names.count ? names[Int(rawValue)] : "Monitor opcode"
        return "\(name) (\(rawValue))"
    }
}
