// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import Replication
import SessionStore
import Testing

/// The club-wide leaderboard view leaves flagged events out of its bests as the gateway does.
extension CentralDatabaseTests {
    @Test("the leaderboard view: a low_floor_margin flight is no best height, a rate_too_low hit no best peak")
    func leaderboardLeavesFlaggedOut() async throws {
        try await Self.withDatabase { cluster, url in
            try await Self.withStore { store in
                let identity = try await store.enableReplication(gatewayID: "hall-a", samples: false)
                let ada = try await store.addAthlete(name: "Ada")
                let flights = [
                    FlightEvent(start: 1, end: 1.5),  // 0.3065 m
                    FlightEvent(start: 3, end: 3.8, quality: .lowFloorMargin),  // an arm movement: 0.7845 m
                    FlightEvent(start: 5, end: 5.6, quality: .edgeFallback),  // 0.4413 m, kept
                ]
                _ = try await store.importSession(
                    NewSession(athleteID: ada.id, settings: DetectionSettings(profile: .jump)),
                    samples: Self.samples(800), events: flights.map { EventRecord(.jump($0)) }, chunkLength: 256)
                let hits: [DetectorEvent] = [
                    .hit(HitEvent(t: 1, peakG: 1.8, saturated: false, intensityG: 1.8)),
                    .hit(HitEvent(t: 2, peakG: 1.999, saturated: true, intensityG: 3, quality: .clipped)),
                    .hit(
                        HitEvent(t: 3, peakG: 1.9999, saturated: true, intensityG: 4, quality: [.clipped, .rateTooLow])),
                ]
                _ = try await store.importSession(
                    NewSession(athleteID: ada.id, settings: DetectionSettings(profile: .tableTennis)),
                    samples: Self.samples(400), events: hits.map(EventRecord.init), chunkLength: 256)
                let connection = try await CentralConnection.open(
                    url, gatewayID: "hall-a", instanceID: identity.instanceID, logger: Self.logger)
                defer { Task { try? await connection.close() } }
                try await Self.drain(store, CentralWriter(gatewayID: "hall-a"), connection)

                let rows = try await cluster.psql(
                    """
                    SELECT type, events, round(best_height_m::numeric, 4), round(best_peak_g::numeric, 4), rank_by_height
                    FROM sportsensor.leaderboard ORDER BY type
                    """, database: "club")
                #expect(rows == ["hit|3||1.9990|1", "jump|3|0.4413||1"])
            }
        }
    }
}
