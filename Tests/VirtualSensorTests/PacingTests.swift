// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import GatewayTesting
import Synchronization
import Testing
import VirtualSensor

/// A clock that moves only when the test advances it. (GatewayTesting's ManualClock is being
/// written in parallel; this is the minimum these tests need.)
final class SteppedClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLock { state in
                    if state.cancelled.remove(id) != nil {
                        continuation.resume(throwing: CancellationError())
                    } else if deadline <= state.now {
                        continuation.resume()
                    } else {
                        state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time to `offset` and wakes every sleeper whose deadline has come.
    func advance(to offset: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = Instant(offset: offset)
            let due = state.sleepers.filter { $0.deadline <= state.now }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits until something sleeps on the clock; returns the earliest deadline as an offset.
    func nextDeadline() async throws -> Duration {
        for _ in 0..<5000 {
            if let deadline = state.withLock({ $0.sleepers.map(\.deadline.offset).min() }) { return deadline }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("nothing went to sleep on the clock within 5 s")
        return .zero
    }
}

@Suite("Notification pacing")
struct PacingTests {
    @Test("deadlines are k / rate apart and computed from the start, never accumulated")
    func schedule() {
        let start = SteppedClock.Instant(offset: .seconds(5))
        let at100 = NotificationSchedule(start: start, sampleRate: 100)
        #expect(at100.deadline(afterSamples: 0, carrying: 3).offset == .seconds(5) + .milliseconds(30))
        #expect(at100.deadline(afterSamples: 3, carrying: 3).offset == .seconds(5) + .milliseconds(60))
        #expect(at100.deadline(afterSamples: 6, carrying: 1).offset == .seconds(5) + .milliseconds(70))
        let at400 = NotificationSchedule(start: start, sampleRate: 400)
        #expect(at400.deadline(afterSamples: 0, carrying: 3).offset == .seconds(5) + .microseconds(7500))
        // 1/300 s has no exact Duration, yet an hour of samples lands exactly on the hour.
        let at300 = NotificationSchedule(start: start, sampleRate: 300)
        #expect(at300.instant(afterSamples: 300 * 3600).offset == .seconds(3605))
        var accumulated = start
        for _ in 0..<(300 * 3600) { accumulated = accumulated.advanced(by: .seconds(1) / 300) }
        #expect(accumulated.offset != .seconds(3605), "adding periods drifts; the schedule must not")
        // Generic over any clock's instants.
        let now = ContinuousClock.now
        #expect(NotificationSchedule(start: now, sampleRate: 50).instant(afterSamples: 50) == now + .seconds(1))
    }

    @Test("real-time pacing sends one notification every k / rate on absolute deadlines")
    func realTime() async throws {
        let clock = SteppedClock()
        let configuration = VirtualSensorConfiguration(seed: 5, sampleRate: 100, initialCounter: 0)
        let sensor = try VirtualSensor(configuration: configuration, source: CountingSource(), clock: clock)
        let (clientEnd, serverEnd) = LoopbackATTBearer.pair()
        let task = Task { try await sensor.run(on: serverEnd) }
        var client = RawClient(bearer: clientEnd)

        #expect(try await client.request("12 1600 0100") == [0x13])
        #expect(try await clock.nextDeadline() == .milliseconds(30))
        #expect(client.notifications.isEmpty)
        clock.advance(to: .milliseconds(30))
        #expect(try await client.nextNotification().map(RawClient.header) == 0)
        #expect(try await clock.nextDeadline() == .milliseconds(60))

        // A late wake-up does not push later deadlines back.
        clock.advance(to: .milliseconds(75))
        #expect(try await client.nextNotification().map(RawClient.header) == 3)
        #expect(try await clock.nextDeadline() == .milliseconds(90))

        // Falling behind catches up: the samples due by 200 ms are all sent, then it waits.
        clock.advance(to: .milliseconds(200))
        for header: UInt16 in [6, 9, 12, 15] {
            #expect(try await client.nextNotification().map(RawClient.header) == header)
        }
        #expect(try await clock.nextDeadline() == .milliseconds(210))
        #expect(await sensor.statistics.samplesGenerated == 18)
        #expect(client.notifications.flatMap(RawClient.samples) == (0..<18).map(CountingSource.sample))

        // Disabled, the sensor stops sleeping on the clock; re-enabled, it starts a new schedule.
        #expect(try await client.request("12 1600 0000") == [0x13])
        clock.advance(to: .milliseconds(500))
        #expect(try await client.request("12 1600 0100") == [0x13])
        #expect(try await clock.nextDeadline() == .milliseconds(530))
        clock.advance(to: .milliseconds(530))
        #expect(try await client.nextNotification().map(RawClient.header) == 18)

        await clientEnd.close()
        try await task.value
    }
}
