// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayCore
import MetricsTestKit
import Testing
import VirtualSensor

/// The gateway's metrics, on a factory of the test's own: what other suites' gateways emit in the
/// same process never mixes in.
@Suite("Gateway metrics", .serialized, .timeLimit(.minutes(5)))
struct GatewayMetricsTests {
    typealias Name = GatewayMetrics.Name

    @Test("every series the API documents is made by GatewayMetrics, and nothing else")
    func documented() throws {
        let api = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/API.md")
        let text = try String(contentsOf: api, encoding: .utf8)
        let documented = Set(
            text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("| `sportsensord_") else { return nil }
                let name = line.dropFirst(3).prefix { $0 != "`" && $0 != "{" }
                return String(name)
            })
        #expect(documented == Set(Name.all))
    }

    @Test("each series moves when its cause happens: traffic, loss, bad payloads, reconnects, events, sessions, writes")
    func everySeriesMoves() async throws {
        let factory = TestMetrics()
        let bench = try GatewayBench(
            scripts: [.tableTennis, .jumps, .throwing, .steps],
            outOfRange: .init(every: .seconds(8), duration: .seconds(1)),
            faults: .init(dropFraction: 0.05, malformedFraction: 0.05), metrics: GatewayMetrics(factory: factory))
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 4))
        // A subscriber that never reads: the bus drops what does not fit.
        let stalled = bench.gateway.bus.subscribe(capacity: 1)
        var sessions: [String] = []
        for (sensor, profile) in zip(1...4, DetectionProfile.allCases) {
            let started = try await bench.gateway.startSession(
                StartSessionRequest(sensor: "virtual-\(sensor)", profile: profile.rawValue))
            sessions.append(started.id)
        }
        try await bench.drive(for: 40)
        for id in sessions { _ = try await bench.gateway.stopSession(id: id) }
        running.cancel()
        try await running.value
        _ = stalled

        for name in [
            Name.notifications, Name.samples, Name.lostSamples, Name.malformedNotifications, Name.reconnects,
            Name.eventBusDropped,
        ] {
            #expect(try factory.expectCounter(name).totalValue > 0, "\(name)")
        }
        for kind in EventKind.allCases {
            #expect(
                try factory.expectCounter(Name.events, [(Name.eventType, kind.rawValue)]).totalValue > 0,
                "\(kind)")
        }
        let live = try factory.expectGauge(Name.liveSessions).values
        #expect(live.contains(4) && live.last == 0, "\(live)")
        #expect(try factory.expectGauge(Name.sensorsConnected).values.contains(4))
        let depth = try factory.expectMeter(Name.storeQueueDepth)
        #expect(depth.values.contains { $0 > 0 } && depth.lastValue == 0, "\(depth.values)")
        #expect(try !factory.expectTimer(Name.storeWriteSeconds).values.isEmpty)
    }
}
