// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import SensorLinks
import Testing

/// An accelerometer notification value: the header, then k samples whose x is their number.
func sduPayload(header: UInt16, firstSample: Int, count: Int) -> [UInt8] {
    var bytes = [UInt8(header & 0xFF), UInt8(header >> 8)]
    for n in firstSample..<(firstSample + count) {
        let x = UInt16(truncatingIfNeeded: n)
        bytes += [UInt8(x & 0xFF), UInt8(x >> 8), 0, 0, 0x00, 0x40]
    }
    return bytes
}

@Suite("SensorSampleGate")
struct SensorSampleGateTests {
    /// Feeds notifications of 3 samples with a sample counter starting at `header`, covering
    /// samples `from..<to` (a multiple of 3 apart); returns the published samples.
    static func feed(
        _ gate: inout SensorSampleGate, header: UInt16, from: Int, to: Int, time: inout Double
    ) -> [IndexedSample] {
        var published: [IndexedSample] = []
        var counter = header
        for first in stride(from: from, to: to, by: 3) {
            time += 0.03
            published += accept(&gate, sduPayload(header: counter, firstSample: first, count: 3), at: time).samples
            counter &+= 3
        }
        return published
    }

    /// One notification through the gate: its verdict and the samples it publishes.
    static func accept(
        _ gate: inout SensorSampleGate, _ value: [UInt8], at time: Double
    ) -> (verdict: SensorSampleGate.Verdict, samples: [IndexedSample]) {
        var samples: [IndexedSample] = []
        let verdict = value.withUnsafeBytes { gate.accept(notification: $0, arrivalTime: time, into: &samples) }
        return (verdict, samples)
    }

    @Test("a replay after a reconnect is dropped and counted; indices continue without a gap")
    func replayDropped() {
        var gate = SensorSampleGate()
        var time = 0.0
        var published = Self.feed(&gate, header: 65_500, from: 0, to: 60, time: &time)
        #expect(gate.decoder.counterMode == .sampleCounter)
        #expect(published.count == 60)
        // Reconnect: the sensor replays its last 9 samples (counter 9 back), then goes on.
        published += Self.feed(&gate, header: 65_500 &+ 51, from: 51, to: 90, time: &time)
        #expect(published.count == 90)
        #expect(published.map(\.raw.x) == (0..<90).map { Int16($0) })
        #expect(zip(published, published.dropFirst()).allSatisfy { $1.index == $0.index + 1 })
        #expect(gate.duplicateSamplesDropped == 9)
        #expect(gate.missingSamples == 0)
        #expect(gate.lastEmittedIndex == published.last?.index)
    }

    @Test("samples lost over the air are counted as missing, exactly")
    func gapCounted() {
        var gate = SensorSampleGate()
        var time = 0.0
        var published = Self.feed(&gate, header: 100, from: 0, to: 30, time: &time)
        // Two notifications (6 samples) never arrive.
        published += Self.feed(&gate, header: 136, from: 36, to: 60, time: &time)
        #expect(published.count == 54)
        #expect(gate.missingSamples == 6)
        #expect(gate.duplicateSamplesDropped == 0)
        #expect(published[30].index == published[29].index + 7)
    }

    @Test("a counter restart far away continues above the old indices, the gap accounted")
    func resync() {
        var gate = SensorSampleGate()
        var time = 0.0
        var published = Self.feed(&gate, header: 1000, from: 0, to: 30, time: &time)
        let before = published.last!.index
        // One second later the sensor restarts with its counter at 40000.
        time += 1.0
        published += Self.feed(&gate, header: 40_000, from: 30, to: 60, time: &time)
        #expect(gate.decoder.statistics.resyncs == 1)
        #expect(published.count == 60)
        #expect(published[30].index > before)
        #expect(zip(published, published.dropFirst()).allSatisfy { $1.index > $0.index })
        #expect(gate.missingSamples == Int(published[30].index - before - 1))
        #expect(gate.duplicateSamplesDropped == 0)
    }

    @Test("a replay that is not a whole number of notifications behind: never a duplicate, the overlap counted missing")
    func partialReplay() {
        var gate = SensorSampleGate()
        var time = 0.0
        var published = Self.feed(&gate, header: 0, from: 0, to: 30, time: &time)
        // Reconnect with the counter 4 samples back: 26–28 are old; 29–31 mixes old 29 with new 30, 31.
        published += Self.feed(&gate, header: 26, from: 26, to: 50, time: &time)
        #expect(zip(published, published.dropFirst()).allSatisfy { $1.index > $0.index })
        #expect(Set(published.map(\.raw.x)).count == published.count)
        // The decoder drops both overlapping notifications whole: 30 and 31 are lost with them.
        #expect(published.map(\.raw.x) == (0..<30).map(Int16.init) + (32..<50).map(Int16.init) as [Int16])
        #expect(gate.duplicateSamplesDropped == 6)
        #expect(gate.missingSamples == 2)
    }

    @Test("malformed notifications publish nothing and are counted by the decoder")
    func malformed() {
        var gate = SensorSampleGate()
        let result = Self.accept(&gate, [1, 2, 3, 4, 5], at: 0)
        #expect(result.samples.isEmpty)
        #expect(gate.decoder.statistics.malformedNotifications == 1)
        #expect(gate.lastEmittedIndex == nil)
        #expect(gate.samplesEmitted == 0)
    }
}
