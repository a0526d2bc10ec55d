// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SDUSensor
import Testing

/// The default decoder (what the gateway runs for every sensor, whose rate it is not told) at every
/// rate the sensor can be set to: sample times are distinct and increasing, also after rounding to
/// the store's whole microseconds and the CSV's six decimals.
@Suite("SDU stream decoder: every sensor rate")
struct SampleRateRangeTests {
    /// A sensor set to `rate` whose crystal runs 1.5 % slow, as real ones are off: at an exact
    /// rate the connection events meet the samples at one phase, and the minimum latency the
    /// truth assumes is never seen.
    static func link(rate: Double) -> BurstyLink {
        var link = BurstyLink()
        link.trueRate = rate * 0.985
        link.connectionInterval = rate >= 200 ? 0.0075 : 0.030
        link.maxExtraLatency = 0.010
        return link
    }

    @Test(
        "times strictly increase and the fitted rate is the sensor's",
        arguments: [25.0, 50.0, 100.0, 200.0, 399.0, 400.0])
    func everyRate(rate: Double) {
        let link = Self.link(rate: rate)
        var decoder = SDUStreamDecoder()
        var samples: [IndexedSample] = []
        let seconds = 30.0
        for delivery in link.deliveries(count: Int(link.trueRate * seconds / 3), seed: 7) {
            _ = decoder.decode(notification: delivery.bytes, arrivalTime: delivery.arrival, into: &samples)
        }
        let times = samples.map(\.t)
        let repeated = zip(times, times.dropFirst()).filter { $0 >= $1 }.count
        #expect(repeated == 0, "\(repeated) samples at or before the previous one at \(rate) Hz")
        let micro = times.map { (($0 - link.startTime) * 1e6).rounded(.toNearestOrAwayFromZero) }
        #expect(zip(micro, micro.dropFirst()).allSatisfy { $0 < $1 }, "distinct in whole microseconds")
        let printed = times.map { SampleCSV.fixed($0 - link.startTime, decimals: 6) }
        #expect(Set(printed).count == printed.count, "distinct with six decimals")
        #expect(abs(decoder.clock.rate / link.trueRate - 1) < 0.01, "fitted \(decoder.clock.rate) Hz at \(rate) Hz")
        for sample in samples.suffix(100) {
            let truth = link.trueTime(ofSample: Int(sample.index)) + link.minimumLatency
            #expect(abs(sample.t - truth) < 0.005, "sample \(sample.index) at \(rate) Hz")
        }
    }

    @Test("a line lowered to an early arrival spreads the notification's samples instead of stacking them")
    func loweredLine() {
        var decoder = SDUStreamDecoder()
        var samples: [IndexedSample] = []
        // 400 Hz, three samples a notification, but all arrive at once: every line time for the
        // first samples of each notification falls before the previous notification's last.
        for n in 0..<40 {
            let bytes = SDUStreamDecoderTests.notification(header: UInt16(n * 3), first: n * 3)
            _ = decoder.decode(notification: bytes, arrivalTime: 5.0 + Double(n / 8) * 0.06, into: &samples)
        }
        let times = samples.map(\.t)
        #expect(times.count == 120)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= SDUStreamDecoder.minimumStep * 0.999 })
    }
}
