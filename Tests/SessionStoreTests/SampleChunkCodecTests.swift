// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import Testing

@testable import SessionStore

@Suite("Sample chunk codec")
struct SampleChunkCodecTests {
    /// Counts and indices must come back bit for bit; times within the microsecond quantum.
    func expectRoundTrip(_ samples: [StoredSample], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let blob = SampleChunkCodec.encode(samples)
        let decoded = try SampleChunkCodec.decode(blob)
        #expect(decoded.count == samples.count, sourceLocation: sourceLocation)
        for (a, b) in zip(samples, decoded) {
            guard a.raw == b.raw, a.index == b.index, abs(a.t - b.t) <= 1e-6 || a.t.bitPattern == b.t.bitPattern else {
                Issue.record("sample \(a) decoded as \(b)", sourceLocation: sourceLocation)
                return
            }
        }
    }

    @Test("empty and single-sample chunks")
    func smallChunks() throws {
        try expectRoundTrip([])
        try expectRoundTrip([StoredSample(index: 7, t: 0.07, raw: RawAcceleration(x: -1, y: 2, z: 16384))])
    }

    @Test("uniformly random counts, random lengths")
    func randomCounts() throws {
        var random = TestRandom(state: 42)
        for round in 0..<40 {
            let count = Int(random.next() % 700)
            let samples = (0..<count).map { n in
                StoredSample(
                    index: Int64(round * 1000 + n), t: Double(n) * 0.01,
                    raw: RawAcceleration(
                        x: Int16(truncatingIfNeeded: random.next()), y: Int16(truncatingIfNeeded: random.next()),
                        z: Int16(truncatingIfNeeded: random.next())))
            }
            try expectRoundTrip(samples)
        }
    }

    @Test("Int16.min/max alternation and constant extremes: the worst case still decodes")
    func extremes() throws {
        let alternating = (0..<500).map { n in
            let high = n % 2 == 0
            return StoredSample(
                index: Int64(n), t: Double(n) / 100,
                raw: RawAcceleration(
                    x: high ? .max : .min, y: high ? .min : .max, z: n % 3 == 0 ? .min : .max))
        }
        try expectRoundTrip(alternating)
        let blob = SampleChunkCodec.encode(alternating)
        // Larger than raw is allowed for adversarial input, but bounded by the escape (18 bits + 16).
        #expect(blob.count < alternating.count * 6 * 2)
        for value: Int16 in [.min, .max, 0, -1] {
            try expectRoundTrip(
                (0..<100).map {
                    StoredSample(index: Int64($0), t: Double($0), raw: RawAcceleration(x: value, y: value, z: value))
                })
        }
    }

    @Test("index gaps, a backwards index, Int64 extremes and irregular times")
    func indicesAndTimes() throws {
        var samples = SyntheticMotion.training(count: 300, seed: 3, firstIndex: 1_000_000)
        samples.removeSubrange(40..<55)  // lost samples
        samples[100].index = samples[99].index  // a repeated index
        samples[200].index -= 500  // a backwards jump
        try expectRoundTrip(samples)
        try expectRoundTrip([
            StoredSample(index: .max, t: 1, raw: RawAcceleration(x: 1, y: 1, z: 1)),
            StoredSample(index: .min, t: 2, raw: RawAcceleration(x: 2, y: 2, z: 2)),
            StoredSample(index: 0, t: 3, raw: RawAcceleration(x: 3, y: 3, z: 3)),
        ])
        // Jittery arrival times: kept to the microsecond.
        var random = TestRandom(state: 9)
        let jittered = SyntheticMotion.rest(count: 500, seed: 4).map { sample -> StoredSample in
            var sample = sample
            sample.t += (random.unit() - 0.5) * 0.004
            return sample
        }
        try expectRoundTrip(jittered)
        // Times that cannot be a line plus microseconds fall back to raw doubles, exactly.
        var odd = SyntheticMotion.rest(count: 50, seed: 5)
        odd[10].t = .infinity
        odd[20].t = 1e300
        let decoded = try SampleChunkCodec.decode(SampleChunkCodec.encode(odd))
        #expect(decoded.map(\.t.bitPattern) == odd.map(\.t.bitPattern))
        #expect(decoded.map(\.raw) == odd.map(\.raw))
    }

    /// Bytes per sample of `samples` stored in 2048-sample chunks, checking each round trip.
    func bytesPerSample(_ samples: [StoredSample]) throws -> Double {
        var bytes = 0
        for start in stride(from: 0, to: samples.count, by: 2048) {
            let chunk = Array(samples[start..<min(start + 2048, samples.count)])
            bytes += SampleChunkCodec.encode(chunk).count
            try expectRoundTrip(chunk)
        }
        return Double(bytes) / Double(samples.count)
    }

    @Test("a training session (bouts and pauses): lossless and at most 3 bytes per sample")
    func trainingSessionSize() throws {
        let perSample = try bytesPerSample(SyntheticMotion.trainingSession(count: 60_000, seed: 11))
        #expect(perSample <= 3.0, "a training session took \(perSample) bytes per sample")
    }

    @Test("continuous training motion without pauses: lossless and about 3 bytes per sample")
    func continuousMotionSize() throws {
        let perSample = try bytesPerSample(SyntheticMotion.training(count: 60_000, seed: 11))
        #expect(perSample <= 3.3, "continuous motion took \(perSample) bytes per sample")
    }

    @Test("vigorous motion with strong 4–8 Hz content: lossless and well under raw size")
    func vigorousMotionSize() throws {
        let samples = SyntheticMotion.training(
            count: 60_000, seed: 11, amplitudes: SyntheticMotion.vigorousAmplitudes)
        let perSample = try bytesPerSample(samples)
        #expect(perSample <= 4.0, "vigorous motion took \(perSample) bytes per sample")
    }

    @Test("a sensor at rest compresses well below training motion")
    func restSize() throws {
        let samples = SyntheticMotion.rest(count: 20_480, seed: 12)
        let blob = SampleChunkCodec.encode(samples)
        try expectRoundTrip(samples)
        let perSample = Double(blob.count) / Double(samples.count)
        #expect(perSample <= 2.0, "rest took \(perSample) bytes per sample")
    }

    @Test("truncated, corrupted and future-version blobs throw, never trap")
    func malformed() throws {
        let blob = SampleChunkCodec.encode(SyntheticMotion.training(count: 200, seed: 13))
        #expect(throws: SampleChunkCodec.DecodeError.self) { try SampleChunkCodec.decode([]) }
        var future = blob
        future[0] = 2
        #expect { try SampleChunkCodec.decode(future) } throws: { error in
            (error as? SampleChunkCodec.DecodeError)?.code == .unknownVersion
        }
        for cut in [1, 2, 5, 20, blob.count / 2, blob.count - 1] {
            #expect(throws: SampleChunkCodec.DecodeError.self) { try SampleChunkCodec.decode(Array(blob.prefix(cut))) }
        }
        // Random byte flips: decoding may succeed with other values or throw, but must not trap.
        var random = TestRandom(state: 77)
        var threw = 0
        for _ in 0..<300 {
            var damaged = blob
            for _ in 0..<3 {
                let position = 1 + Int(random.next() % UInt64(damaged.count - 1))
                damaged[position] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            do { _ = try SampleChunkCodec.decode(damaged) } catch { threw += 1 }
        }
        #expect(threw > 0)
    }
}
