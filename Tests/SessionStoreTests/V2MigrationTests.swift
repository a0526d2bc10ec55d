// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// A store the previous build (schema v2, open chunks rewritten in place) left behind.
@Suite("Session store: a v2 store")
struct V2MigrationTests {
    struct Read: Equatable {
        var samples: [IndexedSample]
        var events: [EventRecord]
        var counts: SessionCounts
    }

    func read(_ store: SessionStore, _ id: String) async throws -> Read {
        let session = try await store.session(idPrefix: id)
        return Read(
            samples: try await store.samples(of: session.id), events: try await store.events(of: session.id),
            counts: session.counts)
    }

    @Test("opens, migrates to the current schema and reads exactly as before; its open session is recovered")
    func migrates() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in try db.execute(sql: V2Fixture.sql) }
        try queue.close()

        // As the previous build read it (read-only opens never migrate).
        let reader = try SessionStore.openReadOnly(at: temporary.stateDirectory)
        let finishedBefore = try await read(reader, V2Fixture.finished)
        let openBefore = try await read(reader, V2Fixture.open)
        try reader.close()
        #expect(sameSamples(finishedBefore.samples, V2Fixture.finishedSamples))
        #expect(sameSamples(openBefore.samples, V1Fixture.samples))

        let store = try SessionStore.open(at: temporary.stateDirectory)
        let version = try await store.database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == StoreSchema.current.number)
        #expect(store.recoveredSessions.map { $0.uuidString.lowercased() } == [V2Fixture.open])
        #expect(try await read(store, V2Fixture.finished) == finishedBefore)
        #expect(try await read(store, V2Fixture.open) == openBefore)
        let finished = try await store.session(idPrefix: V2Fixture.finished)
        #expect(finished.endReason == .stopped)
        #expect(finished.counts == SessionCounts(received: 76, lost: 5, malformed: 0, sampleRate: 99.5))
        let events = try await store.events(of: finished.id)
        #expect(events.map(\.type) == ["hit", "step"] && events[1].cadenceSpm == 121.5)
        let recovered = try await store.session(idPrefix: V2Fixture.open)
        #expect(recovered.endReason == .interrupted)
        #expect(abs(try #require(recovered.endedAt).timeIntervalSince(recovered.startedAt) - 0.55) < 1e-6)
        #expect(!FileManager.default.fileExists(atPath: store.tailDirectory.path))

        // And it records on: a new session's tail and chunks sit beside the old rows.
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 100), clock: ContinuousClock())
        let samples = SyntheticMotion.rest(count: 250, seed: 4)
        recorder.record(samples: samples)
        try await recorder.flush()
        #expect(sameSamples(try await store.samples(of: session.id), samples))
        try await recorder.finish(reason: .stopped)
        #expect(try await read(store, V2Fixture.finished) == finishedBefore)
        // The old chunks stay BLOBs; the new session's are its sealed segment files.
        let kinds = try await store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT session_id, file FROM sample_chunks ORDER BY session_id, chunk")
                .map { ($0["session_id"] as String, $0["file"] as String?) }
        }
        #expect(kinds.filter { $0.0 == session.idText }.allSatisfy { $0.1 != nil })
        #expect(kinds.filter { $0.0 != session.idText }.allSatisfy { $0.1 == nil })
        #expect(kinds.filter { $0.0 == session.idText }.count == 3)
    }
}
