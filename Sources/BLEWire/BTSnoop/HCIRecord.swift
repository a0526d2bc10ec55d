// SPDX-License-Identifier: GPL-2.0-or-later

/// Which way an HCI packet travelled.
public enum HCIDirection: Hashable, Sendable, CustomStringConvertible {
    /// Sent by the host: commands and outgoing data.
    case hostToController
    /// Received by the host: events and incoming data.
    case controllerToHost

    public var description: String { self == .hostToController ? "host→controller" : "controller→host" }
}

/// One capture record in a datalink-independent form: every btsnoop datalink this package reads
/// normalises to this, and the writer produces any datalink from it.
public struct HCIRecord: Hashable, Sendable {
    /// Microseconds since the Unix epoch.
    public var timestamp: Int64
    /// Which way the packet went. Monitor records that are not HCI traffic have no direction;
    /// they read as `.controllerToHost` and the writer ignores the value.
    public var direction: HCIDirection
    /// The controller (hciN) the packet belongs to; always 0 for datalinks 1001 and 1002.
    public var controllerIndex: UInt16
    /// The packet.
    public var packet: HCIPacket

    /// Creates a record.
    public init(timestamp: Int64, direction: HCIDirection, controllerIndex: UInt16 = 0, packet: HCIPacket) {
        self.timestamp = timestamp
        self.direction = direction
        self.controllerIndex = controllerIndex
        self.packet = packet
    }

    /// Seconds since the Unix epoch.
    public var seconds: Double { Double(timestamp) / 1_000_000 }

    /// Normalises a stored record of `datalink`. Throws `unsupported` for other datalinks; a
    /// packet whose header does not parse becomes `.malformed` rather than an error.
    public init(_ record: BTSnoopRecord, datalink: BTSnoopDatalink) throws(WireError) {
        timestamp = record.unixMicroseconds
        switch datalink {
        case .hciUnencapsulated:
            // Flags bit 0: 0 sent, 1 received. Bit 1: 1 command/event, 0 data.
            direction = record.flags & 0x01 == 0 ? .hostToController : .controllerToHost
            controllerIndex = 0
            let type: HCIPacketType
            if record.flags & 0x02 != 0 {
                type = direction == .hostToController ? .command : .event
            } else {
                type = .acl
            }
            packet = HCIPacket(type: type, bytes: record.data)
        case .hciUART:
            controllerIndex = 0
            guard let first = record.data.first else {
                direction = record.flags & 0x01 == 0 ? .hostToController : .controllerToHost
                packet = .unknown(type: 0, bytes: [])
                return
            }
            let body = Array(record.data.dropFirst())
            if let type = HCIPacketType(rawValue: first) {
                packet = HCIPacket(type: type, bytes: body)
                switch type {
                case .command: direction = .hostToController
                case .event: direction = .controllerToHost
                default: direction = record.flags & 0x01 == 0 ? .hostToController : .controllerToHost
                }
            } else {
                direction = record.flags & 0x01 == 0 ? .hostToController : .controllerToHost
                packet = .unknown(type: first, bytes: body)
            }
        case .linuxMonitor:
            controllerIndex = UInt16(truncatingIfNeeded: record.flags >> 16)
            let opcode = BTSnoopMonitorOpcode(rawValue: UInt16(truncatingIfNeeded: record.flags))
            let bytes = record.data
            switch opcode {
            case .commandPacket: (direction, packet) = (.hostToController, HCIPacket(type: .command, bytes: bytes))
            case .eventPacket: (direction, packet) = (.controllerToHost, HCIPacket(type: .event, bytes: bytes))
            case .aclTX: (direction, packet) = (.hostToController, HCIPacket(type: .acl, bytes: bytes))
            case .aclRX: (direction, packet) = (.controllerToHost, HCIPacket(type: .acl, bytes: bytes))
            case .scoTX: (direction, packet) = (.hostToController, .sco(bytes))
            case .scoRX: (direction, packet) = (.controllerToHost, .sco(bytes))
            case .isoTX: (direction, packet) = (.hostToController, .iso(bytes))
            case .isoRX: (direction, packet) = (.controllerToHost, .iso(bytes))
            default: (direction, packet) = (.controllerToHost, .monitor(opcode, payload: bytes))
            }
        default:
            throw WireError(.unsupported, "btsnoop datalink \(datalink) is not one of 1001, 1002, 2001")
        }
    }

    /// The stored form of this record for `datalink`.
    ///
    /// Throws `unsupported` when the datalink cannot carry the packet: 1001 has no way to mark
    /// SCO, ISO or non-HCI records; 1002 cannot carry monitor records; 2001 cannot carry unknown
    /// H4 types.
    public func btsnoopRecord(datalink: BTSnoopDatalink) throws(WireError) -> BTSnoopRecord {
        let stamp = BTSnoopRecord.btsnoopTimestamp(fromUnixMicroseconds: timestamp)
        let received: UInt32 = direction == .controllerToHost ? 1 : 0
        switch datalink {
        case .hciUnencapsulated:
            let flags: UInt32
            switch packet.type {
            case .command: flags = 0x02
            case .event: flags = 0x03
            case .acl: flags = received
            default:
                throw WireError(.unsupported, "btsnoop 1001 cannot carry \(packet.kindDescription) records")
            }
            return BTSnoopRecord(flags: flags, timestamp: stamp, data: packet.bytes)
        case .hciUART:
            let typeByte: UInt8
            if let type = packet.type {
                typeByte = type.rawValue
            } else if case .unknown(let type, _) = packet {
                typeByte = type
            } else {
                throw WireError(.unsupported, "btsnoop 1002 cannot carry \(packet.kindDescription) records")
            }
            let commandOrEvent: UInt32 = packet.type == .command || packet.type == .event ? 0x02 : 0
            return BTSnoopRecord(flags: commandOrEvent | received, timestamp: stamp, data: [typeByte] + packet.bytes)
        case .linuxMonitor:
            let tx = direction == .hostToController
            let opcode: BTSnoopMonitorOpcode
            switch packet {
            case .monitor(let code, _): opcode = code
            case .unknown:
                throw WireError(.unsupported, "btsnoop 2001 cannot carry \(packet.kindDescription) records")
            default:
                switch packet.type {
                case .command: opcode = .commandPacket
                case .event: opcode = .eventPacket
                case .acl: opcode = tx ? .aclTX : .aclRX
                case .sco: opcode = tx ? .scoTX : .scoRX
                case .iso: opcode = tx ? .isoTX : .isoRX
                case nil: opcode = .systemNote  // unreachable: every other case has a type
                }
            }
            return BTSnoopRecord(
                flags: UInt32(controllerIndex) << 16 | UInt32(opcode.rawValue), timestamp: stamp, data: packet.bytes)
        default:
            throw WireError(.unsupported, "btsnoop datalink \(datalink) is not one of 1001, 1002, 2001")
        }
    }
}

extension HCIPacket {
    var kindDescription: String {
        switch self {
        case .monitor(let opcode, _): "monitor \(opcode)"
        case .unknown(let type, _): "unknown H4 type 0x\(BluetoothUUID.hex([type]))"
        default: type.map { "\($0)" } ?? "other"
        }
    }
}
