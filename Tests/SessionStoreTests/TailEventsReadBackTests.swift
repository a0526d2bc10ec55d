// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// A compaction reads the open chunk's events back from its segment (the recorder keeps only their
/// sequence numbers in memory): they must come back exactly, and a segment that lacks one must
/// fail the flush rather than store less.
@Suite("Tail segment events read back")
struct TailEventsReadBackTests {
    static let session = RecordingTailTests.session

    /// Two records: the fixture's (events 3 and 4), then one with event 5 and more samples.
    static var records: [SessionTailSegment.Record] {
        var second = TailSegmentFormatTests.record
        second.ordinal = 1
        second.samples = (9..<40).map {
            IndexedSample(index: Int64($0), t: Double($0) / 100, raw: RawAcceleration(x: Int16($0), y: 16384, z: 3))
        }
        second.events = [SequencedEvent(sequence: 5, record: EventRecord(type: "hit", t: 0.3, peakG: 2.5))]
        return [TailSegmentFormatTests.record, second]
    }

    @Test("parsing without samples gives every record's events and counters, and no sample")
    func skipsSamples() throws {
        let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 6), Self.records)
        let whole = try SessionTailSegment(parsing: bytes)
        let light = try SessionTailSegment(parsing: bytes, decodingSamples: false)
        #expect(light.events == whole.events && light.events.map(\.sequence) == [3, 4, 5])
        #expect(light.counts == whole.counts && light.validLength == whole.validLength)
        #expect(light.records.allSatisfy(\.samples.isEmpty) && !whole.samples.isEmpty)
    }

    @Test("the directory gives the events numbered as asked, and fails on a segment lacking one, missing or unreadable")
    func directory() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = TailDirectory(databasePath: temporary.databasePath)
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 6), Self.records)
        #expect(
            FileManager.default.createFile(
                atPath: directory.filePath(session: Self.session, chunk: 6), contents: Data(bytes)))
        let all = Self.records.flatMap(\.events)
        #expect(try directory.events(session: Self.session, chunk: 6, sequences: 3...5) == all)
        // Events a compaction stored already (a resumed segment) are left out.
        #expect(try directory.events(session: Self.session, chunk: 6, sequences: 4...5) == Array(all[1...]))
        #expect {
            try directory.events(session: Self.session, chunk: 6, sequences: 3...6)
        } throws: { ($0 as? StoreError)?.code == .corrupt }
        #expect {
            try directory.events(session: Self.session, chunk: 7, sequences: 0...0)
        } throws: { ($0 as? StoreError)?.code == .corrupt }
        // A segment that does not parse: corrupt, with the decoder's error as the cause.
        #expect(
            FileManager.default.createFile(
                atPath: directory.filePath(session: Self.session, chunk: 8), contents: Data([1, 2, 3])))
        #expect {
            try directory.events(session: Self.session, chunk: 8, sequences: 0...0)
        } throws: {
            ($0 as? StoreError)?.code == .corrupt && ($0 as? StoreError)?.cause is SampleChunkCodec.DecodeError
        }
    }
}
