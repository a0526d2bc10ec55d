// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SeededRandomness
import SensorLinks
import Testing

/// A generator that always returns the same bits: 0 draws the smallest jitter, all ones the
/// largest.
struct FixedRandom: RandomNumberGenerator, Sendable {
    var bits: UInt64
    mutating func next() -> UInt64 { bits }
}

@Suite("ReconnectBackoff")
struct ReconnectBackoffTests {
    @Test("ceilings double from 1 s and stop at the 30 s cap: 1, 2, 4, 8, 16, 30, 30")
    func ceilings() {
        let backoff = ReconnectBackoff(generator: SeededRandom(seed: 1))
        let ceilings = (1...8).map { backoff.ceiling(forAttempt: $0) }
        #expect(ceilings == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
        #expect(backoff.ceiling(forAttempt: 1_000_000) == .seconds(30))
    }

    @Test("each delay is jittered within [0, ceiling] and the attempts count up")
    func jitterWithinBounds() {
        var backoff = ReconnectBackoff(generator: SeededRandom(seed: 42))
        var delays: [Duration] = []
        for attempt in 1...200 {
            guard case .retry(let delay, let number) = backoff.failed(upFor: nil) else {
                Issue.record("gave up without a maximum")
                return
            }
            #expect(number == attempt)
            #expect(delay >= .zero)
            #expect(delay <= backoff.ceiling(forAttempt: attempt))
            #expect(delay <= .seconds(30))
            delays.append(delay)
        }
        // Full jitter really spreads the capped delays over the whole window.
        let capped = delays.dropFirst(5)
        #expect(capped.min()! < .seconds(5))
        #expect(capped.max()! > .seconds(25))
    }

    @Test("the extremes of the generator give exactly 0 and exactly the ceiling")
    func extremes() {
        var low = ReconnectBackoff(generator: FixedRandom(bits: 0))
        var high = ReconnectBackoff(generator: FixedRandom(bits: .max))
        let expected: [Int64] = [1, 2, 4, 8, 16, 30, 30]
        for (index, ceiling) in expected.enumerated() {
            #expect(low.failed(upFor: nil) == .retry(after: .zero, attempt: index + 1))
            #expect(high.failed(upFor: nil) == .retry(after: .seconds(ceiling), attempt: index + 1))
        }
    }

    @Test("the same seed replays the same delays")
    func seeded() {
        var a = ReconnectBackoff(generator: SplitMix64(seed: 7))
        var b = ReconnectBackoff(generator: SplitMix64(seed: 7))
        var c = ReconnectBackoff(generator: SplitMix64(seed: 8))
        let first = (0..<10).map { _ in a.failed(upFor: nil) }
        #expect(first == (0..<10).map { _ in b.failed(upFor: nil) })
        #expect(first != (0..<10).map { _ in c.failed(upFor: nil) })
    }

    @Test("a link stable for a minute resets to the initial delay; a shorter one keeps backing off")
    func resetAfterStableMinute() {
        var backoff = ReconnectBackoff(generator: FixedRandom(bits: .max))
        for _ in 0..<4 { _ = backoff.failed(upFor: nil) }
        #expect(backoff.attempts == 4)
        // Up for 59.999 s: not stable, attempt 5 with the 16 s ceiling.
        #expect(backoff.failed(upFor: .seconds(60) - .milliseconds(1)) == .retry(after: .seconds(16), attempt: 5))
        // Up for exactly a minute: back to attempt 1 and 1 s.
        #expect(backoff.failed(upFor: .seconds(60)) == .retry(after: .seconds(1), attempt: 1))
        #expect(backoff.failed(upFor: nil) == .retry(after: .seconds(2), attempt: 2))
        #expect(backoff.failed(upFor: .seconds(3600)) == .retry(after: .seconds(1), attempt: 1))
    }

    @Test("with a maximum of 3 attempts the fourth failure gives up, and keeps giving up")
    func maximumAttempts() {
        var backoff = ReconnectBackoff(
            configuration: .init(maximumAttempts: 3), generator: FixedRandom(bits: .max))
        #expect(backoff.failed(upFor: nil) == .retry(after: .seconds(1), attempt: 1))
        #expect(backoff.failed(upFor: nil) == .retry(after: .seconds(2), attempt: 2))
        #expect(backoff.failed(upFor: nil) == .retry(after: .seconds(4), attempt: 3))
        #expect(backoff.failed(upFor: nil) == .giveUp(attempts: 3))
        #expect(backoff.failed(upFor: nil) == .giveUp(attempts: 3))
        // A stable link in between would have reset the count.
        #expect(backoff.failed(upFor: .seconds(60)) == .retry(after: .seconds(1), attempt: 1))
    }

    @Test("configuration values out of range are clamped")
    func clamped() {
        let configuration = ReconnectBackoffConfiguration(
            initialDelay: .seconds(-1), multiplier: 0, maximumDelay: .seconds(-5), stableDuration: .seconds(-1),
            maximumAttempts: -2)
        #expect(configuration.initialDelay == .zero)
        #expect(configuration.multiplier == 1)
        #expect(configuration.maximumDelay == .zero)
        #expect(configuration.stableDuration == .zero)
        #expect(configuration.maximumAttempts == 0)
        var backoff = ReconnectBackoff(configuration: configuration, generator: FixedRandom(bits: .max))
        #expect(backoff.failed(upFor: nil) == .giveUp(attempts: 0))
    }
}
