// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SDUSensor
import SensorLinks
import Testing

@Suite("LinkWatchdog")
struct LinkWatchdogTests {
    typealias Instant = ManualClock.Instant

    static func at(_ milliseconds: Int64) -> Instant { Instant(offset: .milliseconds(milliseconds)) }

    @Test("timeout = max(2 s, 20 periods, 3 notification intervals)")
    func timeouts() {
        let watchdog = LinkWatchdog<Instant>()
        // 25 Hz: 20 periods are 0.8 s, the 2 s floor decides.
        #expect(watchdog.timeout(sampleRate: 25) == .seconds(2))
        // 400 Hz: 0.05 s, the floor decides.
        #expect(watchdog.timeout(sampleRate: 400) == .seconds(2))
        // 5 Hz: 20 periods are 4 s.
        #expect(watchdog.timeout(sampleRate: 5) == .seconds(4))
        // 25 Hz with 40 samples per notification (MTU 247): notifications 1.6 s apart, 3 of them.
        #expect(watchdog.timeout(sampleRate: 25, samplesPerNotification: 40) == .milliseconds(4800))
        // 400 Hz with 40 per notification: 0.3 s, the floor decides.
        #expect(watchdog.timeout(sampleRate: 400, samplesPerNotification: 40) == .seconds(2))
        // No usable rate: the floor.
        #expect(watchdog.timeout(sampleRate: 0) == .seconds(2))
        #expect(watchdog.timeout(sampleRate: .nan) == .seconds(2))
        #expect(watchdog.timeout(sampleRate: -3) == .seconds(2))
        // An absurdly slow rate cannot overflow.
        #expect(watchdog.timeout(sampleRate: 1e-300) == .seconds(86_400))
    }

    @Test("deadline = last notification + timeout at 25 Hz; expiry is exactly at the deadline")
    func deadlineAt25Hz() {
        var watchdog = LinkWatchdog<Instant>()
        #expect(watchdog.deadline == nil)
        #expect(!watchdog.isExpired(at: Self.at(1_000_000)))
        watchdog.arm(at: Self.at(0), sampleRate: 25)
        #expect(watchdog.deadline == Self.at(2000))
        watchdog.notificationReceived(at: Self.at(120), sampleRate: 25, sampleCount: 3)
        watchdog.notificationReceived(at: Self.at(1500), sampleRate: 25, sampleCount: 3)
        #expect(watchdog.deadline == Self.at(3500))
        #expect(watchdog.currentTimeout == .seconds(2))
        #expect(!watchdog.isExpired(at: Self.at(3499)))
        #expect(watchdog.isExpired(at: Self.at(3500)))
        watchdog.disarm()
        #expect(watchdog.deadline == nil)
        #expect(!watchdog.isExpired(at: Self.at(10_000)))
        // Disarmed, a notification does not re-arm it.
        watchdog.notificationReceived(at: Self.at(10_000), sampleRate: 25, sampleCount: 3)
        #expect(watchdog.deadline == nil)
    }

    @Test("deadline at 400 Hz and at a slow rate where 20 periods exceed the floor")
    func deadlineAt400HzAndSlow() {
        var watchdog = LinkWatchdog<Instant>()
        watchdog.arm(at: Self.at(0), sampleRate: 400)
        watchdog.notificationReceived(at: Self.at(7), sampleRate: 400, sampleCount: 3)
        #expect(watchdog.deadline == Self.at(2007))
        watchdog.notificationReceived(at: Self.at(100), sampleRate: 8, sampleCount: 1)
        #expect(watchdog.deadline == Self.at(2600))
    }

    @Test("the rate is nominal until the decoder's clock locks, then the estimate")
    func rateFromClock() {
        var clock = SampleClock(configuration: .init(nominalRate: 100))
        #expect(LinkWatchdog<Instant>.sampleRate(of: clock) == 100)
        // A sensor really running at 90 Hz, 3 samples per notification, for 20 s.
        var locked = false
        for n in 1...600 {
            let last = Int64(n * 3 - 1)
            clock.observe(lastIndex: last, arrivalTime: Double(last) / 90 + 0.01)
            if clock.quality != .locked {
                #expect(LinkWatchdog<Instant>.sampleRate(of: clock) == 100)
            } else {
                locked = true
            }
        }
        #expect(locked)
        #expect(abs(LinkWatchdog<Instant>.sampleRate(of: clock) - 90) < 0.5)
    }
}
