// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayCore
import GatewayTesting
import SessionStore
import Testing

/// A table-tennis session takes its athlete's racket hand into its detector settings (Docs/DETECTION.md, "Side").
@Suite("Gateway: a session's racket hand comes from its athlete", .serialized, .timeLimit(.minutes(5)))
struct SessionRacketHandTests {
    @Test("table tennis for a left-handed athlete records racket_hand -1; no hand, or another profile, leaves 0")
    func racketHand() async throws {
        let bench = try GatewayBench(scripts: [.tableTennis])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        _ = try await bench.gateway.services.roster.addAthlete(AthleteRequest(name: "lena", racketHand: "left"))
        _ = try await bench.gateway.services.roster.addAthlete(AthleteRequest(name: "noah"))

        func recordedHand(profile: String, athlete: String) async throws -> Int? {
            let started = try await bench.gateway.startSession(
                StartSessionRequest(sensor: "virtual-1", profile: profile, athlete: athlete))
            _ = try await bench.gateway.stopSession(id: started.id)
            let id = try #require(UUID(uuidString: started.id))
            return try await bench.store.session(id: id).settings?.parameters.hit.racketHand
        }
        #expect(try await recordedHand(profile: "table-tennis", athlete: "lena") == -1)
        #expect(try await recordedHand(profile: "table-tennis", athlete: "noah") == 0)
        #expect(try await recordedHand(profile: "steps", athlete: "lena") == 0)
        running.cancel()
        try await running.value
    }
}
