// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SDUSensor
import Testing

@Suite("Offline decoding: known counter mode and whole-recording period fit")
struct OfflineDecodingTests {
    @Test("a known sample counter indexes a loss between the first two notifications exactly")
    func assumedSampleCounter() {
        var detecting = SampleCounterTracker()
        var known = SampleCounterTracker(configuration: .init(assumedMode: .sampleCounter))
        #expect(known.mode == .sampleCounter)
        // Headers 100, then 106 (one 3-sample notification lost), then in order.
        let headers: [UInt16] = [100, 106, 109, 112, 115, 118, 121]
        let knownFirst = headers.map { known.observe(header: $0, sampleCount: 3).firstIndex }
        let detectingFirst = headers.map { detecting.observe(header: $0, sampleCount: 3).firstIndex }
        #expect(knownFirst == [0, 6, 9, 12, 15, 18, 21])
        // While detecting, the second notification cannot yet be placed after the loss.
        #expect(detectingFirst[1] == 3)
        #expect(detectingFirst.last == 21)
    }

    @Test("a known mode still demotes a header that stops fitting")
    func assumedModeDemotes() {
        var tracker = SampleCounterTracker(configuration: .init(assumedMode: .sampleCounter))
        var random = SeededRandom(seed: 5)
        for _ in 0..<40 {
            _ = tracker.observe(header: UInt16.random(in: 0...UInt16.max, using: &random), sampleCount: 3)
        }
        #expect(tracker.mode == .notACounter)
        #expect(SampleCounterTracker.Configuration(assumedMode: .detecting).assumedMode == nil)
    }

    @Test("the period fit ignores late, batched deliveries")
    func periodFit() throws {
        var fit = SamplePeriodFit()
        #expect(fit.period == nil)
        var random = SeededRandom(seed: 9)
        // 98 Hz, 3 samples a notification, delivered at 30 ms connection events with up to 25 ms
        // extra latency, 10 % of notifications lost.
        var arrivalFloor = 0.0
        for notification in 0..<3000 {
            guard Double.random(in: 0..<1, using: &random) > 0.1 else { continue }
            let last = Int64(notification * 3 + 2)
            let taken = Double(last) / 98
            let event = (taken / 0.030).rounded(.up) * 0.030 + Double.random(in: 0..<0.025, using: &random)
            arrivalFloor = max(arrivalFloor + 0.0001, event)
            fit.add(lastIndex: last, arrivalTime: arrivalFloor)
        }
        let period = try #require(fit.period)
        #expect(abs(period * 98 - 1) < 0.001)
        // Points that do not move forward are ignored rather than bending the fit.
        fit.add(lastIndex: 10, arrivalTime: 0)
        fit.add(lastIndex: 99_999, arrivalTime: .nan)
        #expect(fit.period == period)
    }

    @Test("arrivals that do not advance with the index give no period")
    func degenerate() {
        var fit = SamplePeriodFit()
        fit.add(lastIndex: 1, arrivalTime: 5)
        fit.add(lastIndex: 2, arrivalTime: 4)
        #expect(fit.period == nil)
        #expect(fit.pointCount == 2)
    }
}
