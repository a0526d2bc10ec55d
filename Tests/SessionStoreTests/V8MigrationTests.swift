// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import Testing

@testable import SessionStore

/// A store the previous build (schema v8) left behind: sessions without an unsaved count.
@Suite("Session store: a v8 store")
struct V8MigrationTests {
    static let ended = "8a8a8a8a-0000-4000-8000-000000000008"
    static let open = "8b8b8b8b-0000-4000-8000-000000000008"

    /// Schema v8 as the v8 build made it (its migrations, which are never edited), with an ended
    /// session and one left open.
    static func writeV8(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(queue, upTo: "v8-athlete-racket-hand")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (id, profile, started_at, ended_at, end_reason, received_count, lost_count, stored_at)
                        VALUES ('\(ended)', 'jump', 1700000100, 1700000160, 'stopped', 6000, 4, 1700000160),
                               ('\(open)', 'jump', 1700000200, NULL, NULL, 0, 0, 1700000200);
                    """)
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == 8)
        try queue.close()
    }

    @Test("migrates to v9: every session counts 0 unsaved samples; a new end stores its count")
    func migrates() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        try Self.writeV8(temporary.databasePath)

        let store = try SessionStore.open(at: temporary.stateDirectory)
        defer { try? store.close() }
        let version = try await store.database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == 9 && StoreSchema.current.number == 9)
        let ended = try await store.session(id: try #require(UUID(uuidString: Self.ended)))
        #expect(ended.unsavedSamples == 0 && ended.counts.received == 6000 && ended.counts.lost == 4)
        let closed = try await store.session(id: try #require(UUID(uuidString: Self.open)))
        #expect(closed.endReason == .interrupted && closed.unsavedSamples == 0)

        try await store.database.write { db in
            try SessionRow.close(
                session: Self.ended, endedAt: Date(timeIntervalSince1970: 1_700_000_170), reason: .stopped,
                unsavedSamples: 7842, db)
        }
        #expect(try await store.session(id: try #require(UUID(uuidString: Self.ended))).unsavedSamples == 7842)
    }

    @Test("a v8 store opened read-only (not migrated) reads 0 unsaved samples")
    func readOnly() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        try Self.writeV8(temporary.databasePath)
        let store = try SessionStore.openReadOnly(at: temporary.stateDirectory)
        defer { try? store.close() }
        let ended = try await store.session(id: try #require(UUID(uuidString: Self.ended)))
        #expect(ended.unsavedSamples == 0 && ended.counts.received == 6000)
    }
}
