// SPDX-License-Identifier: GPL-2.0-or-later

/// One HCI packet from a capture, decoded as far as its header, or the record it came in when
/// it is not HCI traffic.
public enum HCIPacket: Hashable, Sendable {
    /// An HCI command packet.
    case command(HCICommandPacket)
    /// An HCI event packet.
    case event(HCIEventPacket)
    /// An HCI ACL data packet.
    case acl(HCIACLDataPacket)
    /// An HCI SCO packet, kept whole (header included).
    case sco([UInt8])
    /// An HCI ISO packet, kept whole (header included).
    case iso([UInt8])
    /// A packet of a known type whose header did not parse (cut short by the capture, say).
    case malformed(HCIPacketType, bytes: [UInt8], error: WireError)
    /// A Linux-monitor record that is not HCI traffic (index added, system note, user log...).
    case monitor(BTSnoopMonitorOpcode, payload: [UInt8])
    /// An H4 record whose packet-type byte is none of 0x01-0x05.
    case unknown(type: UInt8, bytes: [UInt8])

    /// Decodes a packet of a known type; a header that does not parse becomes `.malformed`.
    public init(type: HCIPacketType, bytes: [UInt8]) {
        do throws(WireError) {
            switch type {
            case .command: self = .command(try HCICommandPacket(parsing: bytes))
            case .event: self = .event(try HCIEventPacket(parsing: bytes))
            case .acl: self = .acl(try HCIACLDataPacket(parsing: bytes))
            case .sco: self = .sco(bytes)
            case .iso: self = .iso(bytes)
            }
        } catch {
            self = .malformed(type, bytes: bytes, error: error)
        }
    }

    /// The HCI packet type, nil for monitor and unknown records.
    public var type: HCIPacketType? {
        switch self {
        case .command: .command
        case .event: .event
        case .acl: .acl
        case .sco: .sco
        case .iso: .iso
        case .malformed(let type, _, _): type
        case .monitor, .unknown: nil
        }
    }

    /// The packet's bytes without any H4 type byte (the payload for monitor records).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .command(let packet): packet.encode(into: &out)
        case .event(let packet): packet.encode(into: &out)
        case .acl(let packet): packet.encode(into: &out)
        case .sco(let bytes), .iso(let bytes), .malformed(_, let bytes, _), .monitor(_, let bytes),
            .unknown(_, let bytes):
            out = bytes
        }
        return out
    }
}
