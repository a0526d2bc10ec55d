// SPDX-License-Identifier: GPL-2.0-or-later

/// The H4 (UART transport) packet indicator that precedes every HCI packet on a UART and in
/// Android's btsnoop logs (Core Vol 4 Part A 2).
public enum HCIPacketType: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// HCI command packet, host to controller.
    case command = 0x01
    /// HCI ACL data packet.
    case acl = 0x02
    /// HCI synchronous (SCO) data packet.
    case sco = 0x03
    /// HCI event packet, controller to host.
    case event = 0x04
    /// HCI ISO data packet.
    case iso = 0x05

    public var description: String {
        switch self {
        case .command: "command"
        case .acl: "ACL"
        case .sco: "SCO"
        case .event: "event"
        case .iso: "ISO"
        }
    }
}
