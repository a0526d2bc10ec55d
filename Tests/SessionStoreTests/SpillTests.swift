// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import Testing

@testable import SessionStore
@testable import StoreFormats

#if canImport(Glibc)
import Glibc
#endif

/// A full disk at a session's end: what the database cannot take goes to a recovery file that the
/// next open imports, with the session's real end.
@Suite("Session store: spilling when the disk is full")
struct SpillTests {
    @Test("the end a full database cannot take is spilled with every unsaved row and imported at the next open")
    func spillAndImport() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(
            at: temporary.stateDirectory, options: SessionStore.Options(maxPageCount: 40, spillReserveBytes: 1 << 20))
        let reserve = try #require(store.spillReserve)
        #expect(reserve.heldSlots == 4)
        #expect(reserve.paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .tableTennis)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 512), clock: ContinuousClock())
        let samples = SyntheticMotion.training(count: 200_000, seed: 5)
        var recorded = 0
        var full = false
        while recorded < samples.count - 3000, !full {
            recorder.record(samples: samples[recorded..<recorded + 3000])
            recorder.record(event: EventRecord(type: "hit", t: samples[recorded].t))
            recorded += 3000
            do { try await recorder.flush() } catch { full = true }
        }
        #expect(full, "the page cap was never reached")
        // More rows while full, then the end: none of it fits in the database.
        recorder.record(samples: samples[recorded..<recorded + 1000])
        recorder.record(event: EventRecord(type: "hit", t: samples[recorded].t))
        recorded += 1000
        let events = recorded / 3000 + 1
        let unsaved = recorder.statistics.bufferedSamples
        let endedAt = Date(timeIntervalSince1970: 1_800_000_000)
        let counts = SessionCounts(received: Int64(recorded), lost: 3, sampleRate: 100)
        var thrown: StoreError?
        do { try await recorder.finish(reason: .stopped, endedAt: endedAt, counts: counts) } catch { thrown = error }
        let error = try #require(thrown, "finish must not report success for rows that are not in the database")
        #expect(error.code == .spilled)
        #expect(error.message.contains("\(unsaved) samples"), "\(error.message)")
        #expect(error.message.contains("recovery file"))
        let file = try #require(error.path)
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(recorder.statistics.spilledSamples == Int64(unsaved))
        #expect(recorder.statistics.spillFile == file)
        #expect(reserve.heldSlots == 3, "one slot was given back for the spill, the others stay for later ones")
        #expect(reserve.paths.filter { FileManager.default.fileExists(atPath: $0) }.count == 3)
        try store.close()

        // The next open (space back) imports the recovery file with the spilled end.
        let reopened = try SessionStore.open(at: temporary.stateDirectory)
        defer { try? reopened.close() }
        #expect(reopened.recoveredSessions == [session.id])
        let stored = try await reopened.session(id: session.id)
        #expect(stored.endReason == .stopped, "not interrupted: the spilled end")
        #expect(stored.endedAt == endedAt)
        #expect(stored.counts.received == Int64(recorded))
        #expect(stored.counts.lost == 3)
        #expect(sameSamples(try await reopened.samples(of: session.id), samples[..<recorded]))
        #expect(try await eventSequences(reopened, session.id) == (0..<Int64(events)).map { $0 })
        // Imported by registering it: the recovery file is now the session's last chunk.
        let named = try await reopened.database.read { db in
            try String.fetchAll(db, sql: "SELECT file FROM sample_chunks WHERE file IS NOT NULL")
        }
        #expect(named.contains(URL(fileURLWithPath: file).lastPathComponent))
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test(
        "a recovery file's counters, end time and unsaved count out of their ranges are held within them when imported",
        arguments: [Date.distantFuture, Date(timeIntervalSince1970: 0)])
    func recoveredValuesInRange(endedAt: Date) async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .steps)))
        try store.close()
        // What a damaged or forged recovery file could hold: every value past its range.
        let samples = SyntheticMotion.training(count: 300, seed: 2)
        var ending = SessionTailSegment.Ending(endedAt: endedAt, reason: .stopped)
        ending.unsavedSamples = .max
        let record = SessionTailSegment.Record(
            ordinal: 0, samples: samples, events: [],
            counts: SessionCounts(received: .max, lost: .min, malformed: -1, sampleRate: 1e300), ending: ending)
        let file = TailDirectory(databasePath: temporary.databasePath).filePath(session: session.id, chunk: 0)
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: file).deletingLastPathComponent().path, withIntermediateDirectories: true)
        let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: session.id, chunk: 0), [record])
        #expect(FileManager.default.createFile(atPath: file, contents: Data(bytes)))

        let reopened = try SessionStore.open(at: temporary.stateDirectory)
        defer { try? reopened.close() }
        #expect(reopened.recoveredSessions == [session.id])
        let stored = try await reopened.session(id: session.id)
        #expect(stored.endReason == .stopped)
        #expect(stored.counts.received == StoredRanges.sampleCount.bounds.upperBound)
        #expect(stored.counts.lost == StoredRanges.lostSamples.bounds.lowerBound)
        #expect(stored.counts.malformed == StoredRanges.malformedNotifications.bounds.lowerBound)
        #expect(stored.counts.sampleRate == nil)
        #expect(stored.unsavedSamples == StoredRanges.sampleCount.bounds.upperBound)
        // The end is the last sample's time, not the file's (far future, or before the start).
        let end = try #require(stored.endedAt)
        #expect(abs(end.timeIntervalSince(session.startedAt) - (samples.last?.t ?? 0)) < 0.002, "\(end)")
        #expect(try await reopened.samples(of: session.id).count == samples.count)
    }

    @Test("a tail record with an end round-trips; a torn end ends the segment before it")
    func recordWithEnding() throws {
        let id = UUID(uuidString: "0F5C2D0E-8A51-4D55-9C1B-35E0D4B0A7C1")!
        let samples = SyntheticMotion.training(count: 300, seed: 9)
        let ending = SessionTailSegment.Ending(
            endedAt: Date(timeIntervalSince1970: 1_700_000_123.25), reason: .shutdown)
        let first = SessionTailSegment.Record(ordinal: 0, samples: Array(samples[..<100]), events: [], counts: nil)
        let last = SessionTailSegment.Record(
            ordinal: 1, samples: Array(samples[100...]), events: [],
            counts: SessionCounts(received: 300, lost: 0, sampleRate: 99.5), ending: ending)
        let firstEnd = SessionTailSegment.encode(SessionTailSegment.Header(session: id, chunk: 4), [first]).count
        let bytes = SessionTailSegment.encode(SessionTailSegment.Header(session: id, chunk: 4), [first, last])
        let segment = try SessionTailSegment(parsing: bytes)
        #expect(segment.records.count == 2)
        #expect(segment.ending == ending)
        #expect(segment.counts?.received == 300)
        #expect(sameSamples(segment.samples, samples))
        let torn = try SessionTailSegment(parsing: Array(bytes.dropLast(3)))
        #expect(torn.records.count == 1)
        #expect(torn.ending == nil)
        #expect(torn.validLength == firstEnd)

        // A note of a loss: an end with the samples kept nowhere, and no rows.
        var noted = ending
        noted.unsavedSamples = 7842
        let note = SessionTailSegment.Record(
            ordinal: 2, samples: [], events: [], counts: SessionCounts(received: 8142), ending: noted)
        let withNote = try SessionTailSegment(
            parsing: SessionTailSegment.encode(SessionTailSegment.Header(session: id, chunk: 4), [first, last, note]))
        #expect(withNote.records.count == 3)
        #expect(withNote.ending == noted)
        #expect(withNote.ending?.unsavedSamples == 7842)
        #expect(withNote.counts?.received == 8142)
        #expect(sameSamples(withNote.samples, samples), "a note adds no samples")
    }

    @Test("failed flushes back off: 1, 2, 4, 8, then every 16 ticks")
    func retryBackoff() {
        let waits = (1...7).map { SessionRecorder<ContinuousClock>.wakesBeforeRetry(afterFailures: $0) }
        #expect(waits == [0, 1, 3, 7, 15, 15, 15])
    }

    @Test("the spill reserve holds allocated blocks, gives them back one slot per spill, and is renewed")
    func reserveAllocates() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = TailDirectory(databasePath: temporary.databasePath)
        let reserve = SpillReserve(directory: directory, bytes: 256 << 10, slots: 2, logger: .init(label: "test"))
        #expect(reserve.renew())
        for path in reserve.paths {
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(Int(info.st_blocks) * 512 >= 128 << 10, "allocated, not a sparse file")
        }
        #expect(reserve.release())
        #expect(reserve.heldSlots == 1)
        #expect(reserve.release())
        #expect(!reserve.release(), "nothing left to give")
        #expect(reserve.paths.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(reserve.renew())
        #expect(reserve.heldSlots == 2)
        #expect(directory.entries().isEmpty, "the reserve is not taken for a segment")
    }
}
