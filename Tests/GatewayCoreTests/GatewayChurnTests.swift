// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import SessionStore
import Testing
import VirtualSensor

/// The locks of the sample path under churn: sessions are stopped, sensors unpaired and links
/// dropped while 64 virtual sensors stream into live sessions, and idle sessions end themselves.
/// `make tsan` runs this suite under ThreadSanitizer, which reports any data race or lock-order
/// inversion among the link, the channel, the pipeline and the recorder (Docs/ARCHITECTURE.md,
/// "Locks").
@Suite("Gateway under churn", .serialized, .timeLimit(.minutes(10)))
struct GatewayChurnTests {
    static let sensors = 64

    /// `virtual-1` … `virtual-64`: 1–16 are stopped, 17–32 unpaired, 33–48 keep recording until
    /// the end, 49–64 lie still and end by the idle rule (which may also end a moving sensor's
    /// session in a pause of its script).
    static func names(_ range: ClosedRange<Int>) -> [String] { range.map { "virtual-\($0)" } }

    /// Stops session `id` unless the idle rule ended it first.
    static func stop(_ id: String, on gateway: Gateway<ManualClock>) async throws {
        do {
            _ = try await gateway.stopSession(id: id)
        } catch {
            // Ended by the idle rule meanwhile: nothing to stop.
            guard error.message.hasPrefix("session \(id) is not live") else { throw error }
        }
    }

    /// Drives the clock until session `id` has counted a sample (or ended), so a stop or an unpair
    /// lands mid-stream however slowly the loaded machine lets 64 sensors run: a fixed 0.3 s of
    /// simulated time left some sessions with nothing when their sensor's tasks had not run yet.
    /// Expects that within 120 s of real time, naming the session that never streamed.
    static func streaming(_ id: String, on gateway: Gateway<ManualClock>, bench: GatewayBench) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let info = try await gateway.session(id: id)
            if info.samples > 0 || !info.isLive { return }
            try await bench.drive(for: 0.03)
        }
        Issue.record("session \(id) counted no sample and stayed live for 120 s")
    }

    @Test("stop, unpair and link loss while 64 sensors stream: every session ends once, with every sample it counted")
    func churn() async throws {
        let moving = Array(repeating: MotionScript.tableTennis, count: 48)
        let still = Array(repeating: MotionScript.rest, count: Self.sensors - 48)
        // Each link drops after 0.6 s of connection and stays away 0.2 s: reconnects all along.
        let bench = try GatewayBench(
            scripts: moving + still, idleStop: .seconds(2),
            outOfRange: .init(every: .milliseconds(600), duration: .milliseconds(200)))
        let gateway = bench.gateway
        let running = Task { try await gateway.run() }
        await gateway.waitUntilStarted()
        #expect(
            try await bench.waitUntil(seconds: 120) {
                try await gateway.sensors().filter { $0.linkState == .connected }.count == Self.sensors
            })
        let ids = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for name in Self.names(1...Self.sensors) {
                group.addTask { (name, try await gateway.startSession(StartSessionRequest(sensor: name)).id) }
            }
            var ids: [String: String] = [:]
            for try await (name, id) in group { ids[name] = id }
            return ids
        }
        #expect(ids.count == Self.sensors)

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await bench.drive(for: 4) }
            for name in Self.names(1...16) {
                group.addTask {
                    try await Self.streaming(ids[name]!, on: gateway, bench: bench)
                    try await Self.stop(ids[name]!, on: gateway)
                }
            }
            for name in Self.names(17...32) {
                group.addTask {
                    try await Self.streaming(ids[name]!, on: gateway, bench: bench)
                    try await gateway.unpair(sensor: name)
                }
            }
            try await group.waitForAll()
        }
        // The idle rule ended the still sensors' sessions (the tick runs once a simulated second).
        let lyingStill = Set(Self.names(49...Self.sensors))
        #expect(
            try await bench.waitUntil(seconds: 120) {
                try await gateway.sensors().allSatisfy { sensor in
                    !lyingStill.contains(sensor.alias ?? "") || sensor.liveSessionId == nil
                }
            })
        for name in Self.names(33...48) {
            try await Self.streaming(ids[name]!, on: gateway, bench: bench)
            try await Self.stop(ids[name]!, on: gateway)
        }
        #expect(try await gateway.status().liveSessions == 0)
        #expect(Set(try await gateway.sensors().compactMap(\.alias)) == Set(Self.names(1...16) + Self.names(33...64)))

        let sessions = try await bench.store.sessions()
        #expect(sessions.count == Self.sensors)
        for session in sessions {
            let name = try #require(ids.first { $0.value == session.idText }?.key)
            let number = Int(name.dropFirst("virtual-".count))!
            let reason = try #require(session.endReason, "\(name)'s session has no end").rawValue
            let expected: Set = number <= 48 ? ["stopped", "idle", "link-lost"] : ["idle", "link-lost"]
            #expect(expected.contains(reason), "\(name): \(reason)")
            // The pipeline counted every sample it handed the recorder, and the recorder stored
            // every sample it was handed, also the ones in flight when the session ended.
            let stored = try await bench.store.samples(of: session.id)
            #expect(Int64(stored.count) == session.counts.received, "\(name)")
            // A stop or an unpair comes only once the session has counted a sample (`streaming`);
            // the idle rule may end a session before its sensor's first notification ran.
            if reason == "stopped" { #expect(stored.count > 0, "\(name) recorded nothing") }
        }
        running.cancel()
        try await running.value
    }
}
