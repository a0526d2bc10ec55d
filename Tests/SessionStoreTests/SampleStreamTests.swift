// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// Segment formats 2 and 3: the samples of a segment's records continue one coder (`SampleStream`).
@Suite("Tail segment formats 2 and 3: one coder across records")
struct SampleStreamTests {
    static let session = UUID(uuidString: "7A1C3E55-0B2D-4E6F-8A9B-1C2D3E4F5A6B")!

    /// Records of `sizes` samples cut from `samples` in order.
    static func records(_ samples: [IndexedSample], sizes: [Int]) -> [SessionTailSegment.Record] {
        var start = 0
        return sizes.enumerated().map { ordinal, size in
            defer { start += size }
            return SessionTailSegment.Record(
                ordinal: Int64(ordinal), samples: Array(samples[start..<start + size]), events: [], counts: nil)
        }
    }

    /// Every case the coder must carry across records: clipped runs at both limits, Int16 extremes
    /// alternating, index gaps and jumps, times off the cadence, times that are not whole
    /// microseconds, and records without samples.
    static var awkward: [IndexedSample] {
        var samples = SyntheticMotion.training(count: 700, seed: 21, firstIndex: 5_000)
        for position in 100..<160 { samples[position].raw.x = position < 130 ? .max : .min }
        for position in 160..<200 {
            samples[position].raw = RawAcceleration(x: .max, y: .min, z: position % 2 == 0 ? .max : .min)
        }
        for position in 300..<700 { samples[position].index += 40 }
        samples[450].t += 0.000_013
        for position in 500..<530 { samples[position].t += 1e-9 }
        for position in 600..<700 { samples[position].index += 1_000_000 + Int64(position % 3) }
        return samples
    }

    @Test("samples round-trip across records of any size, with every awkward case, and the stream state matches")
    func roundTrip() throws {
        let samples = Self.awkward
        let sizes = [1, 3, 0, 96, 100, 97, 3, 0, 100, 200, 100]
        let records = Self.records(samples, sizes: sizes)
        let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 3), records)
        let segment = try SessionTailSegment(parsing: bytes)
        #expect(segment.header.version == 3)
        #expect(segment.records.count == sizes.count)
        #expect(segment.validLength == bytes.count)
        let decoded = segment.samples
        #expect(decoded.count == samples.count)
        for (a, b) in zip(decoded, samples) {
            #expect(a.index == b.index && a.raw == b.raw && a.t.bitPattern == b.t.bitPattern)
        }
        var encoder = SampleStream()
        for record in records { var scratch: [UInt8] = []; encoder.encode(record.samples, into: &scratch) }
        #expect(segment.stream == encoder, "the reader ends where the writer did, so appends can continue")
    }

    @Test("overwriting a stream's state in place equals assigning it, and codes the next record alike")
    func overwriteInPlace() {
        let samples = Self.awkward
        var ahead = SampleStream()
        var behind = SampleStream()
        var bytes: [UInt8] = []
        ahead.encode(Array(samples[0..<300]), into: &bytes)
        behind.encode(Array(samples[300..<350]), into: &bytes)
        #expect(ahead != behind)
        behind.overwrite(with: ahead)
        #expect(behind == ahead)
        var fromAssigned = ahead
        var fromOverwritten = behind
        var assignedBytes: [UInt8] = []
        var overwrittenBytes: [UInt8] = []
        fromAssigned.encode(Array(samples[300..<400]), into: &assignedBytes)
        fromOverwritten.encode(Array(samples[300..<400]), into: &overwrittenBytes)
        #expect(overwrittenBytes == assignedBytes)
        #expect(fromOverwritten == fromAssigned)
        #expect(behind == ahead, "the source is untouched by the copy's later coding")
    }

    @Test("cut anywhere (at every record boundary and inside every record) a segment keeps exactly its whole records")
    func everyCut() throws {
        let samples = SyntheticMotion.trainingSession(count: 600, seed: 5)
        let records = Self.records(samples, sizes: [100, 100, 100, 100, 100, 100])
        var bytes: [UInt8] = []
        SessionTailSegment.Header(session: Self.session, chunk: 0).encode(into: &bytes)
        var stream = SampleStream()
        var ends: [Int] = []
        for record in records {
            record.encode(stream: &stream, into: &bytes)
            ends.append(bytes.count)
        }
        for cut in SessionTailSegment.headerLength...bytes.count {
            let segment = try SessionTailSegment(parsing: Array(bytes[..<cut]))
            let whole = ends.filter { $0 <= cut }.count
            #expect(segment.records == Array(records.prefix(whole)), "cut at \(cut)")
            #expect(segment.validLength == (whole == 0 ? SessionTailSegment.headerLength : ends[whole - 1]))
            #expect(sameSamples(segment.samples, samples.prefix(whole * 100)), "cut at \(cut)")
        }
    }

    @Test("a writer resumed after a cut continues the coder: the segment reads back whole")
    func resumeAfterCut() throws {
        let samples = SyntheticMotion.trainingSession(count: 500, seed: 8)
        let records = Self.records(samples, sizes: [100, 100, 100, 100, 100])
        let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 0), records)
        // A crash tore the fourth record: the recorder resumes from the three whole ones.
        let three = SessionTailSegment.encode(
            SessionTailSegment.Header(session: Self.session, chunk: 0), Array(records[..<3]))
        var torn = try SessionTailSegment(parsing: Array(bytes[..<(three.count + 9)]))
        #expect(torn.records.count == 3)
        var resumed = Array(bytes[..<torn.validLength])
        for record in records[3...] { record.encode(stream: &torn.stream, into: &resumed) }
        #expect(resumed == bytes)
    }

    @Test("keeping the coder across records costs about what one chunk of the same samples costs")
    func sizeNearOneChunk() throws {
        let samples = SyntheticMotion.trainingSession(count: 30_000, seed: 13)
        let records = Self.records(samples, sizes: Array(repeating: 100, count: 300))
        let segment = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 0), records)
        let chunk = SampleChunkCodec.encode(samples)
        var perRecordChunks = 0
        for record in records { perRecordChunks += SampleChunkCodec.encode(record.samples).count }
        // Each record adds a frame (8 bytes), its ordinal, lengths, flags and the coder's flush.
        #expect(Double(segment.count) < Double(chunk.count) * 1.08)
        #expect(Double(segment.count) < Double(perRecordChunks) * 0.85)
    }

    @Test("a clipped run costs next to nothing: the saturation decision replaces the residual")
    func clippedRuns() throws {
        var samples = SyntheticMotion.training(count: 3_000, seed: 4)
        for position in samples.indices where position % 100 < 40 {
            samples[position].raw = RawAcceleration(x: .max, y: .min, z: .max)
        }
        var withoutClipping = samples
        for position in samples.indices where position % 100 < 40 {
            withoutClipping[position].raw = RawAcceleration(x: 32_000, y: -32_000, z: 32_000)
        }
        let records = Self.records(samples, sizes: Array(repeating: 100, count: 30))
        let clipped = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 0), records)
        let constant = SessionTailSegment.encode(
            SessionTailSegment.Header(session: Self.session, chunk: 0),
            Self.records(withoutClipping, sizes: Array(repeating: 100, count: 30)))
        #expect(try SessionTailSegment(parsing: clipped).samples == samples)
        // A constant run at a limit is at most as dear as the same run off the limit.
        #expect(clipped.count <= constant.count)
    }

    @Test(
        "a cut or padded sample section is refused or reads as other samples, never trapped on (the frame's CRC refuses it)"
    )
    func corrupt() {
        let samples = Self.awkward
        var stream = SampleStream()
        var bytes: [UInt8] = []
        stream.encode(samples, into: &bytes)
        // A format-3 range code may end early (missing bytes read as zeros), so a cut inside it
        // can decode; it can never decode to the same samples.
        for cut in 0..<bytes.count {
            var reader = SampleStream()
            let decoded = try? reader.decode(Array(bytes[..<cut]))
            #expect(decoded.map { !sameSamples($0, samples[...]) } ?? true, "cut at \(cut)")
        }
        var reader = SampleStream()
        // The encoder never ends a section on a 0: a padded one is refused.
        #expect(throws: SampleChunkCodec.DecodeError.self) { try reader.decode(bytes + [0]) }
        // A byte past what the code needs may read as the same samples (the frame's CRC is what
        // refuses damage); it never traps and never reads as other samples without being refused.
        reader = SampleStream()
        let extended = try? reader.decode(bytes + [1])
        #expect(extended.map { sameSamples($0, samples[...]) } ?? true)
    }

    @Test("the short flush reads back every decision and saves at least 3 of the full flush's bytes")
    func shortFlush() throws {
        var random = SeededRandom(seed: 77)
        for length in [0, 1, 2, 7, 31, 100, 1_000, 5_000] {
            var probabilities = [BitProbability](repeating: evenBitProbability, count: 4)
            var full = RangeEncoder(reservingBytes: 64)
            var short = RangeEncoder(reservingBytes: 64)
            var bits: [Int] = []
            var raws: [UInt64] = []
            for step in 0..<length {
                // Skewed decisions in four contexts, and a raw number every few of them.
                let bit = random.next() % 8 < UInt64(1 + step % 4) ? 1 : 0
                bits.append(bit)
                var copy = probabilities
                full.encode(bit, &probabilities[step % 4])
                short.encode(bit, &copy[step % 4])
                if step % 5 == 0 {
                    let raw = random.next() & 0x3FF
                    raws.append(raw)
                    full.encodeRaw(raw, bits: 10)
                    short.encodeRaw(raw, bits: 10)
                }
            }
            var fullBytes: [UInt8] = []
            full.finish(into: &fullBytes, leadingZero: false)
            var shortBytes: [UInt8] = []
            short.finishTrimmed(into: &shortBytes)
            #expect(shortBytes.count + 3 <= fullBytes.count, "\(length) decisions")
            #expect(shortBytes.last != 0)
            for (bytes, padded) in [(fullBytes, false), (shortBytes, true)] {
                var decoder = try RangeDecoder(bytes: bytes, start: 0, leadingZero: false, zeroPadded: padded)
                var states = [BitProbability](repeating: evenBitProbability, count: 4)
                var decodedBits: [Int] = []
                var decodedRaws: [UInt64] = []
                for step in 0..<length {
                    decodedBits.append(try decoder.decode(&states[step % 4]))
                    if step % 5 == 0 { decodedRaws.append(try decoder.decodeRaw(bits: 10)) }
                }
                #expect(decodedBits == bits && decodedRaws == raws)
                #expect(decoder.isAtEnd)
            }
        }
    }

    @Test("a record that continues the last index and the time line spends two bytes before its range code")
    func shortHeader() throws {
        let samples = SyntheticMotion.trainingSession(count: 300, seed: 3)
        var writer = SampleStream()
        var reader = SampleStream()
        var sizes: [Int] = []
        for start in stride(from: 0, to: 300, by: 100) {
            let part = Array(samples[start..<start + 100])
            var section: [UInt8] = []
            writer.encode(part, into: &section)
            // Count (1 byte for 100) and the time byte: bit 3 (index fields) and bit 4 (time delta) clear.
            #expect(section[1] & (8 | 16) == 0 || start == 0)
            sizes.append(section.count)
            #expect(sameSamples(try reader.decode(section), part[...]))
        }
        // The first record states its step (a double); the next ones continue it.
        var first = SampleStream()
        var firstSection: [UInt8] = []
        first.encode(Array(samples[0..<100]), into: &firstSection)
        #expect(firstSection[1] & 4 == 4)
        #expect(sizes[0] == firstSection.count)
    }

    @Test("adversarial inputs round-trip record by record: all clipped, alternating extremes, counter gaps")
    func adversarial() throws {
        var cases: [[IndexedSample]] = []
        func stored(_ raws: [RawAcceleration], indices: [Int64]? = nil) -> [IndexedSample] {
            raws.enumerated().map { position, raw in
                let index = indices?[position] ?? Int64(position)
                return IndexedSample(index: index, t: Double(index) / 100, raw: raw)
            }
        }
        cases.append(stored(Array(repeating: RawAcceleration(x: .max, y: .min, z: .max), count: 1_000)))
        cases.append(
            stored(
                (0..<1_000).map { position in
                    position % 2 == 0
                        ? RawAcceleration(x: .max, y: .min, z: .max) : RawAcceleration(x: .min, y: .max, z: .min)
                }))
        cases.append(stored(Array(repeating: RawAcceleration(x: 0, y: 0, z: 0), count: 1_000)))
        var gapped = Int64(0)
        cases.append(
            stored(
                (0..<1_000).map { RawAcceleration(x: Int16($0 % 7), y: -1, z: Int16(truncatingIfNeeded: $0 &* 977)) },
                indices: (0..<1_000).map { position in
                    gapped += position % 13 == 0 ? 1 + Int64(position % 5) * 1_000 : 1
                    return gapped
                }))
        for samples in cases {
            let records = Self.records(samples, sizes: [1, 99, 100, 300, 500])
            let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 0), records)
            let segment = try SessionTailSegment(parsing: bytes)
            #expect(segment.records.count == records.count)
            #expect(sameSamples(segment.samples, samples[...]))
        }
    }
}
