// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SDUSensor
import Testing

@Suite("Sample clock recovery")
struct SampleClockTests {
    /// Feeds every delivery whose arrival is before `until` seconds into the link; returns the
    /// largest error of a recovered time against truth (+ minimum latency), measured at the
    /// moment each notification arrived, for notifications after `measureAfter` seconds.
    static func run(
        _ clock: inout SampleClock, _ link: BurstyLink, _ deliveries: [BurstyLink.Delivery], measureAfter: Double
    ) -> Double {
        var worst = 0.0
        let k = link.samplesPerNotification
        for delivery in deliveries {
            let last = Int64(delivery.firstIndex + k - 1)
            clock.observe(lastIndex: last, arrivalTime: delivery.arrival)
            let recovered = clock.time(ofSample: last)!
            // The line never lies above the arrival it has just seen.
            #expect(recovered <= delivery.arrival)
            if delivery.arrival - link.startTime > measureAfter {
                for j in 0..<k {
                    let index = delivery.firstIndex + j
                    let truth = link.trueTime(ofSample: index) + link.minimumLatency
                    worst = max(worst, abs(clock.time(ofSample: Int64(index))! - truth))
                }
            }
        }
        return worst
    }

    @Test("no time before the first arrival; the nominal rate is the prior")
    func prior() {
        var clock = SampleClock(configuration: .init(nominalRate: 100))
        #expect(clock.quality == .none)
        #expect(clock.time(ofSample: 0) == nil)
        #expect(clock.rate == 100)
        clock.observe(lastIndex: 2, arrivalTime: 5.0)
        #expect(clock.quality == .prior)
        #expect(clock.time(ofSample: 2) == 5.0)
        #expect(abs(clock.time(ofSample: 102)! - 6.0) < 1e-9)
        // A later arrival with more latency does not move the line; an earlier one lowers it.
        clock.observe(lastIndex: 5, arrivalTime: 5.04)
        #expect(clock.time(ofSample: 2) == 5.0)
        clock.observe(lastIndex: 8, arrivalTime: 5.05)
        #expect(abs(clock.time(ofSample: 8)! - 5.05) < 1e-9)
    }

    @Test("bursty link, true rate 2 % below nominal: rate within 0.2 % and times within 3 ms after 10 s")
    func bursty() {
        let link = BurstyLink()
        let deliveries = link.deliveries(count: 330, seed: 1)  // 330 × 3 samples at 98 Hz ≈ 10.1 s
        var clock = SampleClock(configuration: .init(nominalRate: 100))
        let worst = Self.run(&clock, link, deliveries, measureAfter: 9)
        #expect(abs(clock.rate / link.trueRate - 1) < 0.002, "rate \(clock.rate)")
        #expect(worst < 0.003, "worst error \(worst) s")
    }

    @Test(
        "the estimate holds across seeds, batching patterns and lost notifications",
        arguments: [2, 3, 4, 5] as [UInt64])
    func robust(seed: UInt64) {
        var link = BurstyLink()
        link.connectionInterval = [0.0075, 0.015, 0.030, 0.050][Int(seed % 4)]
        link.maxPerEvent = 6
        var random = SeededRandom(seed: seed)
        // Drop a fifth of the notifications: indices jump, arrival points simply skip ahead.
        let deliveries = link.deliveries(count: 700, seed: seed).filter { _ in
            Double.random(in: 0..<1, using: &random) >= 0.2
        }
        var clock = SampleClock(configuration: .init(nominalRate: 100))
        let worst = Self.run(&clock, link, deliveries, measureAfter: 12)
        #expect(abs(clock.rate / link.trueRate - 1) < 0.002, "rate \(clock.rate)")
        // Longer connection intervals leave fewer arrivals near the minimum latency.
        #expect(worst < max(0.006, 0.15 * link.connectionInterval), "worst error \(worst) s")
    }

    @Test("a sensor away for 2 s: the times after the gap carry on by the index distance, not restarted")
    func outage() {
        let link = BurstyLink()
        // Out of range from 4 s to 6 s (as `virtual.out_of_range_every = 4` in the end-to-end
        // test): nothing arrives, and the counter runs on.
        let away = (link.startTime + 4)..<(link.startTime + 6)
        let deliveries = link.deliveries(count: 330, seed: 11).filter { !away.contains($0.arrival) }
        var clock = SampleClock(configuration: .init(nominalRate: 100))
        // Each sample stamped when its notification arrives, as the link stamps them.
        var stamped: [(index: Int, t: Double)] = []
        for delivery in deliveries {
            let last = delivery.firstIndex + link.samplesPerNotification - 1
            clock.observe(lastIndex: Int64(last), arrivalTime: delivery.arrival)
            for index in delivery.firstIndex...last { stamped.append((index, clock.time(ofSample: Int64(index))!)) }
        }
        let gap = zip(stamped, stamped.dropFirst()).first { $1.index - $0.index > 1 }
        let (before, after) = (gap!.0, gap!.1)
        #expect(after.index - before.index > 190, "about 2 s of samples at 98 Hz are missing")
        let across = after.t - before.t
        let truth = link.trueTime(ofSample: after.index) - link.trueTime(ofSample: before.index)
        #expect(abs(across - truth) < 0.02, "time across the gap \(across) s, truly \(truth) s")
        #expect(zip(stamped, stamped.dropFirst()).allSatisfy { $0.t < $1.t }, "times strictly increase")
    }

    @Test("a long run wraps the bounded window and stays locked")
    func longRun() {
        var link = BurstyLink()
        link.trueRate = 101.5
        let deliveries = link.deliveries(count: 6000, seed: 9)  // ≈ 177 s, more than the 64 s window
        var clock = SampleClock(configuration: .init(nominalRate: 100))
        let worst = Self.run(&clock, link, deliveries, measureAfter: 100)
        #expect(abs(clock.rate / link.trueRate - 1) < 0.001, "rate \(clock.rate)")
        #expect(worst < 0.003, "worst error \(worst) s")
        #expect(clock.quality == .locked)
    }

    @Test("quality rises from prior through estimating to locked")
    func quality() {
        let link = BurstyLink()
        var clock = SampleClock()
        var seen: [SampleClock.Quality] = []
        for delivery in link.deliveries(count: 400, seed: 3) {
            clock.observe(lastIndex: Int64(delivery.firstIndex + 2), arrivalTime: delivery.arrival)
            if seen.last != clock.quality { seen.append(clock.quality) }
        }
        #expect(seen == [.prior, .estimating, .locked])
    }

    @Test("reset keeps a fitted rate as the new prior")
    func reset() {
        let link = BurstyLink()
        var clock = SampleClock()
        _ = Self.run(&clock, link, link.deliveries(count: 400, seed: 4), measureAfter: .infinity)
        let fitted = clock.rate
        clock.reset()
        #expect(clock.quality == .none)
        #expect(clock.rate == fitted)
        clock.reset(keepingRate: false)
        #expect(clock.rate == 100)
    }

    @Test("an implausible fit falls back to the prior")
    func implausible() {
        var clock = SampleClock(configuration: .init(nominalRate: 100))
        // Arrivals as if 200 Hz: outside the default ±20 % band.
        for n in 0..<400 { clock.observe(lastIndex: Int64(n * 3 + 2), arrivalTime: Double(n * 3 + 2) / 200) }
        #expect(clock.rate == 100)
        #expect(clock.quality == .prior)
        var wide = SampleClock(configuration: .init(nominalRate: 100, plausibleRates: 50...400))
        for n in 0..<400 { wide.observe(lastIndex: Int64(n * 3 + 2), arrivalTime: Double(n * 3 + 2) / 200) }
        #expect(abs(wide.rate - 200) < 1e-6)
    }
}
