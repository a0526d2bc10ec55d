// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import Testing

/// The roster is served over the store (`StoreRoster`); what its changes mean for the live side
/// reaches the gateway through `RosterEffects`.
@Suite("Gateway: roster changes reach live sensors and sessions", .serialized, .timeLimit(.minutes(5)))
struct RosterEffectsTests {
    @Test("a renamed athlete shows on the paired sensor, a removed one unbinds it, a target set mid-session counts")
    func effects() async throws {
        let bench = try GatewayBench(scripts: [.steps])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        let roster = bench.gateway.services.roster
        _ = try await roster.addAthlete(AthleteRequest(name: "anna"))
        _ = try await bench.gateway.updateSensor("virtual-1", SensorUpdate(athlete: "anna"))
        _ = try await roster.updateAthlete("anna", AthleteRequest(name: "anna-b"))
        #expect(try await bench.gateway.sensors().first?.athlete == "anna-b")

        let events = try bench.gateway.events()
        let collected = Task {
            var targets: [TargetProgress] = []
            for await published in events {
                if case .counters(let counters) = published.event { targets += counters.targets ?? [] }
            }
            return targets
        }
        let session = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1", profile: "steps"))
        try await bench.drive(for: 2)
        _ = try await roster.setTarget(TargetRequest(sessionId: session.id, metric: "steps", value: 1_000))
        try await bench.drive(for: 3)
        _ = try await bench.gateway.stopSession(id: session.id)

        _ = try await roster.removeAthlete("anna-b", sessions: "keep")
        #expect(try await bench.gateway.sensors().first?.athlete == nil)
        running.cancel()
        try await running.value
        let targets = await collected.value
        #expect(targets.contains { $0.metric == "steps" && $0.target == 1_000 }, "\(targets.suffix(3))")
    }
}
