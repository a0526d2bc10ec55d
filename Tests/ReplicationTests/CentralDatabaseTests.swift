// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import Logging
import PostgresNIO
import Replication
import SDUSensor
import SessionStore
import StoreFormats
import Testing

/// Against a real PostgreSQL (a cluster each test makes and removes): the schema's DDL, its
/// migrations under concurrent gateways, and the outbox's order and idempotency end to end.
@Suite("Replication into a real PostgreSQL", .serialized, .timeLimit(.minutes(5)))
struct CentralDatabaseTests {
    static let logger = Logger(label: "test.replication")

    /// Runs `body` with a fresh cluster and database, always removing the cluster.
    static func withDatabase(_ body: (PostgresCluster, PostgresURL) async throws -> Void) async throws {
        let cluster = try await PostgresCluster()
        do {
            _ = try await cluster.psql("CREATE DATABASE club")
            try await body(cluster, try PostgresURL(parsing: cluster.url(database: "club")))
        } catch {
            await cluster.remove()
            throw error
        }
        await cluster.remove()
    }

    static func withStore(_ body: (SessionStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("repl-\(UUID().uuidString)").path
        let store = try SessionStore.open(at: StateDirectory(path: directory))
        do { try await body(store) } catch {
            try? store.close()
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        try store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func events(_ count: Int) -> [EventRecord] {
        (0..<count).map { EventRecord(type: "hit", t: Double($0) * 0.5, peakG: 2 + Double($0)) }
    }

    static func samples(_ count: Int) -> [IndexedSample] {
        (0..<count).map { (i: Int) -> IndexedSample in
            IndexedSample(index: Int64(i), t: Double(i) / 100, raw: RawAcceleration(x: Int16(i % 100), y: -3, z: 512))
        }
    }

    @Test("the schema's DDL applies to plain PostgreSQL; a second run applies nothing")
    func schema() async throws {
        try await Self.withDatabase { cluster, url in
            let connection = try await CentralConnection.connect(url, logger: Self.logger)
            let applied: [Int]
            let again: [Int]
            do {
                applied = try await CentralSchema.migrate(connection, logger: Self.logger)
                again = try await CentralSchema.migrate(connection, logger: Self.logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
            #expect(applied == CentralSchema.migrations.map(\.version))
            #expect(again == [])
            let tables = try await cluster.psql(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'sportsensor' ORDER BY 1",
                database: "club")
            #expect(
                tables == [
                    "athletes", "events", "gateways", "leaderboard", "sample_chunks", "sample_rows", "samples",
                    "schema_migrations", "sensors", "session_summaries", "sessions", "sessions_overview", "targets",
                    "team_members", "team_weekly_load", "teams", "weekly_load",
                ])
        }
    }

    @Test("gateways starting at once: every one succeeds, each migration is applied once")
    func concurrentMigrations() async throws {
        try await Self.withDatabase { cluster, url in
            try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let connection = try await CentralConnection.connect(url, logger: Self.logger)
                        do {
                            let applied = try await CentralSchema.migrate(connection, logger: Self.logger)
                            try await connection.close()
                            return applied
                        } catch {
                            try? await connection.close()
                            throw error
                        }
                    }
                }
                var applied: [Int] = []
                for try await versions in group { applied += versions }
                #expect(applied.sorted() == CentralSchema.migrations.map(\.version))
            }
            let rows = try await cluster.psql(
                "SELECT version FROM sportsensor.schema_migrations ORDER BY 1", database: "club")
            #expect(rows == CentralSchema.migrations.map { "\($0.version)" })
        }
    }

    @Test("every replicated local column has a central type")
    func declarations() {
        for table in OutboxTable.all where !table.isSamples {
            let central = CentralTable.all[table.name]
            #expect(central != nil, "\(table.name)")
            for column in table.columns { #expect(central?.kinds[column] != nil, "\(table.name).\(column)") }
        }
    }

    @Test("a batch sent twice (crash before acknowledging) stores each row once; replaced events are mirrored")
    func idempotentBatches() async throws {
        try await Self.withDatabase { cluster, url in
            try await Self.withStore { store in
                let identity = try await store.enableReplication(gatewayID: "hall-a", samples: true)
                let athlete = try await store.addAthlete(name: "Ada")
                let session = try await store.importSession(
                    NewSession(athleteID: athlete.id, settings: DetectionSettings(profile: .tableTennis)),
                    samples: Self.samples(1000), events: Self.events(5), chunkLength: 256)
                let connection = try await CentralConnection.open(
                    url, gatewayID: "hall-a", instanceID: identity.instanceID, logger: Self.logger)
                defer { Task { try? await connection.close() } }

                let batch = try #require(try await store.outboxBatch(maxItems: 1000, maxSamples: 100_000))
                // In the order written: the athlete, then the session, its chunks, its events.
                #expect(batch.items.map(\.sequence) == batch.items.map(\.sequence).sorted())
                #expect(batch.items.first?.table.name == "athletes")
                #expect(batch.items.filter { $0.table.name == "sample_chunks" }.count == 4)
                let writer = CentralWriter(gatewayID: "hall-a")
                let first = try await writer.write(batch, on: connection, logger: Self.logger)
                #expect(first.samples == 1000)
                _ = try await writer.write(batch, on: connection, logger: Self.logger)
                try await store.acknowledgeOutbox(through: batch.lastSequence)
                #expect(try await store.outboxBatch(maxItems: 10, maxSamples: 10) == nil)

                let counts = try await cluster.psql(
                    """
                    SELECT (SELECT count(*) FROM sportsensor.athletes), (SELECT count(*) FROM sportsensor.sessions),
                        (SELECT count(*) FROM sportsensor.events), (SELECT count(*) FROM sportsensor.samples)
                    """, database: "club")
                #expect(counts == ["1|1|5|1000"])

                // Re-analysis replaces 5 events by 3: the central side follows.
                try await store.replaceEvents(of: session.id, with: Self.events(3))
                let replaced = try #require(try await store.outboxBatch(maxItems: 1000, maxSamples: 100_000))
                let written = try await writer.write(replaced, on: connection, logger: Self.logger)
                #expect(written.deletions == 2)
                try await store.acknowledgeOutbox(through: replaced.lastSequence)
                #expect(try await cluster.psql("SELECT count(*) FROM sportsensor.events", database: "club") == ["3"])

                // Retention pruning locally keeps the central archive.
                _ = try await store.prune(
                    storedBefore: Date().addingTimeInterval(60), SessionStore.PruneOptions(maximumShare: 1))
                if let pruned = try await store.outboxBatch(maxItems: 1000, maxSamples: 100_000) {
                    _ = try await writer.write(pruned, on: connection, logger: Self.logger)
                }
                #expect(try await cluster.psql("SELECT count(*) FROM sportsensor.events", database: "club") == ["3"])
                #expect(try await cluster.psql("SELECT count(*) FROM sportsensor.sessions", database: "club") == ["1"])
            }
        }
    }

    @Test("teams, memberships and summaries arrive once; a member taken off and a reanalysed summary follow")
    func rosterAndSummaries() async throws {
        try await Self.withDatabase { cluster, url in
            try await Self.withStore { store in
                let identity = try await store.enableReplication(gatewayID: "hall-a", samples: false)
                let ada = try await store.addAthlete(name: "Ada")
                _ = try await store.updateAthlete(id: ada.id, AthleteChange(massKg: 61.5, birthYear: 2001))
                let juniors = try await store.addTeam(name: "U18")
                let squad = try await store.addTeam(name: "Squad")
                _ = try await store.updateTeam(id: juniors.id, name: nil, athleteIDs: [ada.id])
                _ = try await store.updateTeam(id: squad.id, name: nil, athleteIDs: [ada.id])
                let session = try await store.importSession(
                    NewSession(athleteID: ada.id, settings: DetectionSettings(profile: .tableTennis)),
                    samples: Self.samples(1000), events: Self.events(5), chunkLength: 256)
                var handMade = SessionSummary(profile: "table-tennis")
                handMade.playerload = 12.5
                try await store.saveSummary(handMade, of: session.id)
                let connection = try await CentralConnection.open(
                    url, gatewayID: "hall-a", instanceID: identity.instanceID, logger: Self.logger)
                defer { Task { try? await connection.close() } }

                let writer = CentralWriter(gatewayID: "hall-a")
                let batch = try #require(try await store.outboxBatch(maxItems: 1000, maxSamples: 100_000))
                _ = try await writer.write(batch, on: connection, logger: Self.logger)
                _ = try await writer.write(batch, on: connection, logger: Self.logger)
                try await store.acknowledgeOutbox(through: batch.lastSequence)
                let roster = try await cluster.psql(
                    """
                    SELECT (SELECT count(*) FROM sportsensor.teams), (SELECT count(*) FROM sportsensor.team_members),
                        (SELECT count(*) FROM sportsensor.session_summaries),
                        (SELECT mass_kg || '|' || birth_year FROM sportsensor.athletes),
                        (SELECT playerload FROM sportsensor.weekly_load),
                        (SELECT playerload FROM sportsensor.sessions_overview)
                    """, database: "club")
                #expect(roster == ["2|2|1|61.5|2001|12.5|12.5"])
                let teams = try await cluster.psql(
                    "SELECT team, athletes, sessions, playerload FROM sportsensor.team_weekly_load ORDER BY team",
                    database: "club")
                #expect(teams == ["Squad|1|1|12.5", "U18|1|1|12.5"])

                // Ada leaves the squad; reanalysis replaces the hand-made summary.
                _ = try await store.updateTeam(id: squad.id, name: nil, athleteIDs: [])
                _ = try await store.reanalyze(session, save: true)
                let local = try #require(try await store.summary(of: session.id))
                #expect(local.playerload != 12.5)
                let changed = try #require(try await store.outboxBatch(maxItems: 1000, maxSamples: 100_000))
                _ = try await writer.write(changed, on: connection, logger: Self.logger)
                try await store.acknowledgeOutbox(through: changed.lastSequence)
                let after = try await cluster.psql(
                    """
                    SELECT (SELECT count(*) FROM sportsensor.team_members),
                        (SELECT count(*) FROM sportsensor.session_summaries),
                        (SELECT (summary->>'playerload')::double precision FROM sportsensor.session_summaries)
                    """, database: "club")
                let fields = try #require(after.first).split(separator: "|").map(String.init)
                #expect(fields.prefix(2) == ["1", "1"])
                let central = try #require(fields.last.flatMap(Double.init))
                #expect(abs(central - local.playerload) < 0.001)
                #expect(
                    try await cluster.psql("SELECT playerload FROM sportsensor.weekly_load", database: "club")
                        == [fields[2]])
            }
        }
    }

    @Test("a change and its outbox item commit together: a refused write queues nothing")
    func sameTransaction() async throws {
        try await Self.withStore { store in
            _ = try await store.enableReplication(gatewayID: "hall-a", samples: false)
            _ = try await store.addAthlete(name: "Ada")
            let before = try await store.outboxStatus().count
            await #expect(throws: StoreError.self) { _ = try await store.addAthlete(name: "Ada") }
            #expect(try await store.outboxStatus().count == before)
            // Samples off: chunks are not queued, the session and events are.
            _ = try await store.importSession(
                NewSession(settings: DetectionSettings(profile: .steps)), samples: Self.samples(300),
                events: Self.events(2))
            let batch = try #require(try await store.outboxBatch(maxItems: 100, maxSamples: 100))
            #expect(Set(batch.items.map(\.table.name)) == ["athletes", "sessions", "events"])
        }
    }

    @Test("enabling again (a restart) keeps the triggers and queues nothing; samples off drops their items")
    func reenable() async throws {
        try await Self.withStore { store in
            let first = try await store.enableReplication(gatewayID: "hall-a", samples: true)
            _ = try await store.importSession(
                NewSession(settings: DetectionSettings(profile: .steps)), samples: Self.samples(300),
                events: Self.events(2), chunkLength: 100)
            #expect(try await store.outboxStatus().count == 6)
            let again = try await store.enableReplication(gatewayID: "hall-a", samples: true)
            #expect(again.instanceID == first.instanceID)
            #expect(try await store.outboxStatus().count == 6)
            _ = try await store.enableReplication(gatewayID: "hall-a", samples: false)
            let batch = try #require(try await store.outboxBatch(maxItems: 100, maxSamples: 1000))
            #expect(batch.items.map(\.table.name) == ["sessions", "events", "events"])
        }
    }

    @Test("at the bound queueing stops (local data kept); a resync queues the whole store again")
    func bound() async throws {
        try await Self.withStore { store in
            _ = try await store.enableReplication(gatewayID: "hall-a", samples: false)
            _ = try await store.importSession(
                NewSession(settings: DetectionSettings(profile: .steps)), samples: [], events: Self.events(4))
            try await store.stopQueueing()
            _ = try await store.addAthlete(name: "Bo")
            let stopped = try await store.outboxStatus()
            #expect(stopped.queueing == false)
            #expect(stopped.count == 5, "the session and its events, not the athlete added after the stop")
            let batch = try #require(try await store.outboxBatch(maxItems: 100, maxSamples: 100))
            try await store.acknowledgeOutbox(through: batch.lastSequence)
            try await store.resyncReplication()
            let resynced = try await store.outboxStatus()
            #expect(resynced.queueing)
            #expect(resynced.count == 6, "everything, the athlete included")
        }
    }

    @Test("a second box with the same gateway id is refused with the fix")
    func gatewayIDClash() async throws {
        try await Self.withDatabase { _, url in
            let first = try await CentralConnection.open(
                url, gatewayID: "hall-a", instanceID: UUID(), logger: Self.logger)
            try await first.close()
            do throws(ReplicationError) {
                let second = try await CentralConnection.open(
                    url, gatewayID: "hall-a", instanceID: UUID(), logger: Self.logger)
                try? await second.close()
                Issue.record("a second box got hall-a")
            } catch {
                #expect(error.code == .gatewayIDClash)
                #expect(error.message.contains("give this gateway its own [replication] gateway_id"))
            }
        }
    }

    @Test("an unreachable server is reported with the fix and without the password")
    func unreachable() async throws {
        let url = try PostgresURL(parsing: "postgres://u:hunter22@127.0.0.1:1/club?sslmode=disable")
        do throws(ReplicationError) {
            _ = try await CentralConnection.connect(url, logger: Self.logger)
            Issue.record("connected to port 1")
        } catch {
            #expect(error.code == .unreachable)
            #expect(!"\(error)".contains("hunter22"))
            #expect(error.message.contains("postgres://u:***@127.0.0.1:1/club"))
        }
    }
}
