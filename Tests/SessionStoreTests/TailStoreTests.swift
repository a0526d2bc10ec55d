// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// The store with tail segments: every reader sees the same rows whatever state the open end is
/// in, and a session a crash left open keeps its tail.
@Suite("Session store: tail segments")
struct TailStoreTests {
    /// What every reader of a session sees.
    struct View: Equatable {
        var samples: [IndexedSample]
        var events: [EventRecord]
        var storedSamples: Int64
        var received: Int64

        static func of(_ store: SessionStore, _ id: UUID) async throws -> View {
            View(
                samples: try await store.samples(of: id), events: try await store.events(of: id),
                storedSamples: try await store.sampleStorage(of: id).samples,
                received: try await store.session(id: id).counts.received)
        }
    }

    func segmentFiles(_ store: SessionStore) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store.tailDirectory.path)) ?? []).sorted()
    }

    /// The files chunk rows name.
    func chunkFiles(_ store: SessionStore) async throws -> [String] {
        try await store.database.read { db in
            try String.fetchAll(db, sql: "SELECT file FROM sample_chunks WHERE file IS NOT NULL ORDER BY file")
        }
    }

    /// Segment files no chunk row names: the open ends of recordings.
    func openSegments(_ store: SessionStore) async throws -> [String] {
        let named = Set(try await chunkFiles(store))
        return segmentFiles(store).filter { !named.contains($0) }
    }

    func events(_ range: Range<Int>) -> [EventRecord] {
        range.map { EventRecord(type: "hit", t: Double($0) / 10, peakG: 1 + Double($0) / 100, saturated: $0 % 2 == 0) }
    }

    @Test("readers see every flushed row: all in the tail, chunks and a tail, at a chunk boundary, finished")
    func readersAcrossStates() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .tableTennis)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 1000), clock: ContinuousClock())
        let samples = SyntheticMotion.training(count: 4000, seed: 11)
        let allEvents = events(0..<40)
        var flushed = 0
        var received: Int64 = 0
        // 700: all in the tail; 1000: one chunk, no open segment; 2300: chunks and a tail; 4000: boundary.
        for (end, expectedChunks, expectedSegments) in [(700, 0, 1), (1000, 1, 0), (2300, 2, 1), (4000, 4, 0)] {
            recorder.record(samples: samples[flushed..<end])
            for event in allEvents[flushed / 100..<end / 100] { recorder.record(event: event) }
            received = Int64(end)
            recorder.update(counts: SessionCounts(received: received, lost: 2, sampleRate: 100))
            flushed = end
            try await recorder.flush()
            let view = try await View.of(store, session.id)
            #expect(sameSamples(view.samples, samples[..<end]), "after \(end)")
            #expect(view.events == Array(allEvents[..<(end / 100)]), "after \(end)")
            #expect(view.storedSamples == Int64(end))
            #expect(view.received == received)
            let chunks = try await store.database.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sample_chunks")
            }
            #expect(chunks == expectedChunks, "after \(end)")
            #expect(try await openSegments(store).count == expectedSegments, "after \(end)")
            // Every chunk is its sealed segment: a file, no BLOB.
            #expect(try await chunkFiles(store).count == expectedChunks, "after \(end)")
            #expect(segmentFiles(store).count == expectedChunks + expectedSegments, "after \(end)")
            // A reading command next to the daemon sees the same.
            let reader = try SessionStore.openReadOnly(path: store.path)
            #expect(try await View.of(reader, session.id) == view)
            try reader.close()
        }
        recorder.record(
            samples: SyntheticMotion.rest(count: 10, seed: 1).map {
                IndexedSample(index: 4000 + $0.index, t: 40 + $0.t, raw: $0.raw)
            })
        try await recorder.finish(reason: .stopped)
        #expect(try await openSegments(store).isEmpty)
        let blobBytes = try await store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT total(length(data)) FROM sample_chunks")
        }
        #expect(blobBytes == 0)
        let view = try await View.of(store, session.id)
        #expect(view.samples.count == 4010 && sameSamples(view.samples.prefix(4000), samples))
        #expect(view.events == allEvents)
        let counts = try await store.database.read { db in
            try Int.fetchAll(db, sql: "SELECT sample_count FROM sample_chunks ORDER BY chunk")
        }
        #expect(counts == [1000, 1000, 1000, 1000, 10])
    }

    @Test("a session whose process died keeps its tail: recovery registers the segment as a chunk, as it is")
    func recoveryKeepsTheTail() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let started = Date(timeIntervalSince1970: 1_700_000_000)
        let samples = SyntheticMotion.training(count: 2600, seed: 5)
        let session: SessionRecord
        do {
            let store = try SessionStore.open(at: temporary.stateDirectory)
            session = try await store.createSession(
                NewSession(settings: DetectionSettings(profile: .tableTennis), startedAt: started))
            let recorder = try await store.recorder(
                for: session, configuration: .init(chunkLength: 1000), clock: ContinuousClock())
            recorder.record(samples: samples[..<2450])
            for event in events(0..<24) { recorder.record(event: event) }
            recorder.update(counts: SessionCounts(received: 2450, lost: 3, malformed: 1, sampleRate: 99.9))
            try await recorder.flush()
            // Rows buffered but never flushed are what a crash loses (at most a flush interval).
            recorder.record(samples: samples[2450...])
            #expect(try await openSegments(store).count == 1 && segmentFiles(store).count == 3)
            // No finish: the process "dies" here.
            try store.close()
        }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        #expect(store.recoveredSessions == [session.id])
        #expect(try await openSegments(store).isEmpty)
        #expect(segmentFiles(store).count == 3)
        let recovered = try await store.session(id: session.id)
        #expect(recovered.endReason == .interrupted)
        #expect(recovered.counts == SessionCounts(received: 2450, lost: 3, malformed: 1, sampleRate: 99.9))
        #expect(abs(try #require(recovered.endedAt).timeIntervalSince(started) - samples[2449].t) < 1e-6)
        #expect(sameSamples(try await store.samples(of: session.id), samples[..<2450]))
        #expect(try await store.events(of: session.id) == events(0..<24))
        #expect(try await eventSequences(store, session.id) == (0..<24).map { Int64($0) })
        let chunks = try await store.database.read { db in
            try Int.fetchAll(db, sql: "SELECT sample_count FROM sample_chunks ORDER BY chunk")
        }
        #expect(chunks == [1000, 1000, 450])
    }

    @Test("a torn last record (killed mid-write) is ignored; the records before it are kept")
    func tornRecord() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let samples = SyntheticMotion.rest(count: 300, seed: 3)
        let session: SessionRecord
        let segment: String
        do {
            let store = try SessionStore.open(at: temporary.stateDirectory)
            session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .steps)))
            let recorder = try await store.recorder(for: session)
            for start in stride(from: 0, to: 300, by: 100) {
                recorder.record(samples: samples[start..<start + 100])
                try await recorder.flush()
            }
            segment = store.tailDirectory.path + "/" + segmentFiles(store)[0]
            try store.close()
        }
        // The last record loses its last 10 bytes, as a write cut short would leave it.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: segment))
        let reader = try SessionStore.openReadOnly(at: temporary.stateDirectory)
        #expect(sameSamples(try await reader.samples(of: session.id), samples[..<200]))
        try reader.close()
        let store = try SessionStore.open(at: temporary.stateDirectory)
        #expect(store.recoveredSessions == [session.id])
        #expect(sameSamples(try await store.samples(of: session.id), samples[..<200]))
    }

    @Test("killed between sealing a segment and committing its row: the next start registers it once, never twice")
    func sealedWithoutRow() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let samples = SyntheticMotion.training(count: 700, seed: 8)
        let session: SessionRecord
        do {
            let store = try SessionStore.open(at: temporary.stateDirectory)
            session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
            let recorder = try await store.recorder(
                for: session, configuration: .init(chunkLength: 500), clock: ContinuousClock())
            recorder.record(samples: samples[..<400])
            for event in events(0..<4) { recorder.record(event: event) }
            try await recorder.flush()
            recorder.record(samples: samples[400...])
            recorder.record(event: events(4..<5)[0])
            try await recorder.flush()
            #expect(segmentFiles(store).count == 2)
            // Undo the commit that registered chunk 0: the state a crash after the seal leaves.
            try await store.database.write { db in
                try db.execute(sql: "DELETE FROM sample_chunks")
                try db.execute(sql: "DELETE FROM events")
            }
            let view = try await View.of(store, session.id)
            #expect(sameSamples(view.samples, samples))
            #expect(view.events == events(0..<5))
            #expect(view.storedSamples == 700)
            try store.close()
        }
        for _ in 0..<2 {
            let reopened = try SessionStore.open(at: temporary.stateDirectory)
            #expect(sameSamples(try await reopened.samples(of: session.id), samples))
            #expect(try await reopened.events(of: session.id) == events(0..<5))
            #expect(try await eventSequences(reopened, session.id) == (0..<5).map { Int64($0) })
            let chunks = try await reopened.database.read { db in
                try Int.fetchAll(db, sql: "SELECT sample_count FROM sample_chunks ORDER BY chunk")
            }
            #expect(chunks == [500, 200])
            #expect(try await openSegments(reopened).isEmpty && segmentFiles(reopened).count == 2)
            try reopened.close()
        }
    }

    @Test("killed after the commit: the registered chunk stays as it is and only the open tail is recovered")
    func killedAfterCommit() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let samples = SyntheticMotion.training(count: 650, seed: 12)
        let session: SessionRecord
        let sealed: Data
        do {
            let store = try SessionStore.open(at: temporary.stateDirectory)
            session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
            let recorder = try await store.recorder(
                for: session, configuration: .init(chunkLength: 500), clock: ContinuousClock())
            recorder.record(samples: samples)
            try await recorder.flush()
            sealed = try Data(
                contentsOf: URL(fileURLWithPath: store.tailDirectory.filePath(session: session.id, chunk: 0)))
            try store.close()
        }
        let reopened = try SessionStore.open(at: temporary.stateDirectory)
        #expect(reopened.recoveredSessions == [session.id])
        #expect(sameSamples(try await reopened.samples(of: session.id), samples))
        let file = reopened.tailDirectory.filePath(session: session.id, chunk: 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == sealed)
        #expect(
            try await chunkFiles(reopened)
                == (0..<2).map { reopened.tailDirectory.fileName(session: session.id, chunk: $0) })
    }

    @Test("a new recorder for a session with a tail continues its segment, events and chunks")
    func resumesATail() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        let samples = SyntheticMotion.training(count: 900, seed: 9)
        do {
            let first = try await store.recorder(
                for: session, configuration: .init(chunkLength: 400), clock: ContinuousClock())
            first.record(samples: samples[..<550])
            for event in events(0..<3) { first.record(event: event) }
            try await first.flush()
        }
        let second = try await store.recorder(
            for: session, configuration: .init(chunkLength: 400), clock: ContinuousClock())
        second.record(samples: samples[550...])
        for event in events(3..<6) { second.record(event: event) }
        try await second.finish(reason: .stopped)
        #expect(sameSamples(try await store.samples(of: session.id), samples))
        #expect(try await eventSequences(store, session.id) == (0..<6).map { Int64($0) })
        #expect(try await store.events(of: session.id) == events(0..<6))
        let counts = try await store.database.read { db in
            try Int.fetchAll(db, sql: "SELECT sample_count FROM sample_chunks ORDER BY chunk")
        }
        #expect(counts == [400, 400, 100])
        #expect(try await openSegments(store).isEmpty)
    }

    /// A segment file of format 1, as builds before segment format 2 wrote it: each record's
    /// samples a chunk BLOB of their own (Docs/FORMATS.md, "Tail segments").
    static func version1Segment(session: UUID, chunk: Int64, records: [[IndexedSample]]) -> [UInt8] {
        var bytes: [UInt8] = []
        SessionTailSegment.Header(session: session, chunk: chunk).encode(into: &bytes)
        bytes[4] = 1
        for (ordinal, samples) in records.enumerated() {
            var payload: [UInt8] = []
            SampleChunkCodec.appendVarint(UInt64(ordinal), to: &payload)
            let blob = SampleChunkCodec.encode(samples)
            SampleChunkCodec.appendVarint(UInt64(blob.count), to: &payload)
            payload += blob
            payload += [0, 0]  // no events, no counters
            SessionTailSegment.appendUInt32(UInt32(payload.count), to: &bytes)
            SessionTailSegment.appendUInt32(CRC32.checksum(payload), to: &bytes)
            bytes += payload
        }
        return bytes
    }

    @Test("a format-1 segment left open is read, then sealed as its chunk; recording goes on in format 2")
    func resumesAVersion1Segment() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        let samples = SyntheticMotion.trainingSession(count: 700, seed: 17)
        let old = Self.version1Segment(
            session: session.id, chunk: 0, records: [Array(samples[..<100]), Array(samples[100..<250])])
        try FileManager.default.createDirectory(atPath: store.tailDirectory.path, withIntermediateDirectories: true)
        let oldFile = store.tailDirectory.filePath(session: session.id, chunk: 0)
        try Data(old).write(to: URL(fileURLWithPath: oldFile))
        #expect(sameSamples(try await store.samples(of: session.id), samples[..<250]), "readers see the old tail")

        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 400), clock: ContinuousClock())
        recorder.record(samples: samples[250...])
        try await recorder.flush()
        #expect(sameSamples(try await store.samples(of: session.id), samples))
        #expect(try Data(contentsOf: URL(fileURLWithPath: oldFile)) == Data(old), "never appended to")
        let next = try SessionTailSegment(
            parsing: [UInt8](
                Data(
                    contentsOf: URL(
                        fileURLWithPath:
                            store.tailDirectory.filePath(session: session.id, chunk: 1)))))
        #expect(next.header.version == SessionTailSegment.version)
        try await recorder.finish(reason: .stopped)
        #expect(sameSamples(try await store.samples(of: session.id), samples))
        let counts = try await store.database.read { db in
            try Int.fetchAll(db, sql: "SELECT sample_count FROM sample_chunks ORDER BY chunk")
        }
        #expect(counts == [250, 400, 50])
    }
}
