// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// The recorder's open end without I/O: what each flush writes, and what a failed flush keeps.
@Suite("Recording tail (pure)")
struct RecordingTailTests {
    static let session = UUID(uuidString: "5e55e55e-1111-4222-8333-444455556666")!

    func samples(_ range: Range<Int>) -> [IndexedSample] {
        range.map {
            IndexedSample(index: Int64($0), t: Double($0) / 100, raw: RawAcceleration(x: Int16($0), y: 1, z: 2))
        }
    }

    func event(_ sequence: Int64) -> SequencedEvent {
        SequencedEvent(sequence: sequence, record: EventRecord(type: "hit", t: Double(sequence), peakG: 1.5))
    }

    func run(_ tail: inout RecordingTail, _ steps: [RecordingTail.Step]) {
        for step in steps { tail.apply(step) }
    }

    @Test("flushes below a chunk append one record each; nothing is compacted")
    func appendsOnly() {
        var tail = RecordingTail(chunkLength: 100, chunk: 3)
        let first = tail.plan(samples: samples(0..<40), events: [event(0)], counts: SessionCounts(received: 40))
        #expect(
            first == [
                RecordingTail.Step(
                    action: .append(
                        .init(
                            chunk: 3,
                            record: .init(
                                ordinal: 0, samples: samples(0..<40), events: [event(0)],
                                counts: SessionCounts(received: 40)))),
                    newSamples: 40, newEvents: 1)
            ])
        run(&tail, first)
        let second = tail.plan(samples: samples(40..<99), events: [], counts: nil)
        guard case .append(let append) = second.first?.action, second.count == 1 else {
            Issue.record("expected one append, got \(second)")
            return
        }
        #expect(append.record.ordinal == 1 && append.record.counts == nil && append.record.events.isEmpty)
        run(&tail, second)
        #expect(tail.extent == ChunkExtent(samples(0..<99)) && tail.events == 0...0 && tail.records == 2)
        #expect(tail.counts == SessionCounts(received: 40))
        #expect(tail.plan(samples: [], events: [], counts: nil).isEmpty)
    }

    func append(
        _ chunk: Int64, _ ordinal: Int64, _ range: Range<Int>, _ events: [SequencedEvent] = [],
        counts: SessionCounts? = nil
    ) -> RecordingTail.Step {
        .init(
            action: .append(
                .init(
                    chunk: chunk,
                    record: .init(ordinal: ordinal, samples: samples(range), events: events, counts: counts))
            ), newSamples: range.count, newEvents: events.count)
    }

    /// A compaction of segment `chunk`: `segment` the sequence numbers of the events it reads back
    /// from the segment, `events` those in no segment.
    func compact(
        _ chunk: Int64, _ range: Range<Int>, segment: ClosedRange<Int64>? = nil, _ events: [SequencedEvent] = [],
        counts: SessionCounts? = nil, close: RecordingTail.Close? = nil, newEvents: Int = 0
    ) -> RecordingTail.Step {
        .init(
            action: .compact(
                .init(
                    chunk: chunk, extent: ChunkExtent(samples(range)), segmentEvents: segment, events: events,
                    counts: counts, close: close)),
            newSamples: 0, newEvents: newEvents)
    }

    @Test(
        "the flush that fills a chunk appends its last samples, then compacts the whole segment with its events and counters"
    )
    func fillsAChunk() {
        var tail = RecordingTail(chunkLength: 100, chunk: 0)
        run(&tail, tail.plan(samples: samples(0..<60), events: [event(0)], counts: SessionCounts(received: 60)))
        let steps = tail.plan(samples: samples(60..<330), events: [event(1)], counts: nil)
        let expected: [RecordingTail.Step] = [
            append(0, 1, 60..<100, [event(1)]),
            compact(0, 0..<100, segment: 0...1, counts: SessionCounts(received: 60)),
            append(1, 0, 100..<200), compact(1, 100..<200),
            append(2, 0, 200..<300), compact(2, 200..<300),
            append(3, 0, 300..<330),
        ]
        #expect(steps == expected)
        run(&tail, steps)
        #expect(
            tail.chunk == 3 && tail.extent == ChunkExtent(samples(300..<330)) && tail.events == nil
                && tail.records == 1)
        #expect(tail.counts == nil)
    }

    @Test("exactly a chunk: appended and compacted, and no segment is started for nothing")
    func exactChunk() {
        var tail = RecordingTail(chunkLength: 50, chunk: 7)
        let steps = tail.plan(samples: samples(0..<50), events: [], counts: nil)
        #expect(steps == [append(7, 0, 0..<50), compact(7, 0..<50)])
        run(&tail, steps)
        #expect(tail.chunk == 8 && tail.records == 0 && tail.extent.isEmpty)
    }

    @Test("a segment already full (its compaction failed) is compacted without appending to it")
    func fullSegment() {
        var tail = RecordingTail(chunkLength: 50, chunk: 7)
        let steps = tail.plan(samples: samples(0..<50), events: [], counts: nil)
        tail.apply(steps[0])
        #expect(
            tail.plan(samples: samples(50..<52), events: [event(3)], counts: nil) == [
                compact(7, 0..<50, [event(3)], newEvents: 1), append(8, 0, 50..<52),
            ])
    }

    @Test("closing appends the buffered samples to the segment and compacts it with the end, in one transaction")
    func closing() {
        var tail = RecordingTail(chunkLength: 100, chunk: 2)
        run(&tail, tail.plan(samples: samples(0..<30), events: [event(4)], counts: SessionCounts(received: 30)))
        let close = RecordingTail.Close(
            endedAt: Date(timeIntervalSince1970: 1_700_000_100), reason: .stopped,
            counts: SessionCounts(received: 45, lost: 1))
        let steps = tail.plan(samples: samples(30..<45), events: [event(5)], counts: nil, close: close)
        #expect(
            steps == [
                append(2, 1, 30..<45, [event(5)]),
                compact(2, 0..<45, segment: 4...5, counts: close.counts, close: close),
            ])

        // Events without samples go into the database only.
        let eventsOnly = tail.plan(samples: [], events: [event(5)], counts: nil, close: close)
        #expect(
            eventsOnly == [
                compact(2, 0..<30, segment: 4...4, [event(5)], counts: close.counts, close: close, newEvents: 1)
            ])

        // A session with nothing pending still gets its close.
        let empty = RecordingTail(chunkLength: 100, chunk: 0).plan(samples: [], events: [], counts: nil, close: close)
        #expect(empty == [compact(0, 0..<0, counts: close.counts, close: close)])
    }

    @Test("a flush failing at a step keeps exactly the new rows of that step and those after it")
    func unsaved() {
        var tail = RecordingTail(chunkLength: 100, chunk: 0)
        run(&tail, tail.plan(samples: samples(0..<90), events: [], counts: nil))
        let steps = tail.plan(samples: samples(90..<250), events: [event(0), event(1)], counts: nil)
        #expect(steps.count == 5)
        #expect(RecordingTail.unsaved(steps, from: 0) == (160, 2))
        #expect(RecordingTail.unsaved(steps, from: 1) == (150, 0))
        #expect(RecordingTail.unsaved(steps, from: 2) == (150, 0))
        #expect(RecordingTail.unsaved(steps, from: 3) == (50, 0))
        #expect(RecordingTail.unsaved(steps, from: 5) == (0, 0))
    }

    @Test("resuming a segment: its rows are the open chunk's, and records continue its numbering")
    func resuming() throws {
        let bytes = SessionTailSegment.encode(
            SessionTailSegment.Header(session: Self.session, chunk: 4),
            [
                SessionTailSegment.Record(
                    ordinal: 0, samples: samples(0..<20), events: [event(9)], counts: SessionCounts(received: 20))
            ])
        let segment = try SessionTailSegment(parsing: bytes)
        let tail = RecordingTail(chunkLength: 100, chunk: 4, segment: segment)
        #expect(tail.extent == ChunkExtent(samples(0..<20)) && tail.events == 9...9 && tail.records == 1)
        guard case .append(let append) = tail.plan(samples: samples(20..<25), events: [], counts: nil).first?.action
        else {
            Issue.record("expected an append")
            return
        }
        #expect(append.chunk == 4 && append.record.ordinal == 1)
    }
}

@Suite("Tail segment format")
struct TailSegmentFormatTests {
    static let session = RecordingTailTests.session

    static var record: SessionTailSegment.Record {
        SessionTailSegment.Record(
            ordinal: 0,
            samples: [
                IndexedSample(index: 7, t: 0.07, raw: RawAcceleration(x: -3, y: 16384, z: 5)),
                IndexedSample(index: 8, t: 0.08, raw: RawAcceleration(x: -2, y: 16380, z: 4)),
            ],
            events: [
                SequencedEvent(
                    sequence: 3,
                    record: EventRecord(type: "jump", t: 0.5, takeoff: 0.5, landing: 0.9, flightS: 0.4, heightM: 0.196)),
                SequencedEvent(sequence: 4, record: EventRecord(type: "step", t: 0.75, cadenceSpm: 123.4)),
            ],
            counts: SessionCounts(received: 9, lost: 1, malformed: 0, sampleRate: 99.75))
    }

    /// The bytes of a segment holding `record` as the first build wrote it (its samples in chunk
    /// format 2). Every later build must read it.
    static let fixture = """
        53535453015e55e55e11114222833344445555666602000000000000009d0000008ff1bcad002202020e0002ec51b81e\
        85ebb13f7814ae47e17a843f008d3077f00017fc3a6e00000002010603046a756d7002000000000000e03f0000020000\
        00000000e03f02cdccccccccccec3f029a9999999999d93f024a0c022b8716c93f000000000108030473746570020000\
        00000000e83f00000000000000000003157b22636164656e63655f73706d223a3132332e347d031202000000000000f0\
        5840
        """

    /// The same segment as the last build of segment format 1 wrote it (its samples in chunk format
    /// 3). Every later build must read it.
    static let version1Fixture = """
        53535453015e55e55e111142228333444455556666020000000000000098000000d3e6eb9d001d03020e0004e0c50800\
        0000000088c340008d3077f00017fc3a6e00000002010603046a756d7002000000000000e03f000002000000000000e0\
        3f02cdccccccccccec3f029a9999999999d93f024a0c022b8716c93f00000000010803047374657002000000000000e8\
        3f00000000000000000003157b22636164656e63655f73706d223a3132332e347d031202000000000000f05840
        """

    @Test("an event's segment columns are the events table's after the session id, each kind read back")
    func eventColumns() throws {
        #expect(EventRow.columnNames.count - 1 == SessionTailSegment.eventColumns)
        for event in Self.record.events {
            let values = event.segmentValues
            #expect(values.count == SessionTailSegment.eventColumns)
            #expect(SequencedEvent(segmentValues: values) == event)
            var wrong = values
            wrong[0] = .text("three")
            #expect(SequencedEvent(segmentValues: wrong) == nil)
        }
        let kinds: [ColumnValue] = [.null, .integer(-5), .real(0.25), .text("é"), .blob([0, 255])]
        for kind in kinds { #expect(ColumnValue(kind.databaseValue) == kind) }
    }

    @Test("CRC-32 check value")
    func checksum() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test("header and records round-trip: samples, events bit for bit, counters")
    func roundTrip() throws {
        var header: [UInt8] = []
        SessionTailSegment.Header(session: Self.session, chunk: 2).encode(into: &header)
        #expect(header.count == SessionTailSegment.headerLength)
        var second = Self.record
        second.ordinal = 1
        second.counts = nil
        second.events = []
        second.samples = []
        let bytes = SessionTailSegment.encode(
            SessionTailSegment.Header(session: Self.session, chunk: 2), [Self.record, second])
        let segment = try SessionTailSegment(parsing: bytes)
        #expect(segment.header == SessionTailSegment.Header(session: Self.session, chunk: 2))
        #expect(segment.records == [Self.record, second])
        #expect(segment.validLength == bytes.count)
        #expect(segment.counts == Self.record.counts)
        #expect(segment.events.map(\.sequence) == [3, 4])
    }

    @Test("a torn, corrupted or out-of-order record ends the segment where the last whole one ends")
    func damage() throws {
        var bytes: [UInt8] = []
        SessionTailSegment.Header(session: Self.session, chunk: 0).encode(into: &bytes)
        var stream = SampleStream()
        Self.record.encode(stream: &stream, into: &bytes)
        let whole = bytes.count
        let afterFirst = stream
        var next = Self.record
        next.ordinal = 1
        next.encode(stream: &stream, into: &bytes)
        for cut in [whole + 1, whole + 7, whole + 8, bytes.count - 1] {
            let torn = try SessionTailSegment(parsing: Array(bytes[..<cut]))
            #expect(torn.records == [Self.record], "cut at \(cut)")
            #expect(torn.validLength == whole)
        }
        var corrupted = bytes
        corrupted[bytes.count - 3] ^= 0x40
        #expect(try SessionTailSegment(parsing: corrupted).records == [Self.record])
        // A stale record (an earlier, longer write's bytes) cannot follow with the wrong ordinal.
        var stale = Array(bytes[..<whole])
        var staleStream = afterFirst
        Self.record.encode(stream: &staleStream, into: &stale)
        #expect(try SessionTailSegment(parsing: stale).records == [Self.record])
        #expect(try SessionTailSegment(parsing: stale).validLength == whole)
    }

    @Test("a bad header is refused with what it is")
    func badHeader() {
        #expect(throws: SampleChunkCodec.DecodeError.self) {
            try SessionTailSegment(parsing: Array("SQLite format 3".utf8))
        }
        var bytes: [UInt8] = []
        SessionTailSegment.Header(session: Self.session, chunk: 0).encode(into: &bytes)
        bytes[4] = 9
        do {
            _ = try SessionTailSegment(parsing: bytes)
            Issue.record("a version-9 segment was read")
        } catch {
            #expect(error.code == .unknownVersion && error.message.contains("upgrade sportsensord"))
        }
    }

    /// The same segment as the last build of segment format 2 wrote it (its samples continue one
    /// coder, each record's range code flushed in full). Every later build must read it.
    static let version2Fixture = """
        53535453025e55e55e111142228333444455556666020000000000000096000000c5515c4a001b020e0004e0c5080000\
        00000088c3408d3077f00017fc3a6e00000002010603046a756d7002000000000000e03f000002000000000000e03f02\
        cdccccccccccec3f029a9999999999d93f024a0c022b8716c93f00000000010803047374657002000000000000e83f00\
        000000000000000003157b22636164656e63655f73706d223a3132332e347d031202000000000000f05840
        """

    /// The same segment as the encoder writes it now (segment format 3: its samples continue one
    /// coder, each record's range code flushed short). A change to these bytes is a new segment
    /// version (or a bug).
    static let currentFixture = """
        53535453035e55e55e1111422283334444555566660200000000000000930000001068baa00018021c0e00e0c5080000\
        00000088c3408d3077f00017fc3a6e02010603046a756d7002000000000000e03f000002000000000000e03f02cdcccc\
        ccccccec3f029a9999999999d93f024a0c022b8716c93f00000000010803047374657002000000000000e83f00000000\
        000000000003157b22636164656e63655f73706d223a3132332e347d031202000000000000f05840
        """

    @Test("the fixtures: the encoder's bytes are stable; formats 2 and both format-1 segments decode to the record")
    func fixture() throws {
        let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 2), [Self.record])
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        #expect(hex == Self.currentFixture)
        #expect(try SessionTailSegment(parsing: bytes).header.version == 3)
        #expect(try SessionTailSegment(parsing: bytes).records == [Self.record])
        for (old, version) in [(Self.version2Fixture, 2), (Self.fixture, 1), (Self.version1Fixture, 1)] {
            let segment = try SessionTailSegment(parsing: [UInt8](hex: old))
            #expect(segment.header.version == UInt8(version))
            #expect(segment.records == [Self.record])
        }
        // Format 3 differs from format 2 only in the flush: the record is shorter, nothing else.
        #expect(bytes.count < [UInt8](hex: Self.version2Fixture).count)
    }

    @Test("TailSegmentFile (tools, the fuzzer) reads the fixture's samples and event columns and writes the same bytes")
    func file() throws {
        let bytes = [UInt8](hex: Self.currentFixture)
        let records = try TailSegmentFile.records(parsing: bytes)
        #expect(records.map(\.samples) == [Self.record.samples])
        #expect(records.map(\.events) == [Self.record.events.map { $0.segmentValues }])
        // Without the record's counters, which the file API leaves out, the bytes are the store's.
        var bare = Self.record
        bare.counts = nil
        let expected = SessionTailSegment.encode(SessionTailSegment.Header(session: Self.session, chunk: 2), [bare])
        #expect(TailSegmentFile.encode(session: Self.session, chunk: 2, records: records) == expected)
    }
}
