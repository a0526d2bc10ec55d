// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Chunk format version 1: per block of 32 samples and per axis the best of four fixed predictors,
/// Rice codes with a per-block parameter and an escape (Docs/FORMATS.md, "Stored sample chunks").
/// Only read: new chunks are version 3, and databases written before version 2 read back. Its
/// writer is the tests' (Tests/SessionStoreTests/SampleChunkFormat1Encoder.swift).
extension SampleChunkCodec {
    static func decodeFormat1Body(
        _ bytes: [UInt8], start: Int, count: Int, timeResiduals: Bool
    ) throws(DecodeError) -> (counts: [RawAcceleration], micro: [Int64]) {
        var reader = BitReader(bytes: bytes, start: start)
        var counts: [RawAcceleration] = []
        counts.reserveCapacity(count)
        var micro: [Int64] = []
        if timeResiduals { micro.reserveCapacity(count) }
        var history = (x: AxisHistory(), y: AxisHistory(), z: AxisHistory())
        var xs = [Int16](repeating: 0, count: blockLength)
        var ys = xs
        var zs = xs
        var blockMicro = [Int64](repeating: 0, count: blockLength)
        var decoded = 0
        while decoded < count {
            let length = min(blockLength, count - decoded)
            if timeResiduals {
                try decodeTimeBlock(length, &blockMicro, &reader)
                micro.append(contentsOf: blockMicro[0..<length])
            }
            try decodeAxisBlock(length, &history.x, &xs, &reader)
            try decodeAxisBlock(length, &history.y, &ys, &reader)
            try decodeAxisBlock(length, &history.z, &zs, &reader)
            for offset in 0..<length { counts.append(RawAcceleration(x: xs[offset], y: ys[offset], z: zs[offset])) }
            decoded += length
        }
        return (counts, micro)
    }

    /// Largest unary quotient before the escape; a quotient this large writes the raw value instead.
    static let escapeQuotient: UInt32 = 16
    /// Number of axis predictors.
    static let predictorCount = 4
    /// Bits of a raw axis residual after an escape (a zig-zagged residual is at most 2^19).
    static let axisEscapeBits = 20
    /// Bits of a raw time residual after an escape (a zig-zagged residual is below 2^41).
    static let timeEscapeBits = 41

    /// The two previous values of one axis, which the predictors extrapolate from.
    struct AxisHistory {
        var last: Int32 = 0
        var beforeLast: Int32 = 0
        var third: Int32 = 0

        /// 0: previous value; 1: linear extrapolation; 2: half-damped linear; 3: quadratic.
        @inline(__always) func predict(_ predictor: Int) -> Int32 {
            switch predictor {
            case 0: return last
            case 1: return 2 &* last &- beforeLast
            case 2: return last &+ ((last &- beforeLast) >> 1)
            default: return 3 &* (last &- beforeLast) &+ third
            }
        }

        @inline(__always) mutating func push(_ value: Int32) {
            third = beforeLast
            beforeLast = last
            last = value
        }
    }

    static func decodeAxisBlock(
        _ length: Int, _ history: inout AxisHistory, _ out: inout [Int16], _ reader: inout BitReader
    ) throws(DecodeError) {
        let header = try reader.read(bits: 8)
        let predictor = Int(header >> 5)
        let k = Int(header & 31)
        guard predictor < predictorCount, k <= 20 else {
            throw DecodeError(code: .malformed, message: "axis block header \(header) is not valid")
        }
        for offset in 0..<length {
            let coded = try readRice(k: k, escapeBits: axisEscapeBits, &reader)
            guard coded <= UInt64(UInt32.max) else {
                throw DecodeError(code: .malformed, message: "axis residual out of range")
            }
            let value = history.predict(predictor) &+ unzigzag32(UInt32(coded))
            guard let sample = Int16(exactly: value) else {
                throw DecodeError(code: .malformed, message: "decoded count \(value) is outside Int16")
            }
            out[offset] = sample
            history.push(value)
        }
    }

    static func decodeTimeBlock(_ length: Int, _ out: inout [Int64], _ reader: inout BitReader) throws(DecodeError) {
        let header = try reader.read(bits: 8)
        if header == 63 {
            for offset in 0..<length { out[offset] = unzigzag(try reader.read(bits: timeEscapeBits)) }
            return
        }
        guard header <= 31 else { throw DecodeError(code: .malformed, message: "time block header \(header)") }
        for offset in 0..<length {
            out[offset] = unzigzag(try readRice(k: Int(header), escapeBits: timeEscapeBits, &reader))
        }
    }

    @inline(__always) static func readRice(
        k: Int, escapeBits: Int, _ reader: inout BitReader
    ) throws(DecodeError)
        -> UInt64
    {
        let quotient = try reader.readUnary(limit: Int(escapeQuotient))
        if quotient == Int(escapeQuotient) { return try reader.read(bits: escapeBits) }
        let remainder = k > 0 ? try reader.read(bits: k) : 0
        return UInt64(quotient) << UInt64(k) | remainder
    }
}

/// Reads bits least significant first; throws at the end of the bytes instead of trapping.
struct BitReader {
    private let bytes: [UInt8]
    private var cursor: Int
    private var accumulator: UInt64 = 0
    private var available = 0

    init(bytes: [UInt8], start: Int) {
        self.bytes = bytes
        self.cursor = start
    }

    @inline(__always) private mutating func refill() {
        while available <= 56, cursor < bytes.count {
            accumulator |= UInt64(bytes[cursor]) << UInt64(available)
            cursor += 1
            available += 8
        }
    }

    /// Reads `bits` bits (0...64).
    @inline(__always) mutating func read(bits: Int) throws(SampleChunkCodec.DecodeError) -> UInt64 {
        if bits > 32 {
            let low = try read(bits: 32)
            let high = try read(bits: bits - 32)
            return low | high << 32
        }
        if available < bits { refill() }
        guard available >= bits else {
            throw SampleChunkCodec.DecodeError(code: .truncated, message: "chunk ends inside its sample data")
        }
        let value = bits == 0 ? 0 : accumulator & ((UInt64(1) << UInt64(bits)) - 1)
        accumulator = bits == 64 ? 0 : accumulator >> UInt64(bits)
        available -= bits
        return value
    }

    /// Counts one bits up to the first zero (consumed) or up to `limit` ones (no zero consumed).
    @inline(__always) mutating func readUnary(limit: Int) throws(SampleChunkCodec.DecodeError) -> Int {
        if available < limit + 1 { refill() }
        let ones = min((~accumulator).trailingZeroBitCount, limit)
        if ones == limit {
            guard available >= limit else {
                throw SampleChunkCodec.DecodeError(code: .truncated, message: "chunk ends inside its sample data")
            }
            accumulator >>= UInt64(limit)
            available -= limit
            return limit
        }
        guard available >= ones + 1 else {
            throw SampleChunkCodec.DecodeError(code: .truncated, message: "chunk ends inside its sample data")
        }
        accumulator >>= UInt64(ones + 1)
        available -= ones + 1
        return ones
    }
}
