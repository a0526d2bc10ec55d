// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import GatewayTesting
import Testing
import VirtualSensor

extension ManualClock {
    /// Moves time to `offset` after the origin, waking every sleeper whose deadline has come.
    fileprivate func advance(toOffset offset: Duration) {
        advance(to: Instant(offset: offset))
    }

    /// Waits until something sleeps on the clock; returns the earliest deadline as an offset.
    fileprivate func nextDeadline() async throws -> Duration {
        try await waitForSleepers(count: 1)
        return try #require(sleeperDeadlines.first).offset
    }
}

@Suite("Notification pacing")
struct PacingTests {
    @Test("deadlines are k / rate apart and computed from the start, never accumulated")
    func schedule() {
        let start = ManualClock.Instant(offset: .seconds(5))
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
        let clock = ManualClock()
        let configuration = VirtualSensorConfiguration(seed: 5, sampleRate: 100, initialCounter: 0)
        let sensor = try VirtualSensor(configuration: configuration, source: CountingSource(), clock: clock)
        let (clientEnd, serverEnd) = LoopbackATTBearer.pair()
        let task = Task { try await sensor.run(on: serverEnd) }
        var client = RawClient(bearer: clientEnd)

        #expect(try await client.request("12 1600 0100") == [0x13])
        #expect(try await clock.nextDeadline() == .milliseconds(30))
        #expect(client.notifications.isEmpty)
        clock.advance(toOffset: .milliseconds(30))
        #expect(try await client.nextNotification().map(RawClient.header) == 0)
        #expect(try await clock.nextDeadline() == .milliseconds(60))

        // A late wake-up does not push later deadlines back.
        clock.advance(toOffset: .milliseconds(75))
        #expect(try await client.nextNotification().map(RawClient.header) == 3)
        #expect(try await clock.nextDeadline() == .milliseconds(90))

        // Falling behind catches up: the samples due by 200 ms are all sent, then it waits.
        clock.advance(toOffset: .milliseconds(200))
        for header: UInt16 in [6, 9, 12, 15] {
            #expect(try await client.nextNotification().map(RawClient.header) == header)
        }
        #expect(try await clock.nextDeadline() == .milliseconds(210))
        #expect(await sensor.statistics.samplesGenerated == 18)
        #expect(client.notifications.flatMap(RawClient.samples) == (0..<18).map(CountingSource.sample))

        // Disabled, the sensor stops sleeping on the clock; re-enabled, it starts a new schedule.
        #expect(try await client.request("12 1600 0000") == [0x13])
        clock.advance(toOffset: .milliseconds(500))
        #expect(try await client.request("12 1600 0100") == [0x13])
        #expect(try await clock.nextDeadline() == .milliseconds(530))
        clock.advance(toOffset: .milliseconds(530))
        #expect(try await client.nextNotification().map(RawClient.header) == 18)

        await clientEnd.close()
        try await task.value
    }

    @Test(
        "a stream stopped between notifications: the samples taken since the last one go unsent, so the next stream's first index tells the time away",
        arguments: [false, true])
    func unsentSamplesCount(linkDrops: Bool) async throws {
        let clock = ManualClock()
        let configuration = VirtualSensorConfiguration(
            seed: 5, sampleRate: 100, initialCounter: 0, samplesWhileIdle: true)
        let sensor = try VirtualSensor(configuration: configuration, source: CountingSource(), clock: clock)
        let (firstClient, firstServer) = LoopbackATTBearer.pair()
        let first = Task { try await sensor.run(on: firstServer) }
        var client = RawClient(bearer: firstClient)
        #expect(try await client.request("12 1600 0100") == [0x13])
        #expect(try await clock.nextDeadline() == .milliseconds(30))
        clock.advance(toOffset: .milliseconds(30))
        #expect(try await client.nextNotification().map(RawClient.header) == 0)
        // Asleep until 60 ms when the stream stops at 50 ms: samples 3 and 4 are taken, not sent.
        #expect(try await clock.nextDeadline() == .milliseconds(60))
        clock.advance(toOffset: .milliseconds(50))
        var current = first
        var clientEnd = firstClient
        if linkDrops {
            await firstClient.close()
            try await first.value
            let (nextClient, nextServer) = LoopbackATTBearer.pair()
            current = Task { try await sensor.run(on: nextServer) }
            clientEnd = nextClient
            client = RawClient(bearer: nextClient)
        } else {
            #expect(try await client.request("12 1600 0000") == [0x13])
        }
        clock.advance(toOffset: .milliseconds(500))
        #expect(try await client.request("12 1600 0100") == [0x13])
        #expect(try await clock.nextDeadline() == .milliseconds(530))
        clock.advance(toOffset: .milliseconds(530))
        // Samples 0–49 were taken by 500 ms and 0–2 sent: the next stream starts at 50.
        #expect(try await client.nextNotification().map(RawClient.header) == 50)
        #expect(await sensor.statistics.samplesUnsent == 47)
        await clientEnd.close()
        try await current.value
    }
}
