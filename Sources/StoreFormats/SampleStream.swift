// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// The samples of a tail segment's records (formats 2 and 3): one coder whose state (each axis's history,
/// predictor choice and residual model, the time model, the last index and time) runs on from one
/// record to the next, so a record of 100 samples costs what those samples cost inside a long
/// chunk (Docs/FORMATS.md, "Tail segments"). Each record's range code is flushed at its end, so
/// a segment cut after any whole record decodes up to there; format 3 flushes it in as few bytes
/// as decode (missing bytes read as zeros), format 2 in full.
///
/// Encoding and decoding mutate the state; a caller that may drop a record (a failed write, a
/// damaged one) works on a copy and keeps it only when the record is whole.
package struct SampleStream: Hashable, Sendable {
    package typealias DecodeError = SampleChunkCodec.DecodeError

    /// One axis: the chunk format's predictors and residual model, and the decisions that code a
    /// saturated count (a hard hit clips at ±2 g, Int16's limits) without a residual.
    struct Axis: Hashable, Sendable {
        var coding = SampleChunkCodec.Format2Axis()
        /// 0: the previous count is the top limit; 1: it is the bottom; 2 and 3: the prediction
        /// reaches the top or the bottom.
        var saturation = [BitProbability](repeating: evenBitProbability, count: 4)
    }

    static let top = Int32(Int16.max)
    static let bottom = Int32(Int16.min)

    var x = Axis()
    var y = Axis()
    var z = Axis()
    var time = SampleChunkCodec.ResidualModel(maxClass: SampleChunkCodec.timeMaxClass)
    /// The last sample's index (−1 before the first record).
    var lastIndex: Int64 = -1
    /// The last sample's time, µs (0 before the first record, or after a record of raw times).
    var lastMicroseconds: Int64 = 0
    /// The previous record's line step, µs per index (0 before the first).
    var step: Double = 0

    /// A coder before its first record.
    package init() {}

    /// Time modes of a record (the low two bits of its time byte; bit 2: a new step follows).
    enum TimeMode: UInt8 {
        /// Whole microseconds exactly on the line: no time data in the range code.
        case exactMicroseconds = 0
        /// Whole microseconds: the line plus a residual per sample in the range code.
        case microseconds = 1
        /// One IEEE-754 double per sample (times that are not whole microseconds).
        case raw = 2
    }

    /// Appends a record's samples in format 3: count, time byte, index and gaps (when they do not
    /// just continue), time base and the range-coded counts.
    /// Nothing for no samples (the record's section is then empty).
    package mutating func encode(_ samples: [IndexedSample], into out: inout [UInt8]) {
        guard let first = samples.first, let last = samples.last else { return }
        SampleChunkCodec.appendVarint(UInt64(samples.count), to: &out)
        let indexDelta = first.index &- (lastIndex &+ 1)
        let gaps = IndexGaps(of: samples)
        // The time byte's bit 3: index fields follow (else the record continues the last index
        // without gaps); bit 4: the line's first µs is off the predicted one by a delta that follows.
        let indexFlag: UInt8 = indexDelta != 0 || !gaps.isEmpty ? 8 : 0
        var timeResiduals: [Int64]?
        var timeBase: [UInt8] = []
        if let line = MicrosecondLine(samples) {
            let newStep = line.step.bitPattern != step.bitPattern
            let mode: TimeMode = line.isExact ? .exactMicroseconds : .microseconds
            let delta = line.first &- predictedMicroseconds(at: first.index)
            out.append(mode.rawValue | (newStep ? 4 : 0) | indexFlag | (delta != 0 ? 16 : 0))
            if delta != 0 { SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(delta), to: &timeBase) }
            if newStep { SampleChunkCodec.appendDouble(line.step, to: &timeBase) }
            if !line.isExact { timeResiduals = line.residuals }
            step = line.step
            lastMicroseconds = MicrosecondLine.wholeMicroseconds(last.t) ?? 0
        } else {
            out.append(TimeMode.raw.rawValue | indexFlag)
            for sample in samples { SampleChunkCodec.appendDouble(sample.t, to: &timeBase) }
            lastMicroseconds = 0
        }
        if indexFlag != 0 {
            SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(indexDelta), to: &out)
            gaps.encode(into: &out)
        }
        out += timeBase
        lastIndex = last.index

        var coder = RangeEncoder(reservingBytes: samples.count * 3 + 16)
        var block = (
            x: [Int32](repeating: 0, count: SampleChunkCodec.blockLength),
            y: [Int32](repeating: 0, count: SampleChunkCodec.blockLength),
            z: [Int32](repeating: 0, count: SampleChunkCodec.blockLength)
        )
        var start = 0
        while start < samples.count {
            let end = min(start + SampleChunkCodec.blockLength, samples.count)
            if let timeResiduals {
                for position in start..<end { time.encode(SampleChunkCodec.zigzag(timeResiduals[position]), &coder) }
            }
            for position in start..<end {
                let raw = samples[position].raw
                block.x[position - start] = Int32(raw.x)
                block.y[position - start] = Int32(raw.y)
                block.z[position - start] = Int32(raw.z)
            }
            Self.encode(block.x[0..<(end - start)], &x, &coder)
            Self.encode(block.y[0..<(end - start)], &y, &coder)
            Self.encode(block.z[0..<(end - start)], &z, &coder)
            start = end
        }
        coder.finishTrimmed(into: &out)
    }

    /// Reads a record's samples written by `encode` from `bytes` (exactly its samples section);
    /// `trimmed` false for a format-2 segment's record, whose range code was flushed in full.
    package mutating func decode(_ bytes: [UInt8], trimmed: Bool = true) throws(DecodeError) -> [IndexedSample] {
        var cursor = 0
        let count64 = try SampleChunkCodec.readVarint(bytes, &cursor)
        // A record without samples has an empty section (`encode` is not called for it).
        guard count64 > 0 else { throw DecodeError(code: .malformed, message: "a samples section of no samples") }
        // Every sample costs at least three range-coder decisions (more than 1/92 bit each).
        guard count64 <= UInt64(bytes.count) * 256 else {
            throw DecodeError(
                code: .malformed, message: "sample count \(count64) exceeds what \(bytes.count) bytes hold")
        }
        let count = Int(count64)
        // Format 3 puts the time byte first, with flags for the fields it leaves out.
        var flags: UInt8 = 0
        if trimmed {
            guard cursor < bytes.count else {
                throw DecodeError(code: .truncated, message: "record ends before its time byte")
            }
            flags = bytes[cursor]
            cursor += 1
        }
        var firstIndex = lastIndex &+ 1
        var gaps = IndexGaps()
        if !trimmed || flags & 8 != 0 {
            firstIndex = firstIndex &+ SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(bytes, &cursor))
            gaps = try IndexGaps(parsing: bytes, &cursor, count: count)
        }
        if !trimmed {
            guard cursor < bytes.count else { throw DecodeError(code: .truncated, message: "bad time mode") }
            flags = bytes[cursor]
            cursor += 1
        }
        // Format 2 knows bits 0–2; format 3 adds 3 and 4. A raw-time record has no step or delta.
        guard let mode = TimeMode(rawValue: flags & 3), flags & (trimmed ? ~31 : ~7) == 0,
            mode != .raw || flags & ~8 == TimeMode.raw.rawValue
        else { throw DecodeError(code: .malformed, message: "bad time mode") }
        let newStep = flags & 4 != 0
        let timeDelta = !trimmed || flags & 16 != 0
        var firstMicroseconds: Int64 = 0
        var times: [Double] = []
        if mode == .raw {
            guard (bytes.count - cursor) / 8 >= count else {
                throw DecodeError(code: .truncated, message: "record ends inside its raw times")
            }
            times.reserveCapacity(count)
            for _ in 0..<count { times.append(try SampleChunkCodec.readDouble(bytes, &cursor)) }
        } else {
            let delta = timeDelta ? SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(bytes, &cursor)) : 0
            let predicted = predictedMicroseconds(at: firstIndex)
            let (sum, overflow) = predicted.addingReportingOverflow(delta)
            if newStep { step = try SampleChunkCodec.readDouble(bytes, &cursor) }
            guard !overflow, sum.magnitude <= MicrosecondLine.limit.magnitude, step.isFinite else {
                throw DecodeError(code: .malformed, message: "microsecond time base out of range")
            }
            firstMicroseconds = sum
        }

        var coder = try RangeDecoder(bytes: bytes, start: cursor, leadingZero: false, zeroPadded: trimmed)
        var samples: [IndexedSample] = []
        samples.reserveCapacity(min(count, 1 << 16))
        var micro = [Int64](repeating: 0, count: SampleChunkCodec.blockLength)
        var xs = [Int16](repeating: 0, count: SampleChunkCodec.blockLength)
        var ys = xs
        var zs = xs
        var indices = gaps.indices(from: firstIndex)
        var index = firstIndex
        while samples.count < count {
            let length = min(SampleChunkCodec.blockLength, count - samples.count)
            for offset in 0..<length {
                micro[offset] =
                    mode == .microseconds ? SampleChunkCodec.unzigzag(try time.decode(&coder)) : 0
            }
            try Self.decode(length, &x, &xs, &coder)
            try Self.decode(length, &y, &ys, &coder)
            try Self.decode(length, &z, &zs, &coder)
            for offset in 0..<length {
                let position = samples.count
                index = indices.index(at: position)
                let t: Double
                if mode == .raw {
                    t = times[position]
                } else {
                    guard
                        let base = MicrosecondLine.base(
                            first: firstMicroseconds, step: step, offset: index &- firstIndex)
                    else { throw DecodeError(code: .malformed, message: "sample time beyond the line's range") }
                    let (value, overflow) = base.addingReportingOverflow(micro[offset])
                    guard !overflow, value.magnitude <= MicrosecondLine.limit.magnitude else {
                        throw DecodeError(code: .malformed, message: "sample time beyond the line's range")
                    }
                    t = Double(value) / 1e6
                    lastMicroseconds = value
                }
                let raw = RawAcceleration(x: xs[offset], y: ys[offset], z: zs[offset])
                samples.append(IndexedSample(index: index, t: t, raw: raw))
            }
        }
        guard coder.isAtEnd else {
            throw DecodeError(code: .malformed, message: "bytes left over after the record's last sample")
        }
        if mode == .raw { lastMicroseconds = 0 }
        lastIndex = index
        return samples
    }

    /// Where the previous record's line puts the time of `index`: the next record's first time is
    /// coded as the difference (0 when the cadence holds).
    func predictedMicroseconds(at index: Int64) -> Int64 {
        MicrosecondLine.base(first: lastMicroseconds, step: step, offset: index &- lastIndex) ?? lastMicroseconds
    }

    /// The clip decision's context and limit for a count after `previous`, predicted `prediction`.
    @inline(__always) static func saturation(previous: Int32, prediction: Int32) -> (context: Int, limit: Int32)? {
        if previous == top { return (0, top) }
        if previous == bottom { return (1, bottom) }
        if prediction >= top { return (2, top) }
        if prediction <= bottom { return (3, bottom) }
        return nil
    }

    @inline(__always) static func encode(_ values: ArraySlice<Int32>, _ axis: inout Axis, _ coder: inout RangeEncoder) {
        let predictor = SampleChunkCodec.bestFormat2Predictor(values, axis.coding.history)
        var node = 1
        for shift in (0..<3).reversed() {
            let bit = (predictor >> shift) & 1
            coder.encode(bit, &axis.coding.selection[node])
            node = node << 1 | bit
        }
        for value in values {
            let history = axis.coding.history
            let prediction = history.predict(predictor)
            if let (context, limit) = saturation(previous: history.values[0], prediction: prediction) {
                let saturated = value == limit
                coder.encode(saturated ? 0 : 1, &axis.saturation[context])
                if saturated {
                    axis.coding.history.push(value)
                    continue
                }
            }
            let clamped = min(max(prediction, bottom), top)
            axis.coding.model.encode(UInt64(SampleChunkCodec.zigzag32(value &- clamped)), &coder)
            axis.coding.history.push(value)
        }
    }

    @inline(__always) static func decode(
        _ length: Int, _ axis: inout Axis, _ out: inout [Int16], _ coder: inout RangeDecoder
    ) throws(DecodeError) {
        var node = 1
        for _ in 0..<3 { node = node << 1 | (try coder.decode(&axis.coding.selection[node])) }
        let predictor = node - 8
        for offset in 0..<length {
            let history = axis.coding.history
            let prediction = history.predict(predictor)
            if let (context, limit) = saturation(previous: history.values[0], prediction: prediction),
                try coder.decode(&axis.saturation[context]) == 0
            {
                out[offset] = Int16(truncatingIfNeeded: limit)
                axis.coding.history.push(limit)
                continue
            }
            let clamped = min(max(prediction, bottom), top)
            let coded = try axis.coding.model.decode(&coder)
            // The class limit keeps `coded` below 2^21, so the sum cannot overflow.
            let value = clamped &+ SampleChunkCodec.unzigzag32(UInt32(truncatingIfNeeded: coded))
            guard let sample = Int16(exactly: value) else {
                throw DecodeError(code: .malformed, message: "decoded count \(value) is outside Int16")
            }
            out[offset] = sample
            axis.coding.history.push(value)
        }
    }
}
