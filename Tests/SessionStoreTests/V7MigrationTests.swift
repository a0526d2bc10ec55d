// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import Testing

@testable import SessionStore

/// A store the previous build (schema v7) left behind: athletes without a racket hand, hits without
/// a side.
@Suite("Session store: a v7 store")
struct V7MigrationTests {
    static let session = "7a7a7a7a-0000-4000-8000-000000000007"

    /// Schema v7 as the v7 build made it (its migrations, which are never edited), with rows as it
    /// wrote them.
    static func writeV7(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(queue, upTo: "v7-sealed-chunk-files")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO athletes (id, name, created, mass_kg, birth_year) VALUES (1, 'ada', 1700000000, 58.5, 2007);
                    INSERT INTO sessions (id, athlete_id, profile, started_at, ended_at, end_reason, stored_at)
                        VALUES ('\(session)', 1, 'table-tennis', 1700000100, 1700000160, 'stopped', 1700000160);
                    INSERT INTO events (session_id, sequence, type, t, peak_g, intensity, saturated, extra) VALUES
                        ('\(session)', 0, 'hit', 1.25, 1.999, 2.6, 1, '{"quality":["clipped"]}'),
                        ('\(session)', 1, 'hit', 2.5, 1.4, 1.4, 0, NULL);
                    """)
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == 7)
        try queue.close()
    }

    @Test("opens, migrates past v8 and reads its events and athletes as before: no side, no racket hand")
    func migrates() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        try Self.writeV7(temporary.databasePath)

        let store = try SessionStore.open(at: temporary.stateDirectory)
        let version = try await store.database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == StoreSchema.current.number && (version ?? 0) >= 8)
        let events = try await store.events(of: try #require(UUID(uuidString: Self.session)))
        #expect(
            events == [
                EventRecord(type: "hit", t: 1.25, peakG: 1.999, saturated: true, intensityG: 2.6, quality: ["clipped"]),
                EventRecord(type: "hit", t: 2.5, peakG: 1.4, saturated: false, intensityG: 1.4),
            ])
        #expect(events.allSatisfy { $0.side == nil })
        let ada = try #require(try await store.athlete(named: "ada"))
        #expect(ada.massKg == 58.5 && ada.birthYear == 2007 && ada.racketHand == nil)

        // The new column takes a hand, and clears it.
        #expect(try await store.updateAthlete(id: ada.id, AthleteChange(racketHand: .left)).racketHand == .left)
        #expect(try await store.athlete(named: "ada")?.racketHand == .left)
        #expect(try await store.updateAthlete(id: ada.id, AthleteChange(racketHand: .some(nil))).racketHand == nil)
        #expect(try await store.updateAthlete(id: ada.id, AthleteChange(massKg: 60)).racketHand == nil)
    }

    @Test("the column takes only left and right")
    func checked() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let athlete = try await store.addAthlete(name: "ben")
        _ = try await store.updateAthlete(id: athlete.id, AthleteChange(racketHand: .right))
        #expect(throws: (any Error).self) {
            try store.database.write { db in
                try db.execute(sql: "UPDATE athletes SET racket_hand = 'both' WHERE id = ?", arguments: [athlete.id])
            }
        }
        #expect(try await store.athlete(named: "ben")?.racketHand == .right)
    }
}
