// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import PostgresNIO
import Replication
import SessionStore
import Testing

/// Targets and the memberships SQLite removes by cascade, against a real PostgreSQL.
extension CentralDatabaseTests {
    /// Sends the whole outbox (twice, as a retry would) and acknowledges it.
    static func drain(_ store: SessionStore, _ writer: CentralWriter, _ connection: PostgresConnection) async throws {
        while let batch = try await store.outboxBatch(maxItems: 1000, maxSamples: 100_000) {
            _ = try await writer.write(batch, on: connection, logger: Self.logger)
            _ = try await writer.write(batch, on: connection, logger: Self.logger)
            try await store.acknowledgeOutbox(through: batch.lastSequence)
        }
    }

    static func localTargets(_ store: SessionStore) async throws -> [String] {
        try await store.targets().map { target in
            "\(target.id)|\(target.athleteID.map(String.init) ?? "")|\(target.sessionID ?? "")|"
                + "\(target.metric.rawValue)|\(Int((target.value * 1000).rounded()))"
        }.sorted()
    }

    static func centralTargets(_ cluster: PostgresCluster) async throws -> [String] {
        try await cluster.psql(
            """
            SELECT id || '|' || coalesce(athlete_id::text, '') || '|' || coalesce(session_id::text, '') || '|'
                || metric || '|' || round(value * 1000)::bigint
            FROM sportsensor.targets WHERE gateway_id = 'hall-a' ORDER BY 1
            """, database: "club"
        ).sorted()
    }

    @Test("targets arrive, a replaced or removed target is deleted centrally; cascaded deletions follow")
    func targetsAndCascades() async throws {
        try await Self.withDatabase { cluster, url in
            try await Self.withStore { store in
                let identity = try await store.enableReplication(gatewayID: "hall-a", samples: false)
                let ada = try await store.addAthlete(name: "Ada")
                let ben = try await store.addAthlete(name: "Ben")
                let juniors = try await store.addTeam(name: "U18")
                let squad = try await store.addTeam(name: "Squad")
                _ = try await store.updateTeam(id: juniors.id, name: nil, athleteIDs: [ada.id, ben.id])
                _ = try await store.updateTeam(id: squad.id, name: nil, athleteIDs: [ada.id, ben.id])
                let session = try await store.importSession(
                    NewSession(athleteID: ada.id, settings: DetectionSettings(profile: .tableTennis)),
                    samples: Self.samples(500), events: Self.events(3), chunkLength: 256)
                _ = try await store.setTarget(.hits, value: 100, athleteID: ada.id)
                _ = try await store.setTarget(.hits, value: 120, athleteID: ada.id)  // replaces: a new id
                _ = try await store.setTarget(.jumps, value: 40, athleteID: ben.id)
                let once = try await store.setTarget(.playerload, value: 300, sessionID: session.id)
                let connection = try await CentralConnection.open(
                    url, gatewayID: "hall-a", instanceID: identity.instanceID, logger: Self.logger)
                defer { Task { try? await connection.close() } }
                let writer = CentralWriter(gatewayID: "hall-a")

                try await Self.drain(store, writer, connection)
                #expect(try await Self.localTargets(store).count == 3)
                #expect(try await Self.centralTargets(cluster) == Self.localTargets(store))

                // The session's target is removed; Ben is removed (his memberships and target go by
                // cascade in SQLite), then the squad (its remaining membership goes by cascade).
                try await store.removeTarget(id: once.id)
                _ = try await store.removeAthlete(id: ben.id, sessions: .keep)
                try await store.removeTeam(id: squad.id)
                try await Self.drain(store, writer, connection)

                #expect(try await Self.centralTargets(cluster) == Self.localTargets(store))
                #expect(try await Self.localTargets(store).count == 1)
                // Ben's memberships followed (his teams' rows are still there); the removed squad and
                // its memberships stay in the archive, as Docs/REPLICATION.md says.
                let members = try await cluster.psql(
                    """
                    SELECT t.name || '|' || a.name FROM sportsensor.team_members m
                    JOIN sportsensor.teams t ON t.gateway_id = m.gateway_id AND t.id = m.team_id
                    JOIN sportsensor.athletes a ON a.gateway_id = m.gateway_id AND a.id = m.athlete_id
                    ORDER BY 1
                    """, database: "club")
                #expect(members == ["Squad|Ada", "U18|Ada"])
                let local = try await store.teams().flatMap { team in team.athleteIDs.map { "\(team.name)|\($0)" } }
                #expect(local == ["U18|\(ada.id)"])
            }
        }
    }
}
