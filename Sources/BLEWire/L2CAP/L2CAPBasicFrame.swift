// SPDX-License-Identifier: GPL-2.0-or-later

/// An L2CAP basic information frame (B-frame): payload length (UInt16 LE), channel id
/// (UInt16 LE), payload (Core Vol 3 Part A 3.1). On LE, CID 0x0004 carries ATT, 0x0005 the LE
/// signalling channel and 0x0006 the Security Manager.
public struct L2CAPBasicFrame: Hashable, Sendable {
    /// The Attribute Protocol channel.
    public static let attributeProtocolCID: UInt16 = 0x0004
    /// The LE signalling channel.
    public static let leSignalingCID: UInt16 = 0x0005
    /// The Security Manager Protocol channel.
    public static let securityManagerCID: UInt16 = 0x0006

    /// Size of the basic header.
    public static let headerSize = 4

    /// Destination channel id.
    public var channelID: UInt16
    /// The payload (for CID 4, one ATT PDU).
    public var payload: [UInt8]

    /// Creates a frame.
    public init(channelID: UInt16, payload: [UInt8]) {
        self.channelID = channelID
        self.payload = payload
    }

    /// Parses a whole frame; the length field must match the payload exactly.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "L2CAP basic frame")
        let length = Int(try reader.readUInt16LE())
        channelID = try reader.readUInt16LE()
        payload = Array(try reader.readBytes(length))
        try reader.expectEnd()
    }

    /// Appends header and payload (payload beyond 65535 bytes is cut).
    public func encode(into buffer: inout [UInt8]) {
        let body = payload.prefix(0xFFFF)
        buffer.appendUInt16LE(UInt16(body.count))
        buffer.appendUInt16LE(channelID)
        buffer.append(contentsOf: body)
    }

    /// Splits the encoded frame into ACL packets of at most `fragmentSize` data bytes each, the
    /// first marked with `firstBoundary` and the rest as continuations.
    public func fragments(
        handle: UInt16, fragmentSize: Int, firstBoundary: HCIACLDataPacket.PacketBoundary = .firstNonFlushable
    ) -> [HCIACLDataPacket] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        let size = max(1, fragmentSize)
        var packets: [HCIACLDataPacket] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            packets.append(
                HCIACLDataPacket(
                    handle: handle, packetBoundary: start == 0 ? firstBoundary : .continuation,
                    data: Array(bytes[start..<end])))
            start = end
        }
        return packets
    }
}
