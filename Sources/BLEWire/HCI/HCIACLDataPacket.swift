// SPDX-License-Identifier: GPL-2.0-or-later

/// An HCI ACL data packet: a 12-bit connection handle, packet-boundary and broadcast flags, a
/// 16-bit length and the data (Core Vol 4 Part E 5.4.2). Without the H4 packet-type byte.
public struct HCIACLDataPacket: Hashable, Sendable {
    /// Where this fragment sits in an L2CAP PDU.
    public enum PacketBoundary: UInt8, Hashable, Sendable {
        /// 0b00: first fragment of a non-automatically-flushable PDU (host to controller on LE).
        case firstNonFlushable = 0b00
        /// 0b01: continuation fragment.
        case continuation = 0b01
        /// 0b10: first fragment of an automatically flushable PDU (controller to host on LE).
        case firstFlushable = 0b10
        /// 0b11: a complete, automatically flushable PDU (deprecated; treated as a start).
        case complete = 0b11

        /// True for every value that starts a new L2CAP PDU.
        public var isStart: Bool { self != .continuation }
    }

    /// The connection handle (0x000...0xEFF are valid; 12 bits are kept).
    public var handle: UInt16
    /// Packet-boundary flag.
    public var packetBoundary: PacketBoundary
    /// Broadcast flag (0b00 point-to-point; other values are BR/EDR only).
    public var broadcast: UInt8
    /// The data: an L2CAP PDU or a fragment of one.
    public var data: [UInt8]

    /// Creates a packet.
    public init(handle: UInt16, packetBoundary: PacketBoundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.packetBoundary = packetBoundary
        self.broadcast = broadcast & 0x03
        self.data = data
    }

    /// Parses a whole ACL packet; the length field must match the data exactly.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "HCI ACL data")
        let word = try reader.readUInt16LE()
        handle = word & 0x0FFF
        packetBoundary = PacketBoundary(rawValue: UInt8((word >> 12) & 0x03))!
        broadcast = UInt8(word >> 14)
        let length = Int(try reader.readUInt16LE())
        data = Array(try reader.readBytes(length))
        try reader.expectEnd()
    }

    /// Appends header and data (data beyond 65535 bytes is cut).
    public func encode(into buffer: inout [UInt8]) {
        let body = data.prefix(0xFFFF)
        buffer.appendUInt16LE(handle & 0x0FFF | UInt16(packetBoundary.rawValue) << 12 | UInt16(broadcast & 0x03) << 14)
        buffer.appendUInt16LE(UInt16(body.count))
        buffer.append(contentsOf: body)
    }
}
