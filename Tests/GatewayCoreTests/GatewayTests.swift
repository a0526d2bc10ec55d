// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import Foundation
import GATTClient
import GatewayCore
import GatewayTesting
import Logging
import NIOConcurrencyHelpers
import SensorLinks
import ServiceLifecycle
import SessionStore
import Testing
import VirtualSensor

/// The gateway end to end on a manual clock: real-time virtual sensors → sensor links → session
/// pipelines → store and event bus, driven through `GatewayControl`.
@Suite("Gateway", .serialized, .timeLimit(.minutes(5)))
struct GatewayTests {
    @Test(
        "a session records what the virtual sensor does: events detected live equal detection over the stored samples; stop ends it as stopped"
    )
    func sessionRecordsAndStops() async throws {
        let bench = try GatewayBench(scripts: [.tableTennis])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        let events = try bench.gateway.events()
        let collected = Task {
            var items: [GatewayEvent] = []
            for await published in events { items.append(published.event) }
            return items
        }

        let started = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1"))
        #expect(started.isLive)
        #expect(started.profile == "table-tennis")
        #expect(started.alias == "virtual-1")
        #expect(try await bench.gateway.sensors().first?.liveSessionId == started.id)
        try await bench.drive(for: 30)
        let stopped = try await bench.gateway.stopSession(id: String(started.id.prefix(8)))
        #expect(!stopped.isLive)
        #expect(stopped.endReason == "stopped")

        let id = try #require(UUID(uuidString: started.id))
        let record = try await bench.store.session(id: id)
        #expect(record.endReason == .stopped)
        let samples = try await bench.store.samples(of: id)
        // 30 s at 100 Hz, less what the first notification straddling the start lost.
        #expect(samples.count >= 2900 && samples.count <= 3000)
        #expect(record.counts.received == Int64(samples.count))
        // Indices increase and times never go back; a sample missing under CPU contention (the
        // sensor streams in real time while the gateway runs on the manual clock and other suites
        // compete for the cores) must be accounted as lost, never silently skipped. Under such
        // contention several notifications can reach the gateway at one manual-clock instant, so
        // two samples may share a recovered time here; with one clock (the daemon) they cannot.
        // The store keeps times to the microsecond (StoreTime), so compare them at that resolution.
        let backwards = zip(samples, samples.dropFirst()).first {
            !($1.index > $0.index && StoreTime.microseconds($1.t) >= StoreTime.microseconds($0.t))
        }
        #expect(backwards == nil, "first out of order: \(String(describing: backwards)) of \(samples.count)")
        let skipped = zip(samples, samples.dropFirst()).reduce(Int64(0)) { $0 + ($1.1.index - $1.0.index - 1) }
        #expect(skipped == record.counts.lost, "index gaps \(skipped), lost \(record.counts.lost)")
        #expect(abs((samples.last?.t ?? 0) - 30) < 0.2)

        let stored = try await bench.store.events(of: id)
        #expect(stored.count >= 3, "a 30 s table-tennis script has rallies")
        #expect(stored.allSatisfy { $0.type == "hit" && ($0.peakG ?? 0) > 1 })
        let offline = ProfileDetector(profile: .tableTennis).events(in: try await bench.store.detectionSamples(of: id))
        #expect(
            offline.map(EventRecord.init) == stored,
            "re-running detection on the stored samples gives the same events")
        let api = try await bench.gateway.sessionEventPages(id: started.id).reduce(into: []) { $0 += $1 }
        #expect(api.map(\.t) == stored.map(\.t).sorted())
        #expect(stopped.eventCounts == ["hit": stored.count])
        #expect(stopped.samples == samples.count)

        running.cancel()
        try await running.value
        let items = await collected.value
        let detections = items.compactMap { if case .detection(let payload) = $0 { payload } else { nil } }
        #expect(detections.map(\.event) == stored, "the event stream carries the stored records")
        #expect(detections.allSatisfy { $0.sessionId == started.id && $0.sensor == "virtual-1" })
        let sessions = items.compactMap { if case .session(let info) = $0 { info } else { nil } }
        #expect(sessions.map(\.isLive) == [true, false])
        #expect(items.contains { if case .counters(let counters) = $0 { counters.count > 0 } else { false } })
    }

    @Test(
        "a link dropped mid-session (the sensor walks out of range) reconnects into the same session; the samples it took while away are the accounted gap"
    )
    func linkDropKeepsSession() async throws {
        let bench = try GatewayBench(
            scripts: [.tableTennis], outOfRange: .init(every: .seconds(8), duration: .milliseconds(2500)))
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        let events = try bench.gateway.events()
        let collected = Task {
            var items: [GatewayEvent] = []
            for await published in events { items.append(published.event) }
            return items
        }
        let started = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1"))
        // Connected 8 s (less the setup before the session), away 2.5 s, then back as soon as a
        // retry comes after that (the backoff's jittered delays run on the manual clock).
        try await bench.drive(for: 9)
        var linkState = try await bench.gateway.sensors().first?.linkState
        #expect(linkState != .connected, "the link dropped after 8 s")
        let reconnected = try await bench.drive(step: 0.5, upTo: 21) {
            linkState = try await bench.gateway.sensors().first?.linkState
            return linkState == .connected
        }
        #expect(reconnected, "reconnected within 30 s")
        try await bench.drive(for: 2)
        let stopped = try await bench.gateway.stopSession(id: started.id)
        #expect(stopped.endReason == "stopped")
        running.cancel()
        try await running.value

        let id = try #require(UUID(uuidString: started.id))
        let sessions = try await bench.store.sessions()
        #expect(sessions.map(\.id) == [id], "one session across the drop")
        let record = try await bench.store.session(id: id)
        let samples = try await bench.store.samples(of: id)
        let gaps = zip(samples, samples.dropFirst()).map { $1.index - $0.index - 1 }
        #expect(gaps.allSatisfy { $0 >= 0 }, "no duplicate and no sample out of order")
        let largest = try #require(gaps.max())
        // 2.5 s away at 100 Hz, plus the wait for the retry that follows (the backoff grows while
        // the sensor refuses; the drive loop gives up after 30 s).
        #expect(
            largest >= 250 && largest <= 3_000,
            "the gap is the time away: \(largest) samples, gaps \(gaps.filter { $0 > 0 })")
        #expect(gaps.filter { $0 > 0 }.count <= 3, "one gap (and at most notifications in flight at the drop)")
        #expect(gaps.reduce(0, +) == record.counts.lost, "every missing index is counted as lost")
        #expect(stopped.lostSamples == Int(record.counts.lost))
        // The time base carries on across the gap. On this manual clock every real-time delay
        // of the reconnection (a few ms) is magnified 50 times (30 ms of clock per 0.6 ms of
        // real time, and the sample clock fits arrival times), so only the rough size is checked
        // here (how far the clock runs on past the indices depends on the machine's load, so it is not
        // asserted); SampleClockTests checks the jump closely on exact arrival times.
        let gapAt = try #require(gaps.firstIndex(of: largest))
        let jump = samples[gapAt + 1].t - samples[gapAt].t
        #expect(jump >= 2.5, "time across the gap \(jump) s: at least the time away")

        let items = await collected.value
        let states = items.compactMap { if case .link(let link) = $0 { link.state } else { nil } }
        #expect(states.starts(with: [.lost]), "\(states)")
        #expect(states.contains(.retrying))
        #expect(states.last == .connected || states.last == .stopped, "\(states)")
        let lives = items.compactMap { if case .session(let info) = $0 { info.isLive } else { nil } }
        #expect(lives == [true, false], "the session neither ended nor restarted at the drop")
    }

    @Test("idle-stop: a sensor lying still for the idle time ends its session with reason idle")
    func idleStop() async throws {
        var motion = MotionOptions()
        motion.distractors = false
        motion.noise = 0.003
        let bench = try GatewayBench(scripts: [.rest], motion: motion, idleStop: .seconds(3))
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        let started = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1", profile: "steps"))
        let id = try #require(UUID(uuidString: started.id))
        try await bench.drive(for: 2)
        #expect(try await bench.store.session(id: id).endedAt == nil)
        try await bench.drive(for: 2.5)
        #expect(try await bench.waitUntil { try await bench.store.session(id: id).endedAt != nil })
        let record = try await bench.store.session(id: id)
        #expect(record.endReason?.rawValue == "idle")
        #expect(record.counts.received >= 250)
        #expect(try await bench.gateway.sensors().first?.liveSessionId == nil)
        running.cancel()
        try await running.value
    }

    @Test("pair, rename and unpair: unknown sensors are not found (with the fix), aliases stay unique")
    func pairing() async throws {
        let attempts = AttemptCounter()
        let refusing = ClosureSensorConnector { _ in
            attempts.increment()
            throw CancellationError()
        }
        let remembered = try #require(BluetoothAddress(string: "C4:05:FC:97:8B:10", kind: .random))
        let bench = try GatewayBench(scripts: [.rest], connectors: [refusing])
        try await bench.store.saveSensor(SensorRecord(address: remembered, alias: "bench", paired: true))
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.gateway.sensors().map(\.alias) == ["bench", "virtual-1"])
        #expect(try await bench.waitUntil { attempts.value >= 1 }, "a paired sensor from the store gets a link")

        let anna = try await bench.gateway.pair(
            PairRequest(address: "C4:05:FC:97:8B:75", alias: "anna", athlete: "Anna"))
        #expect(anna.alias == "anna")
        #expect(anna.athlete == "Anna")
        #expect(anna.addressType == "random")
        #expect(!anna.isVirtual)
        let pairedTwice = await GatewayBench.expectControlError(.conflict) {
            try await bench.gateway.pair(PairRequest(address: "C4:05:FC:97:8B:75"))
        }
        #expect(pairedTwice?.message == "C4:05:FC:97:8B:75 is already paired as anna")
        #expect(pairedTwice?.fix == "to pair it under another alias, unpair it first: `sportsensorctl unpair anna`")
        await GatewayBench.expectControlError(.conflict) {
            try await bench.gateway.pair(PairRequest(address: "C4:05:FC:97:8B:76", alias: "anna"))
        }
        await GatewayBench.expectControlError(.invalidRequest) {
            try await bench.gateway.pair(PairRequest(address: "nope"))
        }

        let missing = await GatewayBench.expectControlError(.notFound) { try await bench.gateway.unpair(sensor: "bob") }
        #expect(missing?.fix?.contains("sportsensorctl sensors") == true)
        await GatewayBench.expectControlError(.notFound) {
            try await bench.gateway.updateSensor("bob", SensorUpdate(alias: "robert"))
        }
        await GatewayBench.expectControlError(.conflict) {
            try await bench.gateway.updateSensor("anna", SensorUpdate(alias: "virtual-1"))
        }
        let renamed = try await bench.gateway.updateSensor(
            "C4:05:FC:97:8B:75", SensorUpdate(alias: "anna-left", athlete: ""))
        #expect(renamed.alias == "anna-left")
        #expect(renamed.athlete == nil)

        try await bench.gateway.unpair(sensor: "anna-left")
        #expect(try await bench.gateway.sensors().map(\.alias) == ["bench", "virtual-1"])
        let row = try await bench.store.sensors().first { $0.alias == "anna-left" }
        #expect(row?.paired == false, "unpairing keeps the row (and its sessions) but not the pairing")

        // A virtual sensor unpairs like any other, stays visible to a scan, and pairs again.
        try await bench.gateway.unpair(sensor: "virtual-1")
        #expect(try await bench.gateway.sensors().map(\.alias) == ["bench"])
        let scanning = Task { try await bench.gateway.scan(seconds: 1) }
        try await bench.drive(for: 1.2)
        let seen = try await scanning.value
        #expect(seen.map(\.address) == ["CA:FE:00:00:00:01"])
        #expect(seen.first?.isSduSensor == true)
        let again = try await bench.gateway.pair(
            PairRequest(address: "CA:FE:00:00:00:01", alias: "court-1", athlete: "Cleo"))
        #expect(again.isVirtual)
        #expect(again.alias == "court-1")
        #expect(again.athlete == "Cleo")
        #expect(
            try await bench.waitUntil { try await bench.gateway.sensors().contains { $0.linkState == .connected } })
        running.cancel()
        try await running.value
    }

    @Test(
        "sessions: unknown sensor → not found; bad profile → invalid; a second start → conflict; unknown id → not found"
    )
    func sessionErrors() async throws {
        let bench = try GatewayBench(scripts: [.rest])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        let unknown = await GatewayBench.expectControlError(.notFound) {
            try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-9"))
        }
        #expect(unknown?.fix != nil)
        await GatewayBench.expectControlError(.invalidRequest) {
            try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1", profile: "golf"))
        }
        let started = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1", athlete: "Bo"))
        #expect(started.athlete == "Bo")
        await GatewayBench.expectControlError(.conflict) {
            try await bench.gateway.startSession(StartSessionRequest(sensor: "CA:FE:00:00:00:01"))
        }
        await GatewayBench.expectControlError(.notFound) { try await bench.gateway.stopSession(id: "0000dead") }
        #expect(
            try await bench.gateway.sessions(athlete: "Bo", sensor: nil, profile: nil, live: true, limit: nil).map(\.id)
                == [started.id])
        #expect(try await bench.gateway.status().liveSessions == 1)
        _ = try await bench.gateway.stopSession(id: started.id)
        await GatewayBench.expectControlError(.conflict) { try await bench.gateway.stopSession(id: started.id) }
        running.cancel()
        try await running.value
    }

    @Test("graceful shutdown of the service group ends every live session with reason shutdown")
    func shutdownEndsSessions() async throws {
        let bench = try GatewayBench(scripts: [.tableTennis, .steps])
        let group = ServiceGroup(services: [bench.gateway], logger: Logger(label: "test.group"))
        let running = Task { try await group.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 2))
        let first = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1"))
        let second = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-2", profile: "steps"))
        try await bench.drive(for: 3)
        await group.triggerGracefulShutdown()
        try await running.value
        for info in [first, second] {
            let record = try await bench.store.session(id: try #require(UUID(uuidString: info.id)))
            #expect(record.endReason == .shutdown)
            #expect(record.counts.received > 200)
        }
    }
}

/// Counts calls from any thread.
final class AttemptCounter: Sendable {
    private let count = NIOLockedValueBox(0)
    func increment() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}
