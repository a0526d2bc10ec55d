// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Chunk format version 2: per block of 32 samples and per axis the best of eight fixed predictors,
/// the residuals coded with an adaptive binary range coder (Docs/FORMATS.md, "Stored sample chunks").
extension SampleChunkCodec {
    /// Number of version-2 axis predictors (three bits per block and axis).
    static let format2PredictorCount = 8
    /// Largest magnitude class of an axis residual (a residual of Int16 values is below 2^19).
    static let axisMaxClass = 20
    /// Largest magnitude class of a time residual (a zig-zagged residual is below 2^41).
    static let timeMaxClass = 41

    /// The eight previous values of one axis, which the version-2 predictors extrapolate from.
    struct Format2History: Hashable {
        /// Most recent first.
        var values = SIMD8<Int32>(repeating: 0)

        /// Prediction `predictor` (0...7; Docs/FORMATS.md lists them).
        @inline(__always) func predict(_ predictor: Int) -> Int32 { predictions[predictor] }

        /// All eight predictions, in predictor order.
        @inline(__always) var predictions: SIMD8<Int32> {
            let (a, b, c, d) = (values[0], values[1], values[2], values[3])
            let four = a &+ b &+ c &+ d
            let eight = four &+ values[4] &+ values[5] &+ values[6] &+ values[7]
            let mean4 = (four &+ 2) >> 2
            return SIMD8(
                a, 2 &* a &- b, a &+ ((a &- b) >> 1), 3 &* (a &- b) &+ c, (a &+ b &+ 1) >> 1, mean4,
                (eight &+ 4) >> 3, mean4 &+ (((a &+ b &- c &- d) &* 5) >> 3))
        }

        @inline(__always) mutating func push(_ value: Int32) {
            values = SIMD8(
                value, values[0], values[1], values[2], values[3], values[4], values[5], values[6])
        }
    }

    /// The adaptive model of one residual stream (one axis, or the times): a running mean of the
    /// zig-zagged values that predicts their magnitude class, and the probabilities of each decision.
    struct ResidualModel: Hashable {
        let maxClass: Int
        /// Sixteen times the running mean of the zig-zagged values.
        var mean: UInt64 = 16 << 4
        var atLeastExpected: [BitProbability]
        var up: [BitProbability]
        var down: [BitProbability]
        var firstMantissa: [BitProbability]
        var secondMantissa: [BitProbability]

        init(maxClass: Int) {
            self.maxClass = maxClass
            let classes = maxClass + 1
            atLeastExpected = Array(repeating: evenBitProbability, count: classes)
            up = Array(repeating: evenBitProbability, count: classes * classes)
            down = Array(repeating: evenBitProbability, count: classes * classes)
            firstMantissa = Array(repeating: evenBitProbability, count: classes)
            secondMantissa = Array(repeating: evenBitProbability, count: classes * 2)
        }

        /// The class the running mean predicts.
        @inline(__always) var expectedClass: Int {
            min(64 - ((mean &+ 8) >> 4).leadingZeroBitCount, maxClass)
        }

        @inline(__always) mutating func adapt(_ value: UInt64) {
            mean = mean &- (mean >> 3) &+ (min(value, 1 << 44) << 1)
        }

        /// Writes `value` (its class `bitLength(value + 1) - 1` must not exceed `maxClass`).
        @inline(__always) mutating func encode(_ value: UInt64, _ coder: inout RangeEncoder) {
            let expected = expectedClass
            let magnitudeClass = 63 - (value &+ 1).leadingZeroBitCount
            let row = expected * (maxClass + 1)
            if magnitudeClass >= expected {
                if expected > 0 { coder.encode(1, &atLeastExpected[expected]) }
                var step = expected
                while step < magnitudeClass {
                    coder.encode(1, &up[row + step - expected])
                    step += 1
                }
                if magnitudeClass < maxClass { coder.encode(0, &up[row + magnitudeClass - expected]) }
            } else {
                coder.encode(0, &atLeastExpected[expected])
                var step = expected - 1
                while step > magnitudeClass {
                    coder.encode(1, &down[row + expected - 1 - step])
                    step -= 1
                }
                if magnitudeClass > 0 { coder.encode(0, &down[row + expected - 1 - magnitudeClass]) }
            }
            if magnitudeClass > 0 {
                let remainder = (value &+ 1) &- (1 << UInt64(magnitudeClass))
                let first = Int(remainder >> UInt64(magnitudeClass - 1)) & 1
                coder.encode(first, &firstMantissa[magnitudeClass])
                if magnitudeClass > 1 {
                    let second = Int(remainder >> UInt64(magnitudeClass - 2)) & 1
                    coder.encode(second, &secondMantissa[magnitudeClass * 2 + first])
                    if magnitudeClass > 2 { coder.encodeRaw(remainder, bits: magnitudeClass - 2) }
                }
            }
            adapt(value)
        }

        /// Reads a value written by `encode`.
        @inline(__always) mutating func decode(_ coder: inout RangeDecoder) throws(DecodeError) -> UInt64 {
            let expected = expectedClass
            let row = expected * (maxClass + 1)
            var magnitudeClass: Int
            let atLeast = expected == 0 ? 1 : try coder.decode(&atLeastExpected[expected])
            if atLeast == 1 {
                magnitudeClass = expected
                while magnitudeClass < maxClass {
                    guard try coder.decode(&up[row + magnitudeClass - expected]) == 1 else { break }
                    magnitudeClass += 1
                }
            } else {
                magnitudeClass = expected - 1
                while magnitudeClass > 0 {
                    guard try coder.decode(&down[row + expected - 1 - magnitudeClass]) == 1 else { break }
                    magnitudeClass -= 1
                }
            }
            var remainder: UInt64 = 0
            if magnitudeClass > 0 {
                let first = try coder.decode(&firstMantissa[magnitudeClass])
                remainder = UInt64(first)
                if magnitudeClass > 1 {
                    let second = try coder.decode(&secondMantissa[magnitudeClass * 2 + first])
                    remainder = remainder << 1 | UInt64(second)
                    if magnitudeClass > 2 {
                        let low = try coder.decodeRaw(bits: magnitudeClass - 2)
                        remainder = remainder << UInt64(magnitudeClass - 2) | low
                    }
                }
            }
            let value = (UInt64(1) << UInt64(magnitudeClass)) &- 1 &+ remainder
            adapt(value)
            return value
        }
    }

    /// The per-axis state of a version-2 stream: history, predictor choice contexts, residual model.
    struct Format2Axis: Hashable {
        var history = Format2History()
        var selection = [BitProbability](repeating: evenBitProbability, count: 8)
        var model = ResidualModel(maxClass: axisMaxClass)
    }

    static func encodeFormat2Body(
        _ samples: [IndexedSample], timeResiduals: [Int64]?, into out: inout [UInt8]
    ) {
        var coder = RangeEncoder(reservingBytes: samples.count * 3 + 16)
        var time = ResidualModel(maxClass: timeMaxClass)
        var axes = (x: Format2Axis(), y: Format2Axis(), z: Format2Axis())
        var block = (
            x: [Int32](repeating: 0, count: blockLength), y: [Int32](repeating: 0, count: blockLength),
            z: [Int32](repeating: 0, count: blockLength)
        )
        var start = 0
        while start < samples.count {
            let end = min(start + blockLength, samples.count)
            if let timeResiduals {
                for position in start..<end { time.encode(zigzag(timeResiduals[position]), &coder) }
            }
            for position in start..<end {
                let raw = samples[position].raw
                block.x[position - start] = Int32(raw.x)
                block.y[position - start] = Int32(raw.y)
                block.z[position - start] = Int32(raw.z)
            }
            encodeFormat2Axis(block.x[0..<(end - start)], &axes.x, &coder)
            encodeFormat2Axis(block.y[0..<(end - start)], &axes.y, &coder)
            encodeFormat2Axis(block.z[0..<(end - start)], &axes.z, &coder)
            start = end
        }
        coder.finish(into: &out)
    }

    /// The predictor whose zig-zagged residuals over `values` sum to the least (the first on a tie).
    @inline(__always) static func bestFormat2Predictor(_ values: ArraySlice<Int32>, _ history: Format2History) -> Int {
        var history = history
        // A zig-zagged residual is below 2^19, so 32 of them fit in 32 bits.
        var costs = SIMD8<UInt32>(repeating: 0)
        for value in values {
            let residual = SIMD8(repeating: value) &- history.predictions
            costs &+= SIMD8<UInt32>(truncatingIfNeeded: (residual &<< 1) ^ (residual &>> 31))
            history.push(value)
        }
        var best = 0
        for predictor in 1..<format2PredictorCount where costs[predictor] < costs[best] { best = predictor }
        return best
    }

    @inline(__always) static func encodeFormat2Axis(
        _ values: ArraySlice<Int32>, _ state: inout Format2Axis, _ coder: inout RangeEncoder
    ) {
        let predictor = bestFormat2Predictor(values, state.history)
        var node = 1
        for shift in (0..<3).reversed() {
            let bit = (predictor >> shift) & 1
            coder.encode(bit, &state.selection[node])
            node = node << 1 | bit
        }
        for value in values {
            state.model.encode(UInt64(zigzag32(value &- state.history.predict(predictor))), &coder)
            state.history.push(value)
        }
    }

    /// Decodes the range-coded sample data of a version-2 chunk: the counts and, with `times`, the
    /// microsecond time residuals.
    static func decodeFormat2Body(
        _ bytes: [UInt8], start: Int, count: Int, timeResiduals: Bool
    ) throws(DecodeError) -> (counts: [RawAcceleration], micro: [Int64]) {
        var coder = try RangeDecoder(bytes: bytes, start: start)
        var time = ResidualModel(maxClass: timeMaxClass)
        var axes = (x: Format2Axis(), y: Format2Axis(), z: Format2Axis())
        // The count is bounded only loosely by the BLOB's size; grow as data decodes.
        var counts: [RawAcceleration] = []
        counts.reserveCapacity(min(count, 1 << 16))
        var micro: [Int64] = []
        var xs = [Int16](repeating: 0, count: blockLength)
        var ys = xs
        var zs = xs
        var decoded = 0
        while decoded < count {
            let length = min(blockLength, count - decoded)
            if timeResiduals {
                for _ in 0..<length { micro.append(unzigzag(try time.decode(&coder))) }
            }
            try decodeFormat2Axis(length, &axes.x, &xs, &coder)
            try decodeFormat2Axis(length, &axes.y, &ys, &coder)
            try decodeFormat2Axis(length, &axes.z, &zs, &coder)
            for offset in 0..<length { counts.append(RawAcceleration(x: xs[offset], y: ys[offset], z: zs[offset])) }
            decoded += length
        }
        guard coder.isAtEnd else {
            throw DecodeError(code: .malformed, message: "bytes left over after the last sample")
        }
        return (counts, micro)
    }

    @inline(__always) static func decodeFormat2Axis(
        _ length: Int, _ state: inout Format2Axis, _ out: inout [Int16], _ coder: inout RangeDecoder
    ) throws(DecodeError) {
        var node = 1
        for _ in 0..<3 { node = node << 1 | (try coder.decode(&state.selection[node])) }
        let predictor = node - 8
        for offset in 0..<length {
            let coded = try state.model.decode(&coder)
            // The class limit keeps `coded` below 2^21, so the sum cannot overflow.
            let value = state.history.predict(predictor) &+ unzigzag32(UInt32(truncatingIfNeeded: coded))
            guard let sample = Int16(exactly: value) else {
                throw DecodeError(code: .malformed, message: "decoded count \(value) is outside Int16")
            }
            out[offset] = sample
            state.history.push(value)
        }
    }
}
