// SPDX-License-Identifier: GPL-2.0-or-later

/// One btsnoop record as stored: a 24-byte big-endian header (original length, included
/// length, flags, cumulative drops, timestamp) and the included bytes.
///
/// The timestamp counts microseconds since midnight, 1 January of year 0 (proleptic
/// Gregorian). `unixEpochOffset` is the distance to the Unix epoch, 0x00DCDDB30F2F8000 µs
/// (the constant Wireshark, BlueZ and Android use; cross-checked against
/// brentlu/btsnoop_time_convert `BTSNOOP_EPOCH_DELTA`).
public struct BTSnoopRecord: Hashable, Sendable {
    /// Microseconds from 0000-01-01 to 1970-01-01.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
    /// Record header size in bytes.
    public static let headerSize = 24

    /// Length of the packet as captured on the wire (may exceed `data.count` when cut).
    public var originalLength: UInt32
    /// Flags; their meaning depends on the datalink.
    public var flags: UInt32
    /// Packets lost since the capture began.
    public var cumulativeDrops: UInt32
    /// Microseconds since 0000-01-01, as stored.
    public var timestamp: Int64
    /// The included bytes.
    public var data: [UInt8]

    /// Creates a record; the original length defaults to the data length.
    public init(
        originalLength: UInt32? = nil, flags: UInt32, cumulativeDrops: UInt32 = 0, timestamp: Int64, data: [UInt8]
    ) {
        self.originalLength = originalLength ?? UInt32(truncatingIfNeeded: data.count)
        self.flags = flags
        self.cumulativeDrops = cumulativeDrops
        self.timestamp = timestamp
        self.data = data
    }

    /// Parses one whole record (header and exactly the included bytes).
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "btsnoop record")
        originalLength = try reader.readUInt32BE()
        let included = Int(try reader.readUInt32BE())
        flags = try reader.readUInt32BE()
        cumulativeDrops = try reader.readUInt32BE()
        timestamp = Int64(bitPattern: try reader.readUInt64BE())
        data = Array(try reader.readBytes(included))
        try reader.expectEnd()
    }

    /// Appends the record header and data.
    public func encode(into buffer: inout [UInt8]) {
        buffer.appendUInt32BE(originalLength)
        buffer.appendUInt32BE(UInt32(truncatingIfNeeded: data.count))
        buffer.appendUInt32BE(flags)
        buffer.appendUInt32BE(cumulativeDrops)
        buffer.appendUInt64BE(UInt64(bitPattern: timestamp))
        buffer.append(contentsOf: data)
    }

    /// The timestamp as microseconds since the Unix epoch.
    public var unixMicroseconds: Int64 { Self.unixMicroseconds(fromBTSnoop: timestamp) }

    /// Converts a btsnoop timestamp to microseconds since the Unix epoch (wrapping, never trapping).
    public static func unixMicroseconds(fromBTSnoop timestamp: Int64) -> Int64 { timestamp &- unixEpochOffset }

    /// Converts microseconds since the Unix epoch to a btsnoop timestamp (wrapping, never trapping).
    public static func btsnoopTimestamp(fromUnixMicroseconds micros: Int64) -> Int64 { micros &+ unixEpochOffset }
}
