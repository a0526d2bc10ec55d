// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SDUSensor
import Testing

@Suite("SDU stream decoder")
struct SDUStreamDecoderTests {
    static func notification(header: UInt16, first: Int, count: Int = 3) -> [UInt8] {
        var bytes: [UInt8] = []
        SDUPayload(header: header, samples: (0..<count).map { BurstyLink.reading(first + $0) }).encode(into: &bytes)
        return bytes
    }

    @Test("a clean bursty stream: consecutive indices, rate within 0.2 %, times within 3 ms of truth")
    func clean() throws {
        let link = BurstyLink()
        var decoder = SDUStreamDecoder()
        var samples: [IndexedSample] = []
        for delivery in link.deliveries(count: 400, seed: 21) {
            let outcome = decoder.decode(notification: delivery.bytes, arrivalTime: delivery.arrival, into: &samples)
            #expect(outcome.isDelivered)
        }
        #expect(decoder.counterMode == .sampleCounter)
        #expect(samples.map(\.index) == (0..<1200).map { Int64($0) })
        #expect(samples.map(\.raw) == (0..<1200).map { BurstyLink.reading($0) })
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.t <= $1.t })
        #expect(abs(decoder.clock.rate / link.trueRate - 1) < 0.002)
        for sample in samples.suffix(100) {
            let truth = link.trueTime(ofSample: Int(sample.index)) + link.minimumLatency
            #expect(abs(sample.t - truth) < 0.003, "sample \(sample.index)")
        }
        let stats = decoder.statistics
        #expect(stats.notifications == 400 && stats.samplesReceived == 1200)
        #expect(stats.lostSamples == 0 && stats.duplicateNotifications == 0 && stats.malformedNotifications == 0)
        #expect(stats.counterMode == .sampleCounter)
    }

    @Test("gap, duplicate, malformed and resync are reported and counted")
    func faults() throws {
        var decoder = SDUStreamDecoder()
        var t = 10.0
        // The counter starts at 40000 + the sample's index.
        func send(_ index: Int, count: Int = 3, header: UInt16? = nil) -> SDUDecodedNotification {
            t += 0.03
            let h = header ?? UInt16(40000 + index)
            return decoder.decode(
                notification: Self.notification(header: h, first: index, count: count), arrivalTime: t)
        }
        #expect(send(0).outcome.event == .first)
        for n in 1..<6 { _ = send(n * 3) }
        #expect(decoder.counterMode == .sampleCounter)

        let gap = send(24)  // 18 and 21 lost
        #expect(gap.outcome.event == .gap(lostSamples: 6))
        #expect(gap.samples.map(\.index) == [24, 25, 26])

        let duplicate = send(24)
        #expect(duplicate.outcome.event == .duplicate)
        #expect(duplicate.samples.isEmpty && duplicate.outcome.firstIndex == nil)

        t += 0.01
        let malformed = decoder.decode(notification: [UInt8](hex: "1b00 0100 0200"), arrivalTime: t)
        guard case .malformed(let error) = malformed.outcome.event else {
            Issue.record("expected malformed, got \(malformed.outcome.event)")
            return
        }
        #expect(error.code == .wrongLength)
        #expect(malformed.samples.isEmpty)

        #expect(send(27).outcome.event == .inOrder)

        t += 5  // the sensor restarts five seconds later with its counter at 0
        let reset = send(1000, header: 0)
        #expect(reset.outcome.event == .resync)
        let resyncIndex = try #require(reset.samples.first).index
        // Indices keep increasing and skip roughly the five seconds that passed.
        #expect(resyncIndex > 29 + 400 && resyncIndex < 29 + 600)
        let after = send(1003, header: 3)
        #expect(after.outcome.event == .inOrder)
        #expect(after.samples.first?.index == resyncIndex + 3)
        #expect(try #require(after.samples.first).t >= reset.samples[2].t)

        let stats = decoder.statistics
        #expect(stats.notifications == 12)
        #expect(stats.samplesReceived == 30)
        #expect(stats.malformedNotifications == 1)
        #expect(stats.gaps == 1 && stats.lostSamples == 6)
        #expect(stats.duplicateNotifications == 1 && stats.duplicateSamples == 3)
        #expect(stats.resyncs == 1)
        #expect(stats.counterMode == .sampleCounter)
    }

    @Test("a packet-counter stream estimates lost samples as lost packets × k")
    func packetCounter() {
        let link = BurstyLink()
        var decoder = SDUStreamDecoder()
        let deliveries = link.deliveries(count: 60, seed: 5) { UInt16(truncatingIfNeeded: 500 + $0) }
        for (n, delivery) in deliveries.enumerated() where n != 30 && n != 31 {
            _ = decoder.decode(notification: delivery.bytes, arrivalTime: delivery.arrival)
        }
        #expect(decoder.counterMode == .packetCounter)
        #expect(decoder.statistics.lostSamples == 6)
        #expect(decoder.statistics.samplesReceived == 58 * 3)
    }

    static func randomHeaders(seed: UInt64) -> (Int) -> UInt16 {
        var random = SeededRandom(seed: seed)
        let headers = (0..<10_000).map { _ in UInt16.random(in: 0...UInt16.max, using: &random) }
        return { headers[$0 % headers.count] }
    }

    @Test("without a counter: times from arrival times, evenly spaced, never decreasing, never after arrival")
    func fallback() {
        let link = BurstyLink()
        let deliveries = link.deliveries(count: 500, seed: 8, header: Self.randomHeaders(seed: 8))
        var decoder = SDUStreamDecoder()
        var samples: [IndexedSample] = []
        for delivery in deliveries {
            let before = samples.count
            _ = decoder.decode(notification: delivery.bytes, arrivalTime: delivery.arrival, into: &samples)
            for sample in samples[before...] { #expect(sample.t <= delivery.arrival) }
        }
        #expect(decoder.counterMode == .notACounter)
        #expect(samples.map(\.index) == (0..<1500).map { Int64($0) })
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.t <= $1.t })
        for sample in samples.suffix(300) {
            let truth = link.trueTime(ofSample: Int(sample.index)) + link.minimumLatency
            #expect(abs(sample.t - truth) < 0.005, "sample \(sample.index)")
        }
        // Bursts do not bunch samples up: consecutive samples are one estimated period apart, but
        // for the small steps when the line is refitted or lowered.
        let period = 1 / decoder.clock.rate
        let spacings = zip(samples.suffix(600), samples.suffix(599)).map { $1.t - $0.t }
        #expect(spacings.filter { abs($0 - period) < 1e-6 }.count > spacings.count * 3 / 4)
        #expect(spacings.allSatisfy { abs($0 - period) < 0.002 })
    }

    @Test("without a counter, a loss is caught from arrival times and the line restarts")
    func fallbackLoss() {
        let link = BurstyLink()
        let deliveries = link.deliveries(count: 700, seed: 12, header: Self.randomHeaders(seed: 12))
        var decoder = SDUStreamDecoder()
        var samples: [IndexedSample] = []
        // Notifications 400..<440 (≈ 1.2 s) are lost.
        for (n, delivery) in deliveries.enumerated() where !(400..<440).contains(n) {
            _ = decoder.decode(notification: delivery.bytes, arrivalTime: delivery.arrival, into: &samples)
        }
        #expect(decoder.counterMode == .notACounter)
        #expect(samples.count == 660 * 3)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.index < $1.index && $0.t <= $1.t })
        // The index skipped about the lost 120 samples.
        let jump = samples[1200].index - samples[1199].index - 1
        #expect(jump > 100 && jump < 140, "skipped \(jump)")
        // Times after the loss track the truth again (the reading tells which true sample it is).
        for sample in samples.suffix(300) {
            let trueIndex = Int(sample.raw.x)
            let truth = link.trueTime(ofSample: trueIndex) + link.minimumLatency
            #expect(abs(sample.t - truth) < 0.02, "sample \(trueIndex)")
        }
    }

    @Test("arbitrary bytes and times never trap; indices increase and times never decrease")
    func neverTraps() {
        var random = SeededRandom(seed: 99)
        var decoder = SDUStreamDecoder()
        var samples: [IndexedSample] = []
        var malformed = 0
        var offered = 0
        let oddTimes: [Double] = [.nan, .infinity, -.infinity, -1e300, 1e300, 0]
        for n in 0..<3000 {
            let length = Int.random(in: 0...40, using: &random)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            // Half the time make it a near-counter so every tracker path gets exercised.
            if length >= 2, Bool.random(using: &random) {
                let header = UInt16(truncatingIfNeeded: n * 3 + Int.random(in: -4...4, using: &random))
                bytes[0] = UInt8(truncatingIfNeeded: header)
                bytes[1] = UInt8(truncatingIfNeeded: header >> 8)
            }
            if length < 8 || (length - 2) % 6 != 0 { malformed += 1 } else { offered += (length - 2) / 6 }
            let time =
                n % 97 == 0
                ? oddTimes[n / 97 % oddTimes.count] : Double(n) * 0.03 + Double.random(in: -0.1...0.1, using: &random)
            _ = decoder.decode(notification: bytes, arrivalTime: time, into: &samples)
        }
        let stats = decoder.statistics
        #expect(stats.notifications == 3000)
        #expect(stats.malformedNotifications == malformed)
        #expect(stats.samplesReceived + stats.duplicateSamples == offered)
        #expect(samples.count == stats.samplesReceived)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.index < $1.index && $0.t <= $1.t })
        #expect(samples.allSatisfy { !$0.t.isNaN })
    }

    @Test("the buffer variant appends without reallocating, and matches the allocating variant")
    func buffer() {
        let link = BurstyLink()
        let deliveries = link.deliveries(count: 200, seed: 13)
        var allocating = SDUStreamDecoder()
        var expected: [IndexedSample] = []
        for delivery in deliveries {
            expected += allocating.decode(notification: delivery.bytes, arrivalTime: delivery.arrival).samples
        }
        var buffered = SDUStreamDecoder()
        var samples: [IndexedSample] = []
        samples.reserveCapacity(600)
        let capacity = samples.capacity
        for delivery in deliveries {
            _ = buffered.decode(notification: delivery.bytes, arrivalTime: delivery.arrival, into: &samples)
        }
        #expect(samples.capacity == capacity)
        #expect(samples == expected)
        #expect(buffered.statistics == allocating.statistics)
    }

    @Test("non-contiguous collections decode like arrays")
    func nonContiguous() {
        let bytes = Self.notification(header: 9, first: 0, count: 2)
        var a = SDUStreamDecoder()
        var b = SDUStreamDecoder()
        let fromArray = a.decode(notification: bytes, arrivalTime: 1)
        let fromLazy = b.decode(notification: bytes.lazy.map { $0 }, arrivalTime: 1)
        #expect(fromArray == fromLazy)
        #expect(fromArray.samples.map(\.raw) == [BurstyLink.reading(0), BurstyLink.reading(1)])
    }
}
