// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayCore
import GatewayTesting
import SessionStore
import Testing

/// Summaries, records and targets of live sessions, on the gateway bench's manual clock.
@Suite("Gateway: summaries, records, targets", .serialized, .timeLimit(.minutes(5)))
struct GatewaySummaryTests {
    @Test(
        "the summary stored at the end is the one the stored samples give; a longer second session beats the first's load and reaches its target"
    )
    func summaryRecordTarget() async throws {
        let bench = try GatewayBench(scripts: [.steps])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        _ = try await bench.gateway.services.roster.addAthlete(AthleteRequest(name: "anna", massKg: 60))

        let first = try await bench.gateway.startSession(
            StartSessionRequest(sensor: "virtual-1", profile: "steps", athlete: "anna"))
        try await bench.drive(for: 8)
        _ = try await bench.gateway.stopSession(id: first.id)
        let firstID = try #require(UUID(uuidString: first.id))
        let stored = try #require(try await bench.store.summary(of: firstID))
        let offline = SessionSummaryAccumulator.summary(
            profile: .steps, samples: try await bench.store.detectionSamples(of: firstID),
            events: try await bench.store.events(of: firstID).compactMap(\.detectorEvent))
        // The store keeps the printed digits: compare the lines.
        #expect(
            stored.jsonLine == offline.withBodyMass(60).jsonLine,
            "the live accumulator saw exactly what the store keeps")
        #expect(try await bench.gateway.sessionSummary(id: first.id) == stored)
        #expect(stored.playerload > 0)

        _ = try await bench.gateway.services.roster.setTarget(
            TargetRequest(athlete: "anna", metric: "playerload", value: 1e-6))
        let events = try bench.gateway.events()
        let collected = Task {
            var items: [GatewayEvent] = []
            for await published in events { items.append(published.event) }
            return items
        }
        let second = try await bench.gateway.startSession(
            StartSessionRequest(sensor: "virtual-1", profile: "steps", athlete: "anna"))
        try await bench.drive(for: 20)
        let live = try await bench.gateway.sessionSummary(id: second.id)
        #expect(live.playerload > stored.playerload, "20 s of stepping load more than 8 s")
        _ = try await bench.gateway.stopSession(id: second.id)
        running.cancel()
        try await running.value
        let items = await collected.value

        let records = items.compactMap { if case .record(let record) = $0 { record } else { nil } }
        let playerload = try #require(records.first { $0.metric == "playerload" }, "\(records)")
        #expect(playerload.sessionId == second.id && playerload.previousSessionId == first.id)
        #expect(abs(playerload.previous - stored.playerload) < 1e-9 && playerload.value > playerload.previous)
        #expect(records.filter { $0.metric == "playerload" }.count == 1, "announced once")
        let targets = items.compactMap { if case .target(let target) = $0 { target } else { nil } }
        #expect(targets.map(\.metric) == ["playerload"])
        let counters = items.compactMap { if case .counters(let counters) = $0 { counters } else { nil } }
        #expect(counters.last?.targetMetric == "playerload" && (counters.last?.targetPct ?? 0) > 100)
        #expect(counters.last?.summary?.profile == "steps")

        let bests = try await bench.gateway.services.roster.personalBests(athlete: "anna")
        #expect(bests.first { $0.metric == "playerload" }?.sessionId == second.id)
        let board = try await bench.gateway.services.roster.leaderboard(metric: "playerload", period: "day", team: nil)
        #expect(board.map(\.athlete) == ["anna"] && board.first?.sessionId == second.id)
    }

    @Test("removing an athlete a sensor is bound to unbinds the sensor: the next session has no athlete")
    func removalUnbindsSensors() async throws {
        let bench = try GatewayBench(scripts: [.steps])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        _ = try await bench.gateway.updateSensor("virtual-1", SensorUpdate(athlete: "ben"))
        let first = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1", profile: "steps"))
        #expect(first.athlete == "ben")
        try await bench.drive(for: 2)
        _ = try await bench.gateway.stopSession(id: first.id)
        let refused = await GatewayBench.expectControlError(.conflict) {
            try await bench.gateway.services.roster.removeAthlete("ben", sessions: nil)
        }
        #expect(refused?.fix?.contains("sessions=keep") == true)
        let removal = try await bench.gateway.services.roster.removeAthlete("ben", sessions: "keep")
        #expect(removal.sessionsKept == 1 && removal.sessionsDeleted == 0)
        #expect(try await bench.gateway.sensors().first?.athlete == nil)
        let second = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1", profile: "steps"))
        #expect(second.athlete == nil)
        _ = try await bench.gateway.stopSession(id: second.id)
        #expect(try await bench.gateway.session(id: first.id).athlete == nil, "the kept session has no athlete")
        running.cancel()
        try await running.value
    }
}
