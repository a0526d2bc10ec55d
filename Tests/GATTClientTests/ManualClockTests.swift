// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import NIOConcurrencyHelpers
import Testing

@Suite("Manual clock", .timeLimit(.minutes(5)))
struct ManualClockTests {
    @Test("time moves only when advanced")
    func advancing() {
        let clock = ManualClock()
        #expect(clock.now == ManualClock.Instant(offset: .zero))
        clock.advance(by: .milliseconds(1500))
        #expect(clock.now.offset == .milliseconds(1500))
        clock.advance(to: ManualClock.Instant(offset: .seconds(1)))
        #expect(clock.now.offset == .milliseconds(1500))
        #expect(clock.now.duration(to: clock.now.advanced(by: .seconds(2))) == .seconds(2))
    }

    @Test("a sleeper wakes when its deadline is reached, not before")
    func sleeperWakes() async throws {
        let clock = ManualClock()
        let woke = NIOLockedValueBox(false)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(10))
            woke.withLockedValue { $0 = true }
        }
        try await clock.waitForSleepers(count: 1)
        #expect(clock.sleeperDeadlines == [ManualClock.Instant(offset: .seconds(10))])
        clock.advance(by: .seconds(9))
        #expect(clock.sleepers == 1)
        #expect(!woke.withLockedValue { $0 })
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(woke.withLockedValue { $0 })
        #expect(clock.sleepers == 0)
    }

    @Test("a deadline already reached returns at once")
    func pastDeadline() async throws {
        let clock = ManualClock(now: ManualClock.Instant(offset: .seconds(5)))
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(5)), tolerance: nil)
        try await clock.sleep(until: ManualClock.Instant(offset: .seconds(1)), tolerance: nil)
        #expect(clock.sleepers == 0)
    }

    @Test("cancelling a sleeper throws CancellationError and removes it")
    func cancellation() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(30)) }
        try await clock.waitForSleepers(count: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
    }

    @Test("a task cancelled before it sleeps does not sleep")
    func cancelledBeforehand() async throws {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(30))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
    }

    @Test("several sleepers: each wakes at its own deadline")
    func severalSleepers() async throws {
        let clock = ManualClock()
        let short = Task { try await clock.sleep(for: .seconds(3)) }
        let long = Task { try await clock.sleep(for: .seconds(5)) }
        try await clock.waitForSleepers(count: 2)
        clock.advance(by: .seconds(4))
        try await short.value
        #expect(clock.sleepers == 1)
        clock.advance(by: .seconds(1))
        try await long.value
        #expect(clock.sleepers == 0)
    }

    @Test("waiting for sleepers returns at once when enough are asleep, and can be cancelled")
    func waitingForSleepers() async throws {
        let clock = ManualClock()
        try await clock.waitForSleepers(count: 0)
        let waiter = Task { try await clock.waitForSleepers(count: 1) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
    }
}
