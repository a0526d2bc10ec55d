// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Chunk format version 1: per block of 32 samples and per axis the best of four fixed predictors,
/// Rice codes with a per-block parameter and an escape (Docs/FORMATS.md, "Stored sample chunks").
/// New chunks are version 2; this stays so existing databases read back.
extension SampleChunkCodec {
    static func encodeFormat1Body(_ samples: [IndexedSample], timeResiduals: [Int64]?, into out: inout [UInt8]) {
        var writer = BitWriter(reservingBits: samples.count * 30)
        var history = (x: AxisHistory(), y: AxisHistory(), z: AxisHistory())
        var values = [UInt32](repeating: 0, count: blockLength)
        var start = 0
        while start < samples.count {
            let end = min(start + blockLength, samples.count)
            if let timeResiduals { encodeTimeBlock(timeResiduals[start..<end], into: &writer) }
            encodeAxisBlock(samples, start, end, \.x, &history.x, &values, &writer)
            encodeAxisBlock(samples, start, end, \.y, &history.y, &values, &writer)
            encodeAxisBlock(samples, start, end, \.z, &history.z, &values, &writer)
            start = end
        }
        writer.finish(into: &out)
    }

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

    /// Total Rice-coded bits of `values` with parameter `k` and the escape.
    @inline(__always) static func riceCost(_ values: UnsafeBufferPointer<UInt32>, k: Int, escapeBits: Int) -> Int {
        var bits = 0
        for value in values {
            let quotient = value >> UInt32(k)
            bits += quotient < escapeQuotient ? Int(quotient) + 1 + k : Int(escapeQuotient) + escapeBits
        }
        return bits
    }

    /// The Rice parameter that minimises the block's size, searched around log2 of the mean.
    static func bestRiceParameter(
        _ values: UnsafeBufferPointer<UInt32>, maxK: Int, escapeBits: Int
    ) -> (k: Int, bits: Int) {
        var sum: UInt64 = 0
        for value in values { sum &+= UInt64(value) }
        let mean = sum / UInt64(max(values.count, 1))
        let guess = mean == 0 ? 0 : 64 - mean.leadingZeroBitCount
        var best = (k: 0, bits: Int.max)
        for k in max(0, guess - 2)...min(maxK, guess + 2) {
            let bits = riceCost(values, k: k, escapeBits: escapeBits)
            if bits < best.bits { best = (k, bits) }
        }
        return best
    }

    static func writeRice(_ values: UnsafeBufferPointer<UInt32>, k: Int, escapeBits: Int, _ writer: inout BitWriter) {
        let mask = k == 0 ? 0 : (UInt64(1) << UInt64(k)) - 1
        for value in values {
            let quotient = value >> UInt32(k)
            if quotient < escapeQuotient {
                // `quotient` ones, a zero, then the k low bits.
                writer.write((UInt64(1) << UInt64(quotient)) - 1, bits: Int(quotient) + 1)
                if k > 0 { writer.write(UInt64(value) & mask, bits: k) }
            } else {
                writer.write((UInt64(1) << UInt64(escapeQuotient)) - 1, bits: Int(escapeQuotient))
                writer.write(UInt64(value), bits: escapeBits)
            }
        }
    }

    static func encodeAxisBlock(
        _ samples: [IndexedSample], _ start: Int, _ end: Int, _ axis: KeyPath<RawAcceleration, Int16>,
        _ history: inout AxisHistory, _ values: inout [UInt32], _ writer: inout BitWriter
    ) {
        let length = end - start
        var best = (predictor: 0, k: 0, bits: Int.max)
        values.withUnsafeMutableBufferPointer { buffer in
            for predictor in 0..<predictorCount {
                var state = history
                for offset in 0..<length {
                    let value = Int32(samples[start + offset].raw[keyPath: axis])
                    buffer[offset] = zigzag32(value &- state.predict(predictor))
                    state.push(value)
                }
                let choice = bestRiceParameter(
                    UnsafeBufferPointer(rebasing: buffer[0..<length]), maxK: 20, escapeBits: axisEscapeBits)
                if choice.bits < best.bits { best = (predictor, choice.k, choice.bits) }
            }
            for offset in 0..<length {
                let value = Int32(samples[start + offset].raw[keyPath: axis])
                buffer[offset] = zigzag32(value &- history.predict(best.predictor))
                history.push(value)
            }
            writer.write(UInt64(best.predictor << 5 | best.k), bits: 8)
            writeRice(
                UnsafeBufferPointer(rebasing: buffer[0..<length]), k: best.k, escapeBits: axisEscapeBits, &writer)
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

    static func encodeTimeBlock(_ residuals: ArraySlice<Int64>, into writer: inout BitWriter) {
        // Residuals are below 2^40 in magnitude, so their zig-zag fits UInt64; Rice cost works on 32-bit
        // values, so a block with any residual that does not fit uses the escape for all of them (k = 31).
        var small = [UInt32]()
        small.reserveCapacity(residuals.count)
        var fits = true
        for residual in residuals {
            let coded = zigzag(residual)
            if coded > UInt64(UInt32.max) {
                fits = false
                break
            }
            small.append(UInt32(coded))
        }
        if !fits {
            writer.write(63, bits: 8)
            for residual in residuals { writer.write(zigzag(residual), bits: timeEscapeBits) }
            return
        }
        small.withUnsafeBufferPointer { buffer in
            let choice = bestRiceParameter(buffer, maxK: 31, escapeBits: timeEscapeBits)
            writer.write(UInt64(choice.k), bits: 8)
            writeRice(buffer, k: choice.k, escapeBits: timeEscapeBits, &writer)
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

/// Writes bits least significant first into bytes.
struct BitWriter {
    private var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var pending = 0

    init(reservingBits bits: Int) { bytes.reserveCapacity(bits / 8 + 8) }

    /// Appends the low `bits` bits of `value` (at most 64).
    @inline(__always) mutating func write(_ value: UInt64, bits: Int) {
        if bits > 32 {
            write(value & 0xFFFF_FFFF, bits: 32)
            write(value >> 32, bits: bits - 32)
            return
        }
        let masked = bits == 64 ? value : value & ((UInt64(1) << UInt64(bits)) - 1)
        accumulator |= masked << UInt64(pending)
        pending += bits
        while pending >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            pending -= 8
        }
    }

    /// Appends every bit written so far, padding the last byte with zeros.
    mutating func finish(into out: inout [UInt8]) {
        if pending > 0 { bytes.append(UInt8(truncatingIfNeeded: accumulator)) }
        out.append(contentsOf: bytes)
        bytes = []
        accumulator = 0
        pending = 0
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
