// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// One stored accelerometer sample: its unwrapped sample index, its time and the raw counts.
public struct StoredSample: Hashable, Sendable {
    /// The unwrapped sample counter: strictly increasing within a session, with gaps where samples
    /// were lost.
    public var index: Int64
    /// Seconds on the session's time base (see `AccelerationSample.t`).
    public var t: Double
    /// The counts as the sensor sent them.
    public var raw: RawAcceleration

    /// Creates a sample.
    @inlinable public init(index: Int64, t: Double, raw: RawAcceleration) {
        self.index = index
        self.t = t
        self.raw = raw
    }

    /// The same reading in g.
    @inlinable public var acceleration: AccelerationSample { AccelerationSample(t: t, raw: raw) }
}

/// The compressed form of a run of samples as the store keeps it in one BLOB (see Docs/FORMATS.md,
/// "Stored sample chunks").
///
/// Counts and sample indices round-trip exactly for any input. Times are kept as a linear time base
/// (the first time and a step per sample index) plus a per-sample residual in whole microseconds, so
/// a decoded time is within 0.5 µs of the recorded one; a chunk whose times do not fit that (not
/// finite, or more than about 12 days off the line) keeps every time as a raw `Double` instead.
///
/// Each axis is predicted per block of 32 samples by the best of four fixed predictors (previous
/// value, linear extrapolation, half-damped extrapolation, quadratic extrapolation) and the zig-zagged residuals are Rice
/// coded with a per-block parameter, with an escape for outliers such as clipped impacts.
public enum SampleChunkCodec {
    /// The format version written in the first byte.
    public static let version: UInt8 = 1
    /// Samples per block: the unit the predictor and the Rice parameter are chosen for.
    public static let blockLength = 32

    /// Why a BLOB could not be decoded.
    public struct DecodeError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What went wrong.
        public struct Code: Hashable, Sendable {
            let name: String
            /// The BLOB ends before the data its header announces.
            public static let truncated = Code(name: "truncated")
            /// The version byte is not one this build reads.
            public static let unknownVersion = Code(name: "unknownVersion")
            /// A field holds a value the format does not allow.
            public static let malformed = Code(name: "malformed")
        }

        /// The kind of failure.
        public var code: Code
        /// What was found, naming the fix where there is one.
        public var message: String

        /// `code: message`.
        public var description: String { "\(code.name): \(message)" }
    }

    /// The chunk's samples summarised, as the store's columns keep them next to the BLOB.
    public struct Summary: Hashable, Sendable {
        /// Number of samples.
        public var count: Int
        /// Index of the first sample.
        public var firstIndex: Int64
        /// Time of the first sample, seconds.
        public var firstTime: Double
        /// Seconds per sample index on the chunk's linear time base.
        public var timeStep: Double
    }

    // MARK: Encoding

    /// Encodes samples (any number, including none). Indices need not be contiguous.
    public static func encode(_ samples: some Collection<StoredSample>) -> [UInt8] {
        var out: [UInt8] = []
        encode(Array(samples), into: &out)
        return out
    }

    /// The linear time base the encoder fits to these samples.
    public static func summary(of samples: [StoredSample]) -> Summary {
        guard let first = samples.first, let last = samples.last else {
            return Summary(count: 0, firstIndex: 0, firstTime: 0, timeStep: 0)
        }
        let span = last.index &- first.index
        let step = span > 0 ? (last.t - first.t) / Double(span) : 0
        return Summary(
            count: samples.count, firstIndex: first.index, firstTime: first.t,
            timeStep: step.isFinite ? step : 0)
    }

    /// Appends the encoding of `samples` to `out`.
    public static func encode(_ samples: [StoredSample], into out: inout [UInt8]) {
        out.append(version)
        let summary = summary(of: samples)
        appendVarint(UInt64(samples.count), to: &out)
        appendVarint(zigzag(summary.firstIndex), to: &out)

        // Index gaps: positions where the index does not advance by exactly one.
        var gaps: [(position: Int, delta: Int64)] = []
        if samples.count > 1 {
            for position in 1..<samples.count {
                let delta = samples[position].index &- samples[position - 1].index
                if delta != 1 { gaps.append((position, delta &- 1)) }
            }
        }
        appendVarint(UInt64(gaps.count), to: &out)
        for gap in gaps {
            appendVarint(UInt64(gap.position), to: &out)
            appendVarint(zigzag(gap.delta), to: &out)
        }

        // Times: a linear base plus microsecond residuals, or raw doubles when that cannot hold them.
        var residuals: [Int64] = []
        residuals.reserveCapacity(samples.count)
        var linear = true
        for sample in samples {
            let base = summary.firstTime + Double(sample.index &- summary.firstIndex) * summary.timeStep
            let micro = ((sample.t - base) * 1e6).rounded()
            guard micro.isFinite, abs(micro) < 1e12 else {
                linear = false
                break
            }
            residuals.append(Int64(micro))
        }
        if linear {
            out.append(TimeMode.linear.rawValue)
            appendDouble(summary.firstTime, to: &out)
            appendDouble(summary.timeStep, to: &out)
        } else {
            out.append(TimeMode.raw.rawValue)
            for sample in samples { appendDouble(sample.t, to: &out) }
        }

        var writer = BitWriter(reservingBits: samples.count * 30)
        var history = (x: AxisHistory(), y: AxisHistory(), z: AxisHistory())
        var values = [UInt32](repeating: 0, count: blockLength)
        var start = 0
        while start < samples.count {
            let end = min(start + blockLength, samples.count)
            if linear { encodeTimeBlock(residuals[start..<end], into: &writer) }
            encodeAxisBlock(samples, start, end, \.x, &history.x, &values, &writer)
            encodeAxisBlock(samples, start, end, \.y, &history.y, &values, &writer)
            encodeAxisBlock(samples, start, end, \.z, &history.z, &values, &writer)
            start = end
        }
        writer.finish(into: &out)
    }

    // MARK: Decoding

    /// Decodes a BLOB written by `encode`. Never traps, whatever the bytes.
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> [StoredSample] {
        var cursor = 0
        guard let first = bytes.first else { throw DecodeError(code: .truncated, message: "empty chunk") }
        guard first == version else {
            throw DecodeError(
                code: .unknownVersion,
                message:
                    "sample chunk format \(first) is newer than this build reads (\(version)): upgrade sportsensord")
        }
        cursor = 1
        let count64 = try readVarint(bytes, &cursor)
        // Every sample costs at least one bit per axis; a count beyond what the bytes can hold is corrupt,
        // and refusing it here keeps a bad header from allocating wildly.
        guard count64 <= UInt64(bytes.count) * 8 / 3 else {
            throw DecodeError(
                code: .malformed, message: "sample count \(count64) exceeds what \(bytes.count) bytes hold")
        }
        let count = Int(count64)
        let firstIndex = unzigzag(try readVarint(bytes, &cursor))
        let gapCount = try readVarint(bytes, &cursor)
        guard gapCount <= UInt64(count) else {
            throw DecodeError(code: .malformed, message: "\(gapCount) index gaps in \(count) samples")
        }
        var indices = [Int64](repeating: 0, count: count)
        var gapDeltas: [Int: Int64] = [:]
        var lastPosition = 0
        for _ in 0..<Int(gapCount) {
            let position = try readVarint(bytes, &cursor)
            guard position > UInt64(lastPosition), position < UInt64(count) else {
                throw DecodeError(code: .malformed, message: "index gap at position \(position) out of order")
            }
            lastPosition = Int(position)
            gapDeltas[lastPosition] = unzigzag(try readVarint(bytes, &cursor))
        }
        if count > 0 {
            indices[0] = firstIndex
            for position in 1..<count {
                indices[position] = indices[position - 1] &+ 1 &+ (gapDeltas[position] ?? 0)
            }
        }

        guard cursor < bytes.count, let mode = TimeMode(rawValue: bytes[cursor]) else {
            throw DecodeError(code: cursor < bytes.count ? .malformed : .truncated, message: "bad time mode")
        }
        cursor += 1
        var times = [Double](repeating: 0, count: count)
        var firstTime = 0.0
        var timeStep = 0.0
        switch mode {
        case .linear:
            firstTime = try readDouble(bytes, &cursor)
            timeStep = try readDouble(bytes, &cursor)
        case .raw:
            guard bytes.count - cursor >= count * 8 else {
                throw DecodeError(code: .truncated, message: "chunk ends inside its raw times")
            }
            for position in 0..<count { times[position] = try readDouble(bytes, &cursor) }
        }

        var reader = BitReader(bytes: bytes, start: cursor)
        var samples: [StoredSample] = []
        samples.reserveCapacity(count)
        var history = (x: AxisHistory(), y: AxisHistory(), z: AxisHistory())
        var xs = [Int16](repeating: 0, count: blockLength)
        var ys = xs
        var zs = xs
        var micro = [Int64](repeating: 0, count: blockLength)
        var start = 0
        while start < count {
            let length = min(blockLength, count - start)
            if mode == .linear { try decodeTimeBlock(length, &micro, &reader) }
            try decodeAxisBlock(length, &history.x, &xs, &reader)
            try decodeAxisBlock(length, &history.y, &ys, &reader)
            try decodeAxisBlock(length, &history.z, &zs, &reader)
            for offset in 0..<length {
                let position = start + offset
                let index = indices[position]
                let t: Double
                if mode == .linear {
                    t = firstTime + Double(index &- firstIndex) * timeStep + Double(micro[offset]) * 1e-6
                } else {
                    t = times[position]
                }
                samples.append(
                    StoredSample(index: index, t: t, raw: RawAcceleration(x: xs[offset], y: ys[offset], z: zs[offset])))
            }
            start += length
        }
        return samples
    }

    // MARK: Format internals

    enum TimeMode: UInt8 {
        case linear = 0
        case raw = 1
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

    @inline(__always) static func zigzag32(_ value: Int32) -> UInt32 {
        UInt32(bitPattern: (value << 1) ^ (value >> 31))
    }

    @inline(__always) static func unzigzag32(_ value: UInt32) -> Int32 {
        Int32(bitPattern: value >> 1) ^ -Int32(bitPattern: value & 1)
    }

    @inline(__always) static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    @inline(__always) static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
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
        _ samples: [StoredSample], _ start: Int, _ end: Int, _ axis: KeyPath<RawAcceleration, Int16>,
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

    // MARK: Byte helpers

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    static func readVarint(_ bytes: [UInt8], _ cursor: inout Int) throws(DecodeError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard cursor < bytes.count else {
                throw DecodeError(code: .truncated, message: "chunk ends inside a number")
            }
            let byte = bytes[cursor]
            cursor += 1
            guard shift < 64 else { throw DecodeError(code: .malformed, message: "number longer than 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    static func appendDouble(_ value: Double, to out: inout [UInt8]) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    static func readDouble(_ bytes: [UInt8], _ cursor: inout Int) throws(DecodeError) -> Double {
        guard bytes.count - cursor >= 8 else {
            throw DecodeError(code: .truncated, message: "chunk ends inside a time")
        }
        var bits: UInt64 = 0
        for offset in 0..<8 { bits |= UInt64(bytes[cursor + offset]) << UInt64(offset * 8) }
        cursor += 8
        return Double(bitPattern: bits)
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
