// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SDUSensor
import Testing

@testable import SessionStore

/// Segment format 2: the samples of a segment's records continue one coder (`SampleStream`).
@Suite("Tail segment format 2: one coder across records")
struct SampleStreamTests {
    static let session = UUID(uuidString: "7A1C3E55-0B2D-4E6F-8A9B-1C2D3E4F5A6B")!

    /// Records of `sizes` samples cut from `samples` in order.
    static func records(_ samples: [StoredSample], sizes: [Int]) -> [TailSegment.Record] {
        var start = 0
        return sizes.enumerated().map { ordinal, size in
            defer { start += size }
            return TailSegment.Record(
                ordinal: Int64(ordinal), samples: Array(samples[start..<start + size]), events: [], counts: nil)
        }
    }

    /// Every case the coder must carry across records: clipped runs at both limits, Int16 extremes
    /// alternating, index gaps and jumps, times off the cadence, times that are not whole
    /// microseconds, and records without samples.
    static var awkward: [StoredSample] {
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
        let bytes = TailSegment.encode(TailSegment.Header(session: Self.session, chunk: 3), records)
        let segment = try TailSegment(parsing: bytes)
        #expect(segment.header.version == 2)
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

    @Test("cut anywhere (at every record boundary and inside every record) a segment keeps exactly its whole records")
    func everyCut() throws {
        let samples = SyntheticMotion.trainingSession(count: 600, seed: 5)
        let records = Self.records(samples, sizes: [100, 100, 100, 100, 100, 100])
        var bytes: [UInt8] = []
        TailSegment.Header(session: Self.session, chunk: 0).encode(into: &bytes)
        var stream = SampleStream()
        var ends: [Int] = []
        for record in records {
            record.encode(session: Self.session, stream: &stream, into: &bytes)
            ends.append(bytes.count)
        }
        for cut in TailSegment.headerLength...bytes.count {
            let segment = try TailSegment(parsing: Array(bytes[..<cut]))
            let whole = ends.filter { $0 <= cut }.count
            #expect(segment.records == Array(records.prefix(whole)), "cut at \(cut)")
            #expect(segment.validLength == (whole == 0 ? TailSegment.headerLength : ends[whole - 1]))
            #expect(sameSamples(segment.samples, samples.prefix(whole * 100)), "cut at \(cut)")
        }
    }

    @Test("a writer resumed after a cut continues the coder: the segment reads back whole")
    func resumeAfterCut() throws {
        let samples = SyntheticMotion.trainingSession(count: 500, seed: 8)
        let records = Self.records(samples, sizes: [100, 100, 100, 100, 100])
        let bytes = TailSegment.encode(TailSegment.Header(session: Self.session, chunk: 0), records)
        // A crash tore the fourth record: the recorder resumes from the three whole ones.
        let three = TailSegment.encode(TailSegment.Header(session: Self.session, chunk: 0), Array(records[..<3]))
        var torn = try TailSegment(parsing: Array(bytes[..<(three.count + 9)]))
        #expect(torn.records.count == 3)
        var resumed = Array(bytes[..<torn.validLength])
        for record in records[3...] { record.encode(session: Self.session, stream: &torn.stream, into: &resumed) }
        #expect(resumed == bytes)
    }

    @Test("keeping the coder across records costs about what one chunk of the same samples costs")
    func sizeNearOneChunk() throws {
        let samples = SyntheticMotion.trainingSession(count: 30_000, seed: 13)
        let records = Self.records(samples, sizes: Array(repeating: 100, count: 300))
        let segment = TailSegment.encode(TailSegment.Header(session: Self.session, chunk: 0), records)
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
        let clipped = TailSegment.encode(TailSegment.Header(session: Self.session, chunk: 0), records)
        let constant = TailSegment.encode(
            TailSegment.Header(session: Self.session, chunk: 0),
            Self.records(withoutClipping, sizes: Array(repeating: 100, count: 30)))
        #expect(try TailSegment(parsing: clipped).samples == samples)
        // A constant run at a limit is at most as dear as the same run off the limit.
        #expect(clipped.count <= constant.count)
    }

    @Test("corrupt sample sections are refused, never trapped on")
    func corrupt() {
        var stream = SampleStream()
        var bytes: [UInt8] = []
        stream.encode(Self.awkward, into: &bytes)
        for cut in 0..<bytes.count {
            var reader = SampleStream()
            #expect(throws: SampleChunkCodec.DecodeError.self) { try reader.decode(Array(bytes[..<cut])) }
        }
        var reader = SampleStream()
        #expect(throws: SampleChunkCodec.DecodeError.self) { try reader.decode(bytes + [0]) }
    }
}
