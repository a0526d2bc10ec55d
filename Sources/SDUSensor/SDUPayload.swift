// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// One notification of the accelerometer characteristic: a 2-byte little-endian header followed
/// by k ≥ 1 samples of x, y, z as little-endian Int16 (6 bytes each).
///
/// The only valid lengths are 2 + 6k with k ≥ 1 (8, 14, 20, … bytes). Every other length is
/// malformed, including a header-only notification of 2 bytes: it carries no sample, and a
/// sensor that streams has no reason to send one, so accepting it would only let a corrupted or
/// foreign packet advance the counter tracker. Malformed lengths, including 0 and 1 byte, throw a
/// `WireError` with code `.wrongLength` naming the length. There is no opcode to check: the ATT
/// layer below has already said which characteristic the value belongs to.
///
/// What the header means is not documented; `SampleCounterTracker` finds out at run time.
public struct SDUPayload: Hashable, Sendable {
    /// The 2-byte header, read little-endian (probably a sample counter; see
    /// `SampleCounterTracker`).
    public var header: UInt16
    /// The samples in the order the sensor took them.
    public var samples: [RawAcceleration]

    /// Creates a payload to encode, e.g. for the virtual sensor.
    public init(header: UInt16, samples: [RawAcceleration]) {
        self.header = header
        self.samples = samples
    }

    /// Parses one notification value.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        let count = try Self.sampleCount(forLength: bytes.count)
        var reader = WireReader(bytes, context: "SDU accelerometer notification")
        header = try reader.readUInt16LE()
        samples = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let x = try reader.readInt16LE()
            let y = try reader.readInt16LE()
            let z = try reader.readInt16LE()
            samples.append(RawAcceleration(x: x, y: y, z: z))
        }
        try reader.expectEnd()
    }

    /// Appends the notification value: header, then each sample as x, y, z.
    ///
    /// An empty `samples` encodes a header-only value, which `init(parsing:)` rejects; the
    /// virtual sensor uses that to inject malformed notifications on purpose.
    public func encode(into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + SDUProfile.headerLength + SDUProfile.sampleLength * samples.count)
        bytes.appendUInt16LE(header)
        for sample in samples {
            bytes.appendInt16LE(sample.x)
            bytes.appendInt16LE(sample.y)
            bytes.appendInt16LE(sample.z)
        }
    }

    /// The number of samples in a notification of `length` bytes, or `.wrongLength` unless
    /// `length` is 2 + 6k with k ≥ 1.
    @inlinable
    public static func sampleCount(forLength length: Int) throws(WireError) -> Int {
        let body = length - SDUProfile.headerLength
        guard body > 0, body % SDUProfile.sampleLength == 0 else {
            throw WireError(
                .wrongLength,
                "SDU accelerometer notification of \(length) byte(s): expected 2 + 6k bytes with k ≥ 1 "
                    + "(a 2-byte header and k samples of x, y, z as Int16); the notification was dropped")
        }
        return body / SDUProfile.sampleLength
    }

    /// The header of a notification whose length `sampleCount(forLength:)` accepted.
    @inlinable
    static func header(in bytes: UnsafeRawBufferPointer) -> UInt16 {
        UInt16(bytes[0]) | UInt16(bytes[1]) << 8
    }

    /// Sample `index` of a notification whose length `sampleCount(forLength:)` accepted.
    @inlinable
    static func sample(_ index: Int, in bytes: UnsafeRawBufferPointer) -> RawAcceleration {
        let offset = SDUProfile.headerLength + SDUProfile.sampleLength * index
        @inline(__always) func int16(_ at: Int) -> Int16 {
            Int16(bitPattern: UInt16(bytes[offset + at]) | UInt16(bytes[offset + at + 1]) << 8)
        }
        return RawAcceleration(x: int16(0), y: int16(2), z: int16(4))
    }

    /// The allocation-free path for hot loops: validates the length, calls `body` for each
    /// sample in order and returns the header. Throws `.wrongLength` (before calling `body`)
    /// exactly when `init(parsing:)` would.
    @inlinable
    @discardableResult
    public static func forEachSample(
        in bytes: UnsafeRawBufferPointer, _ body: (RawAcceleration) -> Void
    ) throws(WireError) -> UInt16 {
        let count = try sampleCount(forLength: bytes.count)
        for index in 0..<count { body(sample(index, in: bytes)) }
        return header(in: bytes)
    }

    /// The allocation-free path over an array; see `forEachSample(in:_:)` for raw buffers.
    @inlinable
    @discardableResult
    public static func forEachSample(in bytes: [UInt8], _ body: (RawAcceleration) -> Void) throws(WireError) -> UInt16 {
        let count = try sampleCount(forLength: bytes.count)
        return bytes.withUnsafeBytes { raw in
            for index in 0..<count { body(sample(index, in: raw)) }
            return header(in: raw)
        }
    }
}
