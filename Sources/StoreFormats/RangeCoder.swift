// SPDX-License-Identifier: GPL-2.0-or-later

/// An adaptive probability of a binary decision being 0: the low 12 bits hold it in 1/4096 (kept in
/// 31...4065), the high 4 bits how many decisions it has seen (up to 15), which sets how fast it adapts.
typealias BitProbability = UInt16

/// The probability every adaptive decision starts at: even odds, nothing seen.
let evenBitProbability: BitProbability = 2048

/// The adaptation shift after `n` decisions, as nibble `n` (least significant first): 1, 2, 2, 3, 3,
/// 3, 4, 4, 4, 4, 4, then 5. A new context learns fast, then settles at a rate of 1/32.
let adaptationShifts: UInt64 = 0x5555_5444_4433_3221

/// `probability` after a decision `bit` (0 or 1).
@inline(__always) func adapted(_ probability: BitProbability, _ bit: Int) -> BitProbability {
    let seen = probability >> 12
    let p = probability & 0xFFF
    let shift = UInt16(truncatingIfNeeded: adaptationShifts >> UInt64(seen &* 4)) & 0xF
    let next = bit == 0 ? p &+ ((4096 &- p) >> shift) : p &- (p >> shift)
    return min(max(next, 31), 4065) | min(seen &+ 1, 15) << 12
}

/// Writes binary decisions with adaptive probabilities and runs of equiprobable bits as one byte
/// stream (a carry-propagating range coder; Docs/FORMATS.md, "Stored sample chunks", version 2).
struct RangeEncoder {
    private(set) var bytes: [UInt8] = []
    private var low: UInt64 = 0
    private var range: UInt32 = 0xFFFF_FFFF
    private var cache: UInt8 = 0
    private var cacheSize = 1

    init(reservingBytes count: Int) { bytes.reserveCapacity(count) }

    @inline(__always) private mutating func shiftLow() {
        if low < 0xFF00_0000 || low >= 0x1_0000_0000 {
            let carry = UInt8(truncatingIfNeeded: low >> 32)
            var pending = cache
            repeat {
                bytes.append(pending &+ carry)
                pending = 0xFF
                cacheSize -= 1
            } while cacheSize != 0
            cache = UInt8(truncatingIfNeeded: low >> 24)
        }
        cacheSize += 1
        low = (low & 0x00FF_FFFF) << 8
    }

    @inline(__always) private mutating func normalize() {
        while range < 1 << 24 {
            range <<= 8
            shiftLow()
        }
    }

    /// Writes `bit` (0 or 1) with `probability` of a 0, then adapts the probability toward `bit`.
    @inline(__always) mutating func encode(_ bit: Int, _ probability: inout BitProbability) {
        let bound = (range >> 12) &* UInt32(probability & 0xFFF)
        if bit == 0 {
            range = bound
        } else {
            low &+= UInt64(bound)
            range &-= bound
        }
        probability = adapted(probability, bit)
        normalize()
    }

    /// Writes the low `count` bits of `value` (1...16) as one uniformly distributed number.
    @inline(__always) mutating func encodeUniform(_ value: UInt64, bits count: Int) {
        let step = range >> UInt32(count)
        low &+= UInt64(value & ((1 << UInt64(count)) - 1)) &* UInt64(step)
        range = step
        normalize()
    }

    /// Writes the low `count` bits of `value` (0...64), most significant 16-bit piece first.
    @inline(__always) mutating func encodeRaw(_ value: UInt64, bits count: Int) {
        var remaining = count
        while remaining > 16 {
            remaining -= 16
            encodeUniform(value >> UInt64(remaining), bits: 16)
        }
        if remaining > 0 { encodeUniform(value, bits: remaining) }
    }

    /// Flushes the coder and appends its bytes to `out`; without `leadingZero` the first byte,
    /// always 0, is left out (a sealed segment's records, Docs/FORMATS.md, "Tail segments").
    mutating func finish(into out: inout [UInt8], leadingZero: Bool = true) {
        for _ in 0..<5 { shiftLow() }
        out.append(contentsOf: leadingZero ? bytes[...] : bytes.dropFirst())
        bytes = []
    }

    /// Flushes the coder as briefly as it can be read back by a decoder that takes missing bytes
    /// as zeros (`RangeDecoder` with `zeroPadded`), and appends its bytes to `out` without the
    /// leading 0: the final code value is the one in [low, low + range) with the most trailing
    /// zero bytes, and trailing zero bytes are left out, so the last byte written is never 0
    /// (a sealed segment's records from format 3 on, Docs/FORMATS.md, "Tail segments").
    mutating func finishTrimmed(into out: inout [UInt8]) {
        // range ≥ 2^24 after every step, so a multiple of 2^24 always fits; low + range < 2^33,
        // so rounding up cannot carry more than once.
        for shift: UInt64 in [32, 24] {
            let mask: UInt64 = (1 << shift) - 1
            let value = (low &+ mask) & ~mask
            if value < low &+ UInt64(range) {
                low = value
                break
            }
        }
        for _ in 0..<5 { shiftLow() }
        var end = bytes.count
        while end > 1, bytes[end - 1] == 0 { end -= 1 }
        out.append(contentsOf: bytes[1..<max(end, 1)])
        bytes = []
    }
}

/// Reads what `RangeEncoder` wrote; throws instead of trapping on truncated or corrupt bytes.
struct RangeDecoder {
    private let bytes: [UInt8]
    private(set) var cursor: Int
    private var range: UInt32 = 0xFFFF_FFFF
    private var code: UInt32 = 0
    /// Whether bytes past the end read as zeros (what `RangeEncoder.finishTrimmed` left out).
    private let zeroPadded: Bool

    /// Starts decoding at `start`: the first byte must be 0 (unless the encoder left it out,
    /// `leadingZero` false), the next four start the code. With `zeroPadded` (a stream written by
    /// `finishTrimmed`, which has no leading 0) the stream may end early, its last byte not 0.
    init(
        bytes: [UInt8], start: Int, leadingZero: Bool = true, zeroPadded: Bool = false
    ) throws(SampleChunkCodec.DecodeError) {
        self.bytes = bytes
        self.zeroPadded = zeroPadded
        let skip = leadingZero ? 1 : 0
        guard zeroPadded || bytes.count - start >= 4 + skip else {
            throw SampleChunkCodec.DecodeError(code: .truncated, message: "chunk ends before its sample data")
        }
        guard !leadingZero || bytes[start] == 0 else {
            throw SampleChunkCodec.DecodeError(code: .malformed, message: "sample data does not start with 0")
        }
        // The encoder never ends a trimmed stream on a 0: one that does was padded or damaged.
        guard !zeroPadded || bytes.count == start || bytes.last != 0 else {
            throw SampleChunkCodec.DecodeError(code: .malformed, message: "sample data ends with a 0 byte")
        }
        cursor = start + skip
        for _ in 0..<4 { code = code << 8 | UInt32(byte()) }
    }

    /// Whether every byte has been used (a well-formed stream ends exactly at the end of the BLOB;
    /// a zero-padded one at or past it).
    var isAtEnd: Bool { zeroPadded ? cursor >= bytes.count : cursor == bytes.count }

    /// The byte at the cursor (0 past the end of a zero-padded stream), moving the cursor on.
    @inline(__always) private mutating func byte() -> UInt8 {
        defer { cursor += 1 }
        return cursor < bytes.count ? bytes[cursor] : 0
    }

    @inline(__always) private mutating func normalize() throws(SampleChunkCodec.DecodeError) {
        while range < 1 << 24 {
            guard zeroPadded || cursor < bytes.count else {
                throw SampleChunkCodec.DecodeError(code: .truncated, message: "chunk ends inside its sample data")
            }
            range <<= 8
            code = code << 8 | UInt32(byte())
        }
    }

    /// Reads one decision with `probability` of a 0 and adapts the probability as the encoder did.
    @inline(__always) mutating func decode(
        _ probability: inout BitProbability
    ) throws(SampleChunkCodec.DecodeError)
        -> Int
    {
        let bound = (range >> 12) &* UInt32(probability & 0xFFF)
        let bit: Int
        if code < bound {
            range = bound
            bit = 0
        } else {
            code &-= bound
            range &-= bound
            bit = 1
        }
        probability = adapted(probability, bit)
        try normalize()
        return bit
    }

    /// Reads a `count`-bit number (1...16) written by `encodeUniform`.
    @inline(__always) mutating func decodeUniform(bits count: Int) throws(SampleChunkCodec.DecodeError) -> UInt64 {
        let step = range >> UInt32(count)
        let value = code / step
        guard value < 1 << UInt32(count) else {
            throw SampleChunkCodec.DecodeError(code: .malformed, message: "sample data is not a valid range code")
        }
        code &-= value &* step
        range = step
        try normalize()
        return UInt64(value)
    }

    /// Reads a `count`-bit number (0...64) written by `encodeRaw`.
    @inline(__always) mutating func decodeRaw(bits count: Int) throws(SampleChunkCodec.DecodeError) -> UInt64 {
        var remaining = count
        var value: UInt64 = 0
        while remaining > 16 {
            remaining -= 16
            value = value << 16 | (try decodeUniform(bits: 16))
        }
        if remaining > 0 { value = value << UInt64(remaining) | (try decodeUniform(bits: remaining)) }
        return value
    }
}
