// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// Chunks stored as sealed segment files: what deletes them, what copies them, and what a damaged
/// one does.
@Suite("Session store: chunk files")
struct ChunkFileTests {
    func files(_ store: SessionStore) -> Set<String> {
        Set(
            ((try? FileManager.default.contentsOfDirectory(atPath: store.tailDirectory.path)) ?? []).filter {
                $0.hasSuffix(".tail")
            })
    }

    /// A finished session of `count` samples in chunks of 500, recorded as the daemon records.
    func record(
        _ store: SessionStore, count: Int, seed: UInt64, athlete: Int64? = nil
    ) async throws -> (SessionRecord, [IndexedSample]) {
        let session = try await store.createSession(
            NewSession(athleteID: athlete, settings: DetectionSettings(profile: .tableTennis)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 500), clock: ContinuousClock())
        let samples = SyntheticMotion.training(count: count, seed: seed)
        recorder.record(samples: samples)
        recorder.record(event: EventRecord(type: "hit", t: 1, peakG: 2))
        try await recorder.finish(reason: .stopped)
        return (session, samples)
    }

    @Test("recorded chunks are files the rows name; sizes count them; an import still writes BLOBs")
    func filesAndBlobs() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let (session, samples) = try await record(store, count: 1200, seed: 21)
        #expect(files(store).count == 3)
        let fileBytes = files(store).reduce(Int64(0)) { $0 + store.tailDirectory.fileSize($1) }
        #expect(fileBytes > 0)
        #expect(try await store.sampleStorage(of: session.id) == (1200, fileBytes))
        let imported = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .tableTennis)), samples: samples, events: [])
        #expect(files(store).count == 3)
        #expect(sameSamples(try await store.samples(of: imported.id), samples))
        #expect(sameSamples(try await store.samples(of: session.id), samples))
        let kinds = try await store.database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT session_id, file IS NULL AS blob, length(data) AS bytes FROM sample_chunks"
            )
            .map { ($0["session_id"] as String, $0["blob"] as Bool, $0["bytes"] as Int) }
        }
        #expect(kinds.count == 3 + 1)
        for (id, isBlob, bytes) in kinds {
            let isImport = id == imported.idText
            #expect(isBlob == isImport && (bytes > 0) == isImport)
        }
    }

    @Test("a missing or damaged chunk file is an error naming it, never a shorter session")
    func damagedFile() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let (session, _) = try await record(store, count: 1200, seed: 22)
        let file = store.tailDirectory.filePath(session: session.id, chunk: 1)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        try bytes.prefix(bytes.count - 5).write(to: URL(fileURLWithPath: file))
        await #expect { _ = try await store.samples(of: session.id) } throws: { error in
            (error as? StoreError)?.code == .badChunk && "\(error)".contains("damaged")
        }
        try FileManager.default.removeItem(atPath: file)
        await #expect { _ = try await store.samples(of: session.id) } throws: { error in
            (error as? StoreError)?.code == .badChunk && "\(error)".contains("missing")
        }
    }

    @Test("prune, a dry run's sizes, and removing an athlete with their sessions delete the files after the commit")
    func deletions() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let athlete = try await store.addAthlete(name: "Ada")
        let (kept, _) = try await record(store, count: 600, seed: 23)
        let (athletes, _) = try await record(store, count: 1100, seed: 24, athlete: athlete.id)
        #expect(files(store).count == 5)
        #expect(try await store.removeAthlete(id: athlete.id, sessions: .delete) == 1)
        #expect(files(store).count == 2)
        #expect(files(store).allSatisfy { $0.hasPrefix(kept.idText) })
        _ = athletes
        let onDisk = files(store).reduce(Int64(0)) { $0 + store.tailDirectory.fileSize($1) }
        let plan = try await store.prune(
            storedBefore: Date().addingTimeInterval(60), .init(samplesOnly: true, dryRun: true))
        #expect(plan.sampleBytes == onDisk && plan.chunksDeleted == 2 && files(store).count == 2)
        _ = try await store.prune(storedBefore: Date().addingTimeInterval(60), .init(samplesOnly: true))
        #expect(files(store).isEmpty)
        #expect(try await store.samples(of: kept.id).isEmpty)
    }

    @Test("a file whose row is gone (killed after a deletion's commit) is deleted at the next start")
    func orphanAtStart() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let session: SessionRecord
        do {
            let store = try SessionStore.open(at: temporary.stateDirectory)
            (session, _) = try await record(store, count: 1100, seed: 25)
            try await store.database.write { db in
                try db.execute(sql: "DELETE FROM sample_chunks WHERE chunk = 2")
            }
            try store.close()
        }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        #expect(
            files(store)
                == Set((0..<2).map { store.tailDirectory.fileName(session: session.id, chunk: Int64($0)) }))
        #expect(try await store.samples(of: session.id).count == 1000)
    }

    @Test("a backup copies one snapshot with its chunk files and open tails; the copy opens and reads the same")
    func backup() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let (finished, samples) = try await record(store, count: 1200, seed: 26)
        let live = try await store.createSession(NewSession(settings: DetectionSettings(profile: .steps)))
        let recorder = try await store.recorder(
            for: live, configuration: .init(chunkLength: 500), clock: ContinuousClock())
        let liveSamples = SyntheticMotion.rest(count: 700, seed: 4)
        recorder.record(samples: liveSamples)
        try await recorder.flush()
        let destination = temporary.path + "/backup"
        let reader = try SessionStore.openReadOnly(path: store.path)
        let result = try await reader.backup(to: destination)
        try reader.close()
        #expect(result.chunkFiles == 4 && result.tailSegments == 1 && result.chunksPruned == 0)
        await #expect { _ = try await store.backup(to: destination) } throws: { error in
            (error as? StoreError)?.code == .invalidArgument
        }
        let copy = try SessionStore.open(at: StateDirectory(path: destination))
        #expect(copy.recoveredSessions == [live.id])
        #expect(sameSamples(try await copy.samples(of: finished.id), samples))
        #expect(sameSamples(try await copy.samples(of: live.id), liveSamples))
        #expect(try await copy.events(of: finished.id) == [EventRecord(type: "hit", t: 1, peakG: 2)])
        try copy.close()
        try await recorder.finish(reason: .stopped)
    }

    @Test("a backup that cannot read a segment file fails naming it and the errno; it does not skip it as missing")
    func backupUnreadableSegment() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let live = try await store.createSession(NewSession(settings: DetectionSettings(profile: .steps)))
        let recorder = try await store.recorder(
            for: live, configuration: .init(chunkLength: 500), clock: ContinuousClock())
        recorder.record(samples: SyntheticMotion.rest(count: 700, seed: 4))
        try await recorder.flush()
        // The open segment (chunk 1) is there but unreadable: a directory in its place.
        let open = TailDirectory(databasePath: store.path).filePath(session: live.id, chunk: 1)
        try FileManager.default.moveItem(atPath: open, toPath: open + ".aside")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        await #expect { _ = try await store.backup(to: temporary.path + "/backup") } throws: { error in
            let failure = error as? StoreError
            return failure?.code == .badChunk && failure?.message.contains(open) == true
                && failure?.message.contains("read") == true
        }
        try FileManager.default.removeItem(atPath: open)
        try FileManager.default.moveItem(atPath: open + ".aside", toPath: open)
        try await recorder.finish(reason: .stopped)
    }
}
