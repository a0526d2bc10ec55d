// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

@Suite("Sample chunk codec")
struct SampleChunkCodecTests {
    /// Encodes in `version` (the default one when nil).
    func encode(_ samples: [IndexedSample], version: UInt8? = nil) -> [UInt8] {
        guard let version else { return SampleChunkCodec.encode(samples) }
        if version == 1 { return SampleChunkCodec.encodeFormat1(samples) }
        var out: [UInt8] = []
        SampleChunkCodec.encode(samples, version: version, into: &out)
        return out
    }

    /// Counts and indices must come back bit for bit; times within the microsecond quantum.
    func expectRoundTrip(
        _ samples: [IndexedSample], version: UInt8? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let blob = encode(samples, version: version)
        #expect(blob.first == version ?? SampleChunkCodec.version, sourceLocation: sourceLocation)
        let decoded = try SampleChunkCodec.decode(blob)
        #expect(decoded.count == samples.count, sourceLocation: sourceLocation)
        for (a, b) in zip(samples, decoded) {
            guard a.raw == b.raw, a.index == b.index, abs(a.t - b.t) <= 1e-6 || a.t.bitPattern == b.t.bitPattern else {
                Issue.record("sample \(a) decoded as \(b)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// 100 Hz samples from index 0 with these counts.
    static func samples(_ counts: [RawAcceleration], firstIndex: Int64 = 0) -> [IndexedSample] {
        counts.enumerated().map { n, raw in
            IndexedSample(index: firstIndex + Int64(n), t: Double(n) / 100, raw: raw)
        }
    }

    @Test("new chunks are format 3; formats 1 and 2 are still read", arguments: [UInt8(1), 2, 3])
    func versions(version: UInt8) throws {
        #expect(SampleChunkCodec.version == 3)
        #expect(SampleChunkCodec.readableVersions == 1...3)
        try expectRoundTrip(SyntheticMotion.trainingSession(count: 3000, seed: 21), version: version)
    }

    @Test("the header: version byte, count, first index, gaps, time mode per version")
    func header() throws {
        // Times exactly on the line: format 2 keeps no time residuals (mode 2), format 1 always does.
        let onLine = Self.samples(
            [RawAcceleration(x: 1, y: 2, z: 3), RawAcceleration(x: 4, y: 5, z: 6)], firstIndex: 7)
        let v2 = encode(onLine, version: 2)
        // version 2, count 2, first index zigzag(7) = 14, no gaps, mode 2, first time 0.0, step 0.01.
        #expect(Array(v2.prefix(5)) == [2, 2, 14, 0, 2])
        #expect(Array(v2[5..<21]) == [0, 0, 0, 0, 0, 0, 0, 0] + [0x7B, 0x14, 0xAE, 0x47, 0xE1, 0x7A, 0x84, 0x3F])
        #expect(v2[21] == 0, "the range-coded stream starts with a zero byte")
        let v1 = encode(onLine, version: 1)
        #expect(Array(v1.prefix(5)) == [1, 2, 14, 0, 0])
        // Format 3 keeps whole microseconds as integers: mode 4 (on the line), first time zigzag(0)
        // µs, step 10 000.0 µs.
        let v3 = encode(onLine)
        #expect(Array(v3.prefix(6)) == [3, 2, 14, 0, 4, 0])
        #expect(Array(v3[6..<14]) == [0, 0, 0, 0, 0, 0x88, 0xC3, 0x40])
        #expect(v3[14] == 0, "the range-coded stream starts with a zero byte")
        // Jittered times: mode 0 in both; times that are no line: mode 1 (raw doubles).
        // (The line runs through the first and last time, so a middle one is off it.)
        var jittered = Self.samples(Array(repeating: RawAcceleration(x: 1, y: 2, z: 3), count: 3))
        jittered[1].t = StoreTime.microseconds(jittered[1].t + 0.000_2)
        #expect(encode(jittered, version: 2)[4] == 0)
        #expect(encode(jittered)[4] == 3, "whole microseconds off the line: mode 3")
        try expectRoundTrip(jittered)
        jittered[1].t += 0.000_000_4
        #expect(encode(jittered)[4] == 0, "a time between microseconds: format 3 falls back to mode 0")
        try expectRoundTrip(jittered)
        var raw = onLine
        raw[1].t = .nan
        #expect(encode(raw)[4] == 1)
        #expect(encode(raw, version: 1)[4] == 1)
        #expect(try SampleChunkCodec.decode(encode(raw))[1].t.isNaN)
        // A gap: count 2, gap count 1 at position 1, zigzag(12 − 7 − 1) = 8.
        let gapped = [onLine[0], IndexedSample(index: 12, t: 0.05, raw: onLine[1].raw)]
        #expect(Array(encode(gapped, version: 2).prefix(7)) == [2, 2, 14, 1, 1, 8, 2])
        #expect(Array(encode(gapped).prefix(7)) == [3, 2, 14, 1, 1, 8, 4])
    }

    @Test("the format-1 fixture written by the previous encoder decodes to its samples")
    func version1Fixture() throws {
        let blob = [UInt8](hex: SampleChunkFixtures.version1)
        #expect(blob.count == 308)
        #expect(blob.first == 1)
        let decoded = try SampleChunkCodec.decode(blob)
        #expect(sameSamples(decoded, SampleChunkFixtures.samples))
        // The format-1 encoder kept for fixtures writes the same bytes.
        #expect(encode(SampleChunkFixtures.samples, version: 1) == blob)
        // Format 2 holds the same samples in fewer bytes.
        let v2 = encode(SampleChunkFixtures.samples)
        #expect(v2.count < blob.count)
        #expect(sameSamples(try SampleChunkCodec.decode(v2), SampleChunkFixtures.samples))
    }

    @Test("the format-2 fixture: the format-2 encoder's output is stable and decodes to its samples")
    func version2Fixture() throws {
        let blob = [UInt8](hex: SampleChunkFixtures.version2)
        #expect(encode(SampleChunkFixtures.samples, version: 2) == blob)
        #expect(sameSamples(try SampleChunkCodec.decode(blob), SampleChunkFixtures.samples))
    }

    @Test("the format-3 fixture: the encoder's output is stable and gives every time back bit for bit")
    func version3Fixture() throws {
        let blob = [UInt8](hex: SampleChunkFixtures.version3)
        #expect(encode(SampleChunkFixtures.samples) == blob)
        let decoded = try SampleChunkCodec.decode(blob)
        #expect(decoded == SampleChunkFixtures.samples)
        #expect(decoded.map(\.t.bitPattern) == SampleChunkFixtures.samples.map(\.t.bitPattern))
    }

    @Test(
        "whole-microsecond times come back bit for bit wherever the chunk is cut",
        arguments: [8192, 0, 301])
    func microsecondTimesAnyCut(before: Int) throws {
        // Three samples 20 001 µs apart end to end after `before` regular ones: cut as one chunk,
        // the middle one sits exactly half a microsecond from a line in seconds, the tie that
        // format 2 rounds either way depending on where the chunk starts.
        var samples = (0..<before).map {
            IndexedSample(index: Int64($0), t: Double($0) / 100, raw: .init(x: 0, y: 0, z: 0))
        }
        let base = Double(before) / 100
        for (offset, micro) in [0, 10_000, 20_001].enumerated() {
            samples.append(
                IndexedSample(
                    index: Int64(before + offset), t: StoreTime.microseconds(base + Double(micro) * 1e-6),
                    raw: .init(x: 1, y: 2, z: 3)))
        }
        // Jittered arrival times, rounded to the microsecond as the gateway records them.
        var random = SeededRandom(seed: UInt64(before) + 5)
        for n in 0..<300 {
            let t = base + 0.03 + Double(n) / 100 + (random.unit() - 0.5) * 0.004
            samples.append(
                IndexedSample(index: Int64(before + 3 + n), t: StoreTime.microseconds(t), raw: .init(x: 4, y: 5, z: 6)))
        }
        #expect(SampleChunkCodec.keepsTimesExactly(samples))
        let still = RawAcceleration(x: 0, y: 0, z: 0)
        #expect(!SampleChunkCodec.keepsTimesExactly([IndexedSample(index: 0, t: 1e10, raw: still)]))
        #expect(!SampleChunkCodec.keepsTimesExactly([IndexedSample(index: 0, t: 0.000_000_4, raw: still)]))
        for length in [1, 2, 3, 7, 100, 2048, 8192] {
            var start = 0
            while start < samples.count {
                let chunk = Array(samples[start..<min(start + length, samples.count)])
                let decoded = try SampleChunkCodec.decode(SampleChunkCodec.encode(chunk))
                #expect(decoded.map(\.t.bitPattern) == chunk.map(\.t.bitPattern), "cut at \(start), length \(length)")
                #expect(decoded == chunk)
                start += length
            }
        }
    }

    @Test("empty and single-sample chunks", arguments: [UInt8(1), 2, 3])
    func smallChunks(version: UInt8) throws {
        try expectRoundTrip([], version: version)
        try expectRoundTrip(
            [IndexedSample(index: 7, t: 0.07, raw: RawAcceleration(x: -1, y: 2, z: 16384))], version: version)
        for value: Int16 in [.min, .max, 0] {
            try expectRoundTrip(
                [IndexedSample(index: -3, t: -1, raw: RawAcceleration(x: value, y: value, z: value))],
                version: version)
        }
    }

    @Test("uniformly random counts, random lengths", arguments: [UInt8(1), 2, 3])
    func randomCounts(version: UInt8) throws {
        var random = SeededRandom(seed: 42)
        for round in 0..<40 {
            let count = Int(random.next() % 700)
            let samples = (0..<count).map { n in
                IndexedSample(
                    index: Int64(round * 1000 + n), t: Double(n) * 0.01,
                    raw: RawAcceleration(
                        x: Int16(truncatingIfNeeded: random.next()), y: Int16(truncatingIfNeeded: random.next()),
                        z: Int16(truncatingIfNeeded: random.next())))
            }
            try expectRoundTrip(samples, version: version)
        }
    }

    /// Signals that stress a predictive coder: clipped runs, full-scale steps, constant extremes,
    /// alternation, slow ramps, noise of every size, and mixtures of them within one chunk.
    static func adversarial(_ random: inout SeededRandom, count: Int) -> [RawAcceleration] {
        var axes: [[Int16]] = []
        for _ in 0..<3 {
            var values: [Int16] = []
            values.reserveCapacity(count)
            while values.count < count {
                let run = min(count - values.count, 1 + Int(random.next() % 90))
                let level = Int16(truncatingIfNeeded: random.next())
                let sigma = [0.0, 1, 3, 25, 300, 4000, 40_000][Int(random.next() % 7)]
                switch random.next() % 7 {
                case 0: values += Array(repeating: .max, count: run)
                case 1: values += Array(repeating: .min, count: run)
                case 2: values += (0..<run).map { $0 % 2 == 0 ? Int16.max : .min }
                case 3: values += Array(repeating: level, count: run)
                case 4: values += (0..<run).map { _ in Int16(truncatingIfNeeded: random.next()) }
                case 5:
                    let slope = Double(Int64(random.next() % 2001) - 1000)
                    values += (0..<run).map { SyntheticMotion.clip(Double(level) + slope * Double($0)) }
                default:
                    values += (0..<run).map { _ in
                        SyntheticMotion.clip(Double(level) + random.boxMullerGaussian() * sigma)
                    }
                }
            }
            axes.append(values)
        }
        return (0..<count).map { RawAcceleration(x: axes[0][$0], y: axes[1][$0], z: axes[2][$0]) }
    }

    @Test("adversarial signals: clipped runs, alternation, steps, every noise level", arguments: [UInt8(1), 2, 3])
    func adversarialSignals(version: UInt8) throws {
        var random = SeededRandom(seed: 0xADD)
        for _ in 0..<60 {
            let count = Int(random.next() % 1500)
            try expectRoundTrip(Self.samples(Self.adversarial(&random, count: count)), version: version)
        }
    }

    @Test("Int16.min/max alternation and constant extremes: the worst case still decodes")
    func extremes() throws {
        let alternating = (0..<500).map { n in
            let high = n % 2 == 0
            return IndexedSample(
                index: Int64(n), t: Double(n) / 100,
                raw: RawAcceleration(
                    x: high ? .max : .min, y: high ? .min : .max, z: n % 3 == 0 ? .min : .max))
        }
        try expectRoundTrip(alternating)
        // Larger than raw is allowed for adversarial input, but stays bounded.
        #expect(SampleChunkCodec.encode(alternating).count < alternating.count * 6 * 2)
        for value: Int16 in [.min, .max, 0, -1] {
            try expectRoundTrip(
                (0..<100).map {
                    IndexedSample(index: Int64($0), t: Double($0), raw: RawAcceleration(x: value, y: value, z: value))
                })
        }
    }

    @Test("a long constant chunk: far below a byte per sample, and its count passes the header bound")
    func longConstant() throws {
        let samples = Self.samples(Array(repeating: RawAcceleration(x: 100, y: -16384, z: 5), count: 100_000))
        let blob = SampleChunkCodec.encode(samples)
        #expect(blob.count * 100 < samples.count * 6)
        try expectRoundTrip(samples)
    }

    @Test("white noise over the full range costs about raw size in format 2")
    func whiteNoiseSize() throws {
        var random = SeededRandom(seed: 5)
        let counts = (0..<8192).map { _ in
            RawAcceleration(
                x: Int16(truncatingIfNeeded: random.next()), y: Int16(truncatingIfNeeded: random.next()),
                z: Int16(truncatingIfNeeded: random.next()))
        }
        let blob = SampleChunkCodec.encode(Self.samples(counts))
        #expect(Double(blob.count) / 8192 < 6.3, "white noise took \(Double(blob.count) / 8192) bytes per sample")
        try expectRoundTrip(Self.samples(counts))
    }

    @Test("encoding is deterministic")
    func deterministic() {
        let samples = SyntheticMotion.trainingSession(count: 5000, seed: 8)
        #expect(SampleChunkCodec.encode(samples) == SampleChunkCodec.encode(samples))
    }

    @Test("index gaps, a backwards index, Int64 extremes and irregular times", arguments: [UInt8(1), 2, 3])
    func indicesAndTimes(version: UInt8) throws {
        var samples = SyntheticMotion.training(count: 300, seed: 3, firstIndex: 1_000_000)
        samples.removeSubrange(40..<55)  // lost samples
        samples[100].index = samples[99].index  // a repeated index
        samples[200].index -= 500  // a backwards jump
        try expectRoundTrip(samples, version: version)
        try expectRoundTrip(
            [
                IndexedSample(index: .max, t: 1, raw: RawAcceleration(x: 1, y: 1, z: 1)),
                IndexedSample(index: .min, t: 2, raw: RawAcceleration(x: 2, y: 2, z: 2)),
                IndexedSample(index: 0, t: 3, raw: RawAcceleration(x: 3, y: 3, z: 3)),
            ], version: version)
        // Jittery arrival times: kept to the microsecond.
        var random = SeededRandom(seed: 9)
        let jittered = SyntheticMotion.rest(count: 500, seed: 4).map { sample -> IndexedSample in
            var sample = sample
            sample.t += (random.unit() - 0.5) * 0.004
            return sample
        }
        try expectRoundTrip(jittered, version: version)
        // Residuals near the limit of the linear mode (about 11.5 days off the line).
        var far = SyntheticMotion.rest(count: 100, seed: 6)
        far[50].t += 999_999.0
        far[51].t -= 999_999.0
        try expectRoundTrip(far, version: version)
        // Times that cannot be a line plus microseconds fall back to raw doubles, exactly.
        var odd = SyntheticMotion.rest(count: 50, seed: 5)
        odd[10].t = .infinity
        odd[20].t = 1e300
        let decoded = try SampleChunkCodec.decode(encode(odd, version: version))
        #expect(decoded.map(\.t.bitPattern) == odd.map(\.t.bitPattern))
        #expect(decoded.map(\.raw) == odd.map(\.raw))
    }

    /// Bytes per sample of `samples` stored in 2048-sample chunks, checking each round trip.
    func bytesPerSample(_ samples: [IndexedSample]) throws -> Double {
        var bytes = 0
        for start in stride(from: 0, to: samples.count, by: 2048) {
            let chunk = Array(samples[start..<min(start + 2048, samples.count)])
            bytes += SampleChunkCodec.encode(chunk).count
            try expectRoundTrip(chunk)
        }
        return Double(bytes) / Double(samples.count)
    }

    @Test("a training session (bouts and pauses): lossless and at most 2.6 bytes per sample")
    func trainingSessionSize() throws {
        let perSample = try bytesPerSample(SyntheticMotion.trainingSession(count: 60_000, seed: 11))
        #expect(perSample <= 2.6, "a training session took \(perSample) bytes per sample")
    }

    @Test("continuous training motion without pauses: lossless and at most 3 bytes per sample")
    func continuousMotionSize() throws {
        let perSample = try bytesPerSample(SyntheticMotion.training(count: 60_000, seed: 11))
        #expect(perSample <= 3.0, "continuous motion took \(perSample) bytes per sample")
    }

    @Test("vigorous motion with strong 4–8 Hz content: lossless and well under raw size")
    func vigorousMotionSize() throws {
        let samples = SyntheticMotion.training(
            count: 60_000, seed: 11, amplitudes: SyntheticMotion.vigorousAmplitudes)
        let perSample = try bytesPerSample(samples)
        #expect(perSample <= 3.7, "vigorous motion took \(perSample) bytes per sample")
    }

    @Test("a sensor at rest compresses well below training motion")
    func restSize() throws {
        let samples = SyntheticMotion.rest(count: 20_480, seed: 12)
        let blob = SampleChunkCodec.encode(samples)
        try expectRoundTrip(samples)
        let perSample = Double(blob.count) / Double(samples.count)
        #expect(perSample <= 1.6, "rest took \(perSample) bytes per sample")
    }

    /// Decodes `blob`, which must either throw `DecodeError` or return; anything else fails the test.
    @discardableResult
    func decodeOrThrow(_ blob: [UInt8]) -> Bool {
        do {
            _ = try SampleChunkCodec.decode(blob)
            return true
        } catch {
            return false
        }
    }

    @Test("truncated, corrupted, padded and unknown-version blobs throw, never trap", arguments: [UInt8(1), 2, 3])
    func malformed(version: UInt8) throws {
        let blob = encode(SyntheticMotion.training(count: 200, seed: 13), version: version)
        #expect(throws: SampleChunkCodec.DecodeError.self) { try SampleChunkCodec.decode([]) }
        for unknown: UInt8 in [0, 4, 255] {
            var future = blob
            future[0] = unknown
            #expect { try SampleChunkCodec.decode(future) } throws: { error in
                (error as? SampleChunkCodec.DecodeError)?.code == .unknownVersion
            }
        }
        // Every truncation throws: both formats need their last byte.
        for cut in 0..<blob.count {
            #expect(throws: SampleChunkCodec.DecodeError.self) { try SampleChunkCodec.decode(Array(blob.prefix(cut))) }
        }
        // Random byte flips: decoding may succeed with other values or throw, but must not trap.
        var random = SeededRandom(seed: 77)
        var threw = 0
        for _ in 0..<300 {
            var damaged = blob
            for _ in 0..<3 {
                let position = 1 + Int(random.next() % UInt64(damaged.count - 1))
                damaged[position] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            if !decodeOrThrow(damaged) { threw += 1 }
        }
        #expect(threw > 0)
    }

    @Test("format 2: a trailing byte, a stream not starting with zero, a huge count are malformed")
    func malformedFormat2() throws {
        let blob = encode(SyntheticMotion.training(count: 200, seed: 14), version: 2)
        #expect { try SampleChunkCodec.decode(blob + [0]) } throws: { error in
            (error as? SampleChunkCodec.DecodeError)?.code == .malformed
        }
        // The header of 200 on-line samples is 22 bytes (the count takes two); the stream follows.
        #expect(blob[22] == 0)
        var stream = blob
        stream[22] = 1
        #expect { try SampleChunkCodec.decode(stream) } throws: { error in
            (error as? SampleChunkCodec.DecodeError)?.code == .malformed
        }
        // A count no stream of this size can hold: refused before anything is allocated.
        var header: [UInt8] = [2]
        SampleChunkCodec.appendVarint(1 << 40, to: &header)
        #expect { try SampleChunkCodec.decode(header + Array(blob[3...])) } throws: { error in
            (error as? SampleChunkCodec.DecodeError)?.code == .malformed
        }
        // Time mode 2 does not exist in format 1.
        var v1 = encode(SampleChunkFixtures.samples, version: 1)
        #expect(v1[7] == 0)
        v1[7] = 2
        #expect(throws: SampleChunkCodec.DecodeError.self) { try SampleChunkCodec.decode(v1) }
        // The microsecond modes 3 and 4 do not exist before format 3.
        for mode: UInt8 in [3, 4] {
            var v2 = blob
            #expect(v2[5] == 2)
            v2[5] = mode
            #expect(throws: SampleChunkCodec.DecodeError.self) { try SampleChunkCodec.decode(v2) }
        }
    }

    @Test("format 3: a microsecond time base out of range is malformed, never a trap")
    func malformedMicrosecondBase() throws {
        let samples = Self.samples(Array(repeating: RawAcceleration(x: 1, y: 2, z: 3), count: 40), firstIndex: 7)
        let blob = encode(samples)
        // version, count 40, zigzag(7), no gaps, mode 4, first time zigzag(0), step, stream.
        #expect(Array(blob.prefix(6)) == [3, 40, 14, 0, 4, 0])
        func withBase(first: Int64, step: Double) -> [UInt8] {
            var bytes = Array(blob.prefix(5))
            SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(first), to: &bytes)
            SampleChunkCodec.appendDouble(step, to: &bytes)
            return bytes + blob[14...]
        }
        #expect(try SampleChunkCodec.decode(withBase(first: 0, step: 10_000)) == samples)
        for (first, step) in [(Int64.min, 10_000.0), (.max, 10_000), (0, .nan), (0, .infinity), (0, 1e300)] {
            #expect { try SampleChunkCodec.decode(withBase(first: first, step: step)) } throws: { error in
                (error as? SampleChunkCodec.DecodeError)?.code == .malformed
            }
        }
    }

    @Test("random garbage after a valid or random header never traps")
    func garbage() {
        var random = SeededRandom(seed: 0xBAD)
        let valid = SampleChunkCodec.encode(SyntheticMotion.training(count: 100, seed: 15))
        var decoded = 0
        for round in 0..<3000 {
            let length = Int(random.next() % 300)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            switch round % 5 {
            case 0 where length > 0: bytes[0] = 2
            case 1 where length > 0: bytes[0] = 1
            case 3 where length > 0: bytes[0] = 3
            case 2:
                // A valid header and the start of a stream, then garbage.
                let keep = min(valid.count, 21 + Int(random.next() % 16))
                bytes = Array(valid.prefix(keep)) + bytes
            default: break
            }
            if decodeOrThrow(bytes) { decoded += 1 }
        }
        // Garbage is refused (none of these decode today: a range-coded stream must end exactly at
        // the end of the BLOB); what might decode is whatever the bits say, never a trap.
        #expect(decoded <= 30, "\(decoded) of 3000 garbage blobs decoded")
    }
}
