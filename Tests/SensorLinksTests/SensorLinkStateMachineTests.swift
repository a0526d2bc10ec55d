// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SensorLinks
import Testing

@Suite("SensorLinkStateMachine")
struct SensorLinkStateMachineTests {
    typealias Instant = ManualClock.Instant
    typealias Machine = SensorLinkStateMachine<Instant, FixedRandom>

    static let address = BluetoothAddress(string: "C4:05:FC:97:8B:75", kind: .random)!
    static let failure = SensorLinkError(.connectFailed, "no route")
    static let dropped = SensorLinkError(.disconnected, "peer closed")

    static func at(_ milliseconds: Int64) -> Instant { Instant(offset: .milliseconds(milliseconds)) }

    /// A machine whose jitter always picks the ceiling, so delays are exact.
    static func machine(maximumAttempts: Int? = nil) -> Machine {
        Machine(
            address: address,
            backoff: ReconnectBackoff(
                configuration: .init(maximumAttempts: maximumAttempts), generator: FixedRandom(bits: .max)),
            watchdog: LinkWatchdog())
    }

    /// Drives a fresh machine to streaming at `t` milliseconds.
    static func streaming(at t: Int64, maximumAttempts: Int? = nil) -> Machine {
        var machine = machine(maximumAttempts: maximumAttempts)
        _ = machine.start(at: at(t))
        _ = machine.connected(at: at(t))
        _ = machine.setupCompleted(at: at(t), sampleRate: 100)
        return machine
    }

    @Test("idle → connecting → discovering → streaming, publishing connected and arming the watchdog")
    func happyPath() {
        var machine = Self.machine()
        #expect(machine.phase == .idle)
        #expect(machine.start(at: Self.at(0)) == [.connect])
        #expect(machine.phase == .connecting(attempt: 0))
        #expect(machine.start(at: Self.at(0)) == [])
        #expect(machine.connected(at: Self.at(10)) == [.setUpGATT])
        #expect(machine.phase == .discovering(attempt: 0))
        #expect(machine.watchdogDeadline == nil)
        #expect(
            machine.setupCompleted(at: Self.at(50), sampleRate: 100) == [
                .publish(.connected(Self.address)), .startStreaming,
            ])
        #expect(machine.phase == .streaming(since: Self.at(50)))
        #expect(machine.watchdogDeadline == Self.at(2050))
        #expect(!machine.isFinished)
    }

    @Test("the watchdog ends the link only once its deadline has passed")
    func watchdog() {
        var machine = Self.streaming(at: 0)
        #expect(machine.notificationReceived(at: Self.at(1000), sampleRate: 100, sampleCount: 3) == [])
        // The sleep for the old deadline (2 s) ends, but a notification moved it to 3 s.
        #expect(machine.watchdogFired(at: Self.at(2000)) == [])
        #expect(machine.watchdogDeadline == Self.at(3000))
        let actions = machine.watchdogFired(at: Self.at(3000))
        guard case .publish(.lost(let reason)) = actions.first else {
            Issue.record("expected lost, got \(actions)")
            return
        }
        #expect(reason.code == .silent)
        #expect(reason.message.contains("2.0 seconds"))
        #expect(actions.dropFirst() == [.closeBearer])
        #expect(machine.phase == .lost(reason))
        #expect(machine.watchdogDeadline == nil)
        // Late events of the old link are ignored.
        #expect(machine.notificationReceived(at: Self.at(3001), sampleRate: 100, sampleCount: 3) == [])
        #expect(machine.bearerEnded(Self.dropped, at: Self.at(3001)) == [])
        #expect(machine.watchdogFired(at: Self.at(9000)) == [])
    }

    @Test("lost → waiting → connecting: the retry is scheduled after the bearer is closed")
    func retryCycle() {
        var machine = Self.streaming(at: 0)
        #expect(machine.bearerEnded(Self.dropped, at: Self.at(500)) == [.publish(.lost(Self.dropped)), .closeBearer])
        #expect(machine.phase == .lost(Self.dropped))
        #expect(
            machine.bearerClosed(at: Self.at(600)) == [
                .publish(.retrying(in: .seconds(1), attempt: 1)), .sleep(until: Self.at(1600)),
            ])
        #expect(machine.phase == .waiting(retryAt: Self.at(1600), attempt: 1))
        // Woken early: sleep on.
        #expect(machine.retryTimerFired(at: Self.at(1599)) == [.sleep(until: Self.at(1600))])
        #expect(machine.retryTimerFired(at: Self.at(1600)) == [.connect])
        #expect(machine.phase == .connecting(attempt: 1))
        // The attempt fails: no lost event (the link never came up), the bearer is closed, the
        // backoff grows.
        #expect(machine.setupFailed(Self.failure, at: Self.at(1700)) == [.closeBearer])
        #expect(machine.phase == .lost(Self.failure))
        #expect(
            machine.bearerClosed(at: Self.at(1700)) == [
                .publish(.retrying(in: .seconds(2), attempt: 2)), .sleep(until: Self.at(3700)),
            ])
        #expect(machine.retryTimerFired(at: Self.at(3700)) == [.connect])
        #expect(machine.connected(at: Self.at(3800)) == [.setUpGATT])
        #expect(machine.phase == .discovering(attempt: 2))
        #expect(machine.setupFailed(Self.failure, at: Self.at(3900)) == [.closeBearer])
        #expect(
            machine.bearerClosed(at: Self.at(3900)) == [
                .publish(.retrying(in: .seconds(4), attempt: 3)), .sleep(until: Self.at(7900)),
            ])
    }

    @Test("a link that streamed for a minute before it dropped starts over at 1 s")
    func stableMinuteResets() {
        var machine = Self.streaming(at: 0)
        var now = Self.at(0)
        // Three losses, each one second after connecting: 1, 2, 4 s.
        for (index, expected) in [Int64(1), 2, 4].enumerated() {
            now = now.advanced(by: .seconds(1))
            _ = machine.bearerEnded(Self.dropped, at: now)
            #expect(
                machine.bearerClosed(at: now) == [
                    .publish(.retrying(in: .seconds(expected), attempt: index + 1)),
                    .sleep(until: now.advanced(by: .seconds(expected))),
                ])
            now = now.advanced(by: .seconds(expected))
            _ = machine.retryTimerFired(at: now)
            _ = machine.connected(at: now)
            _ = machine.setupCompleted(at: now, sampleRate: 100)
        }
        #expect(machine.backoff.attempts == 3)
        // Up for a full minute this time: the next retry is attempt 1 again.
        now = now.advanced(by: .seconds(60))
        _ = machine.bearerEnded(Self.dropped, at: now)
        #expect(machine.bearerClosed(at: now).first == .publish(.retrying(in: .seconds(1), attempt: 1)))
    }

    @Test("with a maximum of 2 attempts the third failure gives up; the machine is then finished")
    func givesUp() {
        var machine = Self.machine(maximumAttempts: 2)
        _ = machine.start(at: Self.at(0))
        var now = Self.at(0)
        for attempt in 1...2 {
            #expect(machine.setupFailed(Self.failure, at: now) == [.closeBearer])
            let actions = machine.bearerClosed(at: now)
            guard case .publish(.retrying(let delay, let number)) = actions.first else {
                Issue.record("expected a retry, got \(actions)")
                return
            }
            #expect(number == attempt)
            now = now.advanced(by: delay)
            #expect(machine.retryTimerFired(at: now) == [.connect])
        }
        #expect(machine.setupFailed(Self.failure, at: now) == [.closeBearer])
        let actions = machine.bearerClosed(at: now)
        guard case .publish(.gaveUp(let reason)) = actions.first else {
            Issue.record("expected gave up, got \(actions)")
            return
        }
        #expect(actions.dropFirst() == [.finish])
        #expect(reason.code == .attemptsExhausted)
        #expect(reason.message.contains("2 reconnect attempts"))
        #expect((reason.cause as? SensorLinkError) == Self.failure)
        #expect(machine.isFinished)
        #expect(machine.stopRequested() == [])
        #expect(machine.start(at: now) == [])
        #expect(machine.connected(at: now) == [])
    }

    @Test("stop from any running phase closes the bearer, publishes stopped and finishes, once")
    func stop() {
        var streaming = Self.streaming(at: 0)
        #expect(streaming.stopRequested() == [.closeBearer, .publish(.stopped), .finish])
        #expect(streaming.phase == .stopped)
        #expect(streaming.watchdogDeadline == nil)
        #expect(streaming.stopRequested() == [])
        #expect(streaming.bearerClosed(at: Self.at(1)) == [])
        #expect(streaming.watchdogFired(at: Self.at(5000)) == [])

        var idle = Self.machine()
        #expect(idle.stopRequested() == [.closeBearer, .publish(.stopped), .finish])
        #expect(idle.start(at: Self.at(0)) == [])

        var waiting = Self.streaming(at: 0)
        _ = waiting.bearerEnded(Self.dropped, at: Self.at(1))
        _ = waiting.bearerClosed(at: Self.at(1))
        #expect(waiting.stopRequested() == [.closeBearer, .publish(.stopped), .finish])
        #expect(waiting.retryTimerFired(at: Self.at(100_000)) == [])
    }

    @Test("events that do not fit the phase are ignored")
    func ignored() {
        var machine = Self.machine()
        #expect(machine.connected(at: Self.at(0)) == [])
        #expect(machine.setupCompleted(at: Self.at(0), sampleRate: 100) == [])
        #expect(machine.notificationReceived(at: Self.at(0), sampleRate: 100, sampleCount: 3) == [])
        #expect(machine.watchdogFired(at: Self.at(0)) == [])
        #expect(machine.bearerEnded(Self.dropped, at: Self.at(0)) == [])
        #expect(machine.bearerClosed(at: Self.at(0)) == [])
        #expect(machine.retryTimerFired(at: Self.at(0)) == [])
        #expect(machine.setupFailed(Self.failure, at: Self.at(0)) == [])
        #expect(machine.phase == .idle)
    }
}
