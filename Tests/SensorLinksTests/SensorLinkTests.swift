// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayTesting
import NIOConcurrencyHelpers
import SDUSensor
import SensorLinks
import Testing
import VirtualSensor

/// The link against real virtual sensors (GATT servers over loopback bearers) on a manual clock:
/// no real-time waits; `waitForSleepers` says when the link (and a real-time sensor) is asleep.
@Suite("SensorLink", .timeLimit(.minutes(5)))
struct SensorLinkTests {
    typealias Instant = ManualClock.Instant

    static let address = BluetoothAddress(string: "C4:05:FC:97:8B:75", kind: .random)!

    static func sensor(
        clock: ManualClock, firstSample: Int = 0, initialCounter: UInt16, sampleRate: Int = 100,
        faults: VirtualSensorConfiguration.Faults = .none, pacing: VirtualSensorConfiguration.Pacing,
        log: NotificationLog? = nil
    ) throws -> VirtualSensor<ManualClock> {
        let configuration = VirtualSensorConfiguration(
            seed: 5, address: address, sampleRate: sampleRate, initialCounter: initialCounter, faults: faults,
            pacing: pacing)
        var onNotification: (@Sendable (VirtualSensorNotification) -> Void)?
        if let log { onNotification = { log.append($0) } }
        return try VirtualSensor(
            configuration: configuration, source: CountingSource(index: firstSample), clock: clock,
            onNotification: onNotification)
    }

    static func link(
        _ bench: VirtualSensorBench, backoff: ReconnectBackoffConfiguration = .init()
    ) -> SensorLink<ManualClock> {
        SensorLink(
            address: address, connector: bench.connector,
            configuration: SensorLinkConfiguration(backoff: backoff, jitterSeed: 3), clock: bench.clock)
    }

    /// Expects `.retrying` with an attempt number and a delay within its ceiling, sleeps through
    /// it on the manual clock and returns the delay.
    @discardableResult
    static func expectRetry(
        _ state: LinkState?, attempt: Int, ceiling: Duration, clock: ManualClock,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Duration {
        let retry = try #require(
            state?.retry, "expected retrying, got \(String(describing: state))", sourceLocation: sourceLocation)
        #expect(retry.attempt == attempt, sourceLocation: sourceLocation)
        #expect(retry.delay >= .zero && retry.delay <= ceiling, sourceLocation: sourceLocation)
        if retry.delay > .zero {
            try await clock.waitForSleepers(count: 1)
            #expect(clock.sleeperDeadlines == [clock.now.advanced(by: retry.delay)], sourceLocation: sourceLocation)
        }
        clock.advance(by: retry.delay)
        return retry.delay
    }

    static func expectContiguous(_ samples: [IndexedSample], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            zip(samples, samples.dropFirst()).allSatisfy { $1.index == $0.index + 1 }, sourceLocation: sourceLocation)
    }

    @Test("disconnect fault: lost, retry within 1 s, reconnect, the counter continues with no duplicate and no gap")
    func reconnectsAfterDisconnect() async throws {
        let clock = ManualClock()
        // The sensor closes the link after 30 samples. A disconnect fault uses up the sensor's
        // budget for good (a second `run` on it would close at once), so the reconnection is
        // served by an identical sensor whose counter and motion continue where the first
        // stopped; the counter wraps through 65535 on the way.
        let first = try Self.sensor(
            clock: clock, initialCounter: 65_520, faults: .init(disconnectAfterSamples: 30),
            pacing: .asFastAsPossible)
        let second = try Self.sensor(
            clock: clock, firstSample: 30, initialCounter: 65_520 &+ 30, faults: .init(disconnectAfterSamples: 30),
            pacing: .asFastAsPossible)
        let bench = VirtualSensorBench(clock: clock, plans: [.init(sensor: first), .init(sensor: second)])
        let link = Self.link(bench)
        var reader = LinkEventReader(link)
        let running = Task { await link.run() }

        #expect(await reader.nextState() == .connected(Self.address))
        let lost = await reader.nextState()
        #expect(lost?.reason?.code == .disconnected)
        #expect(reader.samples.count == 30)
        let delay = try await Self.expectRetry(await reader.nextState(), attempt: 1, ceiling: .seconds(1), clock: clock)

        #expect(await reader.nextState() == .connected(Self.address))
        #expect(bench.connectTimes == [Instant(offset: .zero), Instant(offset: delay)])
        #expect(await reader.nextState()?.reason?.code == .disconnected)
        // Still connected for no time at all: the backoff grows to attempt 2.
        let retry = try #require(await reader.nextState()?.retry)
        #expect(retry.attempt == 2)
        #expect(retry.delay <= .seconds(2))

        link.stop()
        #expect(await reader.nextState() == .stopped)
        #expect(await reader.nextState() == nil)
        await running.value

        #expect(reader.samples.map(\.raw) == (0..<60).map(CountingSource.sample))
        Self.expectContiguous(reader.samples)
        let statistics = link.statistics
        #expect(statistics.connects == 2)
        #expect(statistics.reconnects == 1)
        #expect(statistics.linksLost == 2)
        #expect(statistics.samples == 60)
        #expect(statistics.duplicateSamplesDropped == 0)
        #expect(statistics.missingSamples == 0)
        #expect(statistics.watchdogTrips == 0)
        #expect(link.phase == .stopped)
    }

    @Test("the sink takes every batch in order before the link's lost state; events carry only states")
    func sampleSink() async throws {
        let clock = ManualClock()
        let sensor = try Self.sensor(
            clock: clock, initialCounter: 100, faults: .init(disconnectAfterSamples: 30), pacing: .asFastAsPossible)
        let bench = VirtualSensorBench(clock: clock, plans: [.init(sensor: sensor)])
        let link = Self.link(bench)
        var reader = LinkEventReader(link)
        let running = Task { await link.run() }

        #expect(await reader.nextState() == .connected(Self.address))
        #expect(await reader.nextState()?.reason?.code == .disconnected)
        // Handed over before the loss was published.
        let samples = reader.samples
        #expect(samples.map(\.raw) == (0..<30).map(CountingSource.sample))
        Self.expectContiguous(samples)
        #expect(reader.collector.batches > 0)
        link.stop()
        while await reader.nextState() != nil {}
        await running.value
        #expect(link.statistics.samples == 30)
    }

    static func isStreaming(_ link: SensorLink<ManualClock>) -> Bool {
        if case .streaming = link.phase { return true }
        return false
    }

    @Test("silent sensor at 25 Hz: the watchdog fires exactly 2 s after the last notification and the link reconnects")
    func watchdogReconnectsSilentSensor() async throws {
        let clock = ManualClock()
        let log = NotificationLog()
        // One sensor instance for both connections: on the first it stalls after 20
        // notifications with the link left open; the second `run` carries its counter on.
        let sensor = try Self.sensor(clock: clock, initialCounter: 400, sampleRate: 25, pacing: .realTime, log: log)
        let bench = VirtualSensorBench(
            clock: clock, plans: [.init(sensor: sensor, stallAfter: 20), .init(sensor: sensor)])
        let link = Self.link(bench)
        var reader = LinkEventReader(link)
        let running = Task { await link.run() }
        #expect(await reader.nextState() == .connected(Self.address))

        // 20 notifications of 3 samples, one every 120 ms (3 / 25 Hz).
        for step in 1...20 {
            try await clock.waitForSleepers(count: 2)  // the sensor's pacing and the watchdog
            clock.advance(by: .milliseconds(120))
            await reader.readSamples(until: step * 3)
            #expect(Self.isStreaming(link))
        }
        #expect(clock.now == Instant(offset: .milliseconds(2400)))
        // The 21st is produced at 2.52 s and never delivered: the sensor hangs, the link stays up.
        try await clock.waitForSleepers(count: 2)
        clock.advance(by: .milliseconds(120))
        await bench.stalling[0].waitUntilStalled()

        // Deadline: last notification (2.4 s) + max(2 s, 20 / 25 Hz = 0.8 s) = 4.4 s.
        clock.advance(to: Instant(offset: .milliseconds(4399)))
        try await clock.waitForSleepers(count: 1)
        #expect(clock.sleeperDeadlines == [Instant(offset: .milliseconds(4400))])
        #expect(link.statistics.watchdogTrips == 0)
        clock.advance(by: .milliseconds(1))
        let lost = await reader.nextState()
        #expect(lost?.reason?.code == .silent)
        #expect(link.statistics.watchdogTrips == 1)
        let retrying = await reader.nextState()
        // The dead link's bearer was closed although the socket never said anything.
        await #expect(throws: (any Error).self) { try await bench.linkEnds[0].send([0x1B, 0x15, 0x00]) }
        try await Self.expectRetry(retrying, attempt: 1, ceiling: .seconds(1), clock: clock)
        #expect(await reader.nextState() == .connected(Self.address))
        for step in 1...5 {
            try await clock.waitForSleepers(count: 2)
            clock.advance(by: .milliseconds(120))
            await reader.readSamples(until: 60 + step * 3)
            #expect(Self.isStreaming(link))
        }
        link.stop()
        #expect(await reader.nextState() == .stopped)
        await running.value
        await bench.waitForSensors()

        // Ground truth: 26 notifications produced; the 21st (samples 60–62) never reached the link.
        let produced = log.all
        #expect(produced.count == 26)
        #expect(produced[20].samples == (60..<63).map(CountingSource.sample))
        #expect(
            reader.samples.map(\.raw) == ((0..<60).map(CountingSource.sample) + (63..<78).map(CountingSource.sample)))
        #expect(reader.samples[60].index == reader.samples[59].index + 4)
        let statistics = link.statistics
        #expect(statistics.missingSamples == 3)
        #expect(statistics.duplicateSamplesDropped == 0)
        #expect(statistics.connects == 2)
        #expect(statistics.linksLost == 1)
        #expect(clock.sleepers == 0)
    }

    @Test("connector failures: delays grow 1, 2, 4, 8 s (jittered), then the link gives up")
    func givesUpAfterMaximumAttempts() async throws {
        struct Unreachable: Error {}
        let clock = ManualClock()
        let calls = NIOLockedValueBox<[Instant]>([])
        let connector = ClosureSensorConnector { _ in
            calls.withLockedValue { $0.append(clock.now) }
            throw Unreachable()
        }
        let link = SensorLink(
            address: Self.address, connector: connector,
            configuration: SensorLinkConfiguration(backoff: .init(maximumAttempts: 4), jitterSeed: 11), clock: clock)
        var reader = LinkEventReader(link)
        let running = Task { await link.run() }
        var expectedCalls = [Instant(offset: .zero)]
        for attempt in 1...4 {
            let delay = try await Self.expectRetry(
                await reader.nextState(), attempt: attempt, ceiling: .seconds(1 << (attempt - 1)), clock: clock)
            expectedCalls.append(expectedCalls.last!.advanced(by: delay))
        }
        let gaveUp = await reader.nextState()
        guard case .gaveUp(let reason) = gaveUp else {
            Issue.record("expected gave up, got \(String(describing: gaveUp))")
            return
        }
        #expect(reason.code == .attemptsExhausted)
        let last = try #require(reason.cause as? SensorLinkError)
        #expect(last.code == .connectFailed)
        #expect(last.cause is Unreachable)
        #expect(await reader.nextState() == nil)
        await running.value

        #expect(calls.withLockedValue { $0 } == expectedCalls)
        #expect(reader.samples.isEmpty)
        let statistics = link.statistics
        #expect(statistics.connectAttempts == 5)
        #expect(statistics.failedAttempts == 5)
        #expect(statistics.connects == 0)
        #expect(statistics.lastFailure?.code == .connectFailed)
        #expect(clock.sleepers == 0)
    }

    @Test("stop() while streaming: stopped, events finish, the bearer is closed, nothing left asleep")
    func stopWhileStreaming() async throws {
        let clock = ManualClock()
        let sensor = try Self.sensor(clock: clock, initialCounter: 0, pacing: .realTime)
        let bench = VirtualSensorBench(clock: clock, plans: [.init(sensor: sensor)])
        let link = Self.link(bench)
        var reader = LinkEventReader(link)
        let running = Task { await link.run() }
        #expect(await reader.nextState() == .connected(Self.address))
        try await clock.waitForSleepers(count: 2)

        link.stop()
        #expect(await reader.nextState() == .stopped)
        #expect(await reader.nextState() == nil)
        await running.value
        await bench.waitForSensors()
        #expect(link.phase == .stopped)
        await #expect(throws: (any Error).self) { try await bench.linkEnds[0].send([0x1B, 0x15, 0x00]) }
        #expect(await !sensor.isStreaming)
        #expect(clock.sleepers == 0)
        // A second run does nothing.
        await link.run()
    }

    @Test("cancelling run() while waiting to retry stops the link the same way")
    func cancelWhileWaiting() async throws {
        struct Unreachable: Error {}
        let clock = ManualClock()
        let link = SensorLink(
            address: Self.address, connector: ClosureSensorConnector { _ in throw Unreachable() },
            configuration: SensorLinkConfiguration(backoff: .init(initialDelay: .seconds(1)), jitterSeed: 1),
            clock: clock)
        var reader = LinkEventReader(link)
        let running = Task { await link.run() }
        let retry = try #require(await reader.nextState()?.retry)
        if retry.delay > .zero { try await clock.waitForSleepers(count: 1) }
        running.cancel()
        #expect(await reader.nextState() == .stopped)
        #expect(await reader.nextState() == nil)
        await running.value
        #expect(clock.sleepers == 0)
        #expect(link.statistics.connectAttempts == 1)
    }

    @Test("stop() before run(): run returns at once with only stopped, and never connects")
    func stopBeforeRun() async throws {
        let connects = NIOLockedValueBox(0)
        let link = SensorLink(
            address: Self.address,
            connector: ClosureSensorConnector { _ in
                connects.withLockedValue { $0 += 1 }
                return LoopbackATTBearer.pair().0
            }, clock: ManualClock())
        link.stop()
        await link.run()
        var reader = LinkEventReader(link)
        #expect(await reader.nextState() == .stopped)
        #expect(await reader.nextState() == nil)
        #expect(connects.withLockedValue { $0 } == 0)
    }

    @Test("a reconnect where the sensor replays 9 old samples: they are dropped and counted, nothing is lost")
    func replayAfterReconnectIsDropped() async throws {
        let clock = ManualClock()
        let first = try Self.sensor(
            clock: clock, initialCounter: 7, faults: .init(disconnectAfterSamples: 30), pacing: .asFastAsPossible)
        // After reconnecting the sensor resends from sample 21: its counter went back by 9.
        let replaying = try Self.sensor(
            clock: clock, firstSample: 21, initialCounter: 7 + 21, faults: .init(disconnectAfterSamples: 30),
            pacing: .asFastAsPossible)
        let bench = VirtualSensorBench(clock: clock, plans: [.init(sensor: first), .init(sensor: replaying)])
        let link = Self.link(bench)
        var reader = LinkEventReader(link)
        let running = Task { await link.run() }
        #expect(await reader.nextState() == .connected(Self.address))
        #expect(await reader.nextState()?.reason?.code == .disconnected)
        try await Self.expectRetry(await reader.nextState(), attempt: 1, ceiling: .seconds(1), clock: clock)
        #expect(await reader.nextState() == .connected(Self.address))
        #expect(await reader.nextState()?.reason?.code == .disconnected)
        link.stop()
        while let state = await reader.nextState(), state != .stopped {}
        await running.value

        #expect(reader.samples.map(\.raw) == (0..<51).map(CountingSource.sample))
        Self.expectContiguous(reader.samples)
        let statistics = link.statistics
        #expect(statistics.duplicateSamplesDropped == 9)
        #expect(statistics.missingSamples == 0)
        #expect(statistics.samples == 51)
    }

    @Test("drop and malformed faults: published samples are exactly the delivered ones, gaps exactly the lost ones")
    func faultKnobsAccounted() async throws {
        let clock = ManualClock()
        let log = NotificationLog()
        let sensor = try Self.sensor(
            clock: clock, initialCounter: 1234,
            faults: .init(dropFraction: 0.1, malformedFraction: 0.1, disconnectAfterSamples: 600),
            pacing: .asFastAsPossible, log: log)
        let bench = VirtualSensorBench(clock: clock, plans: [.init(sensor: sensor)])
        let link = Self.link(bench)
        var reader = LinkEventReader(link)
        let running = Task { await link.run() }
        #expect(await reader.nextState() == .connected(Self.address))
        #expect(await reader.nextState()?.reason?.code == .disconnected)
        link.stop()
        while let state = await reader.nextState(), state != .stopped {}
        await running.value

        let produced = log.all
        let intact = produced.filter { $0.fate == .sent }
        #expect(produced.count == 200)
        #expect(intact.count < 180)
        #expect(reader.samples.map(\.raw) == intact.flatMap(\.samples))
        let firstIntact = try #require(produced.firstIndex { $0.fate == .sent })
        let lastIntact = try #require(produced.lastIndex { $0.fate == .sent })
        let lostBetween = produced[firstIntact...lastIntact].filter { $0.fate != .sent }.reduce(0) {
            $0 + $1.samples.count
        }
        let statistics = link.statistics
        #expect(statistics.malformedNotifications == produced.filter { $0.fate == .malformed }.count)
        #expect(statistics.missingSamples == lostBetween)
        #expect(statistics.duplicateSamplesDropped == 0)
        #expect(statistics.notifications == produced.filter { $0.fate != .dropped }.count)
        // Indices follow the sensor's own sample numbers: the gaps are where the losses were. (While
        // the decoder is still detecting the counter, the first few notifications, losses are
        // added to the index only when the counter is confirmed; compared from there on.)
        let sensorNumbers = intact.flatMap { n in (0..<n.samples.count).map { Int64(n.firstSampleIndex + $0) } }
        let settled = 60
        let offset = reader.samples[settled].index - sensorNumbers[settled]
        #expect(reader.samples.dropFirst(settled).map(\.index) == sensorNumbers.dropFirst(settled).map { $0 + offset })
        #expect(reader.samples.last!.index - reader.samples.first!.index == sensorNumbers.last! - sensorNumbers.first!)
    }
}
