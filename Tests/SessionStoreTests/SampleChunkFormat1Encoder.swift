// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
@testable import StoreFormats

// Chunk format version 1's encoder: the store only reads version 1 (databases written before
// version 2), so its writer lives with the tests that make version 1 chunks to read back.

extension SampleChunkCodec {
    /// `samples` as a format version 1 chunk: the shared header, then version 1's body.
    static func encodeFormat1(_ samples: [IndexedSample]) -> [UInt8] {
        var out: [UInt8] = []
        let timeResiduals = encodeHeader(samples, version: 1, into: &out)
        encodeFormat1Body(samples, timeResiduals: timeResiduals, into: &out)
        return out
    }

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
