// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SDUSensor
import Testing

@Suite("Sample counter tracking")
struct SampleCounterTrackerTests {
    typealias Observation = SampleCounterTracker.Observation

    /// Feeds `(header, k)` pairs and returns every observation.
    static func feed(_ tracker: inout SampleCounterTracker, _ notifications: [(UInt16, Int)]) -> [Observation] {
        notifications.map { tracker.observe(header: $0.0, sampleCount: $0.1) }
    }

    @Test("a sample counter is detected after four in-order steps")
    func sampleCounter() {
        var tracker = SampleCounterTracker()
        let seen = Self.feed(&tracker, [(100, 3), (103, 3), (106, 3), (109, 3)])
        #expect(seen.map(\.event) == [.first, .unchecked, .unchecked, .unchecked])
        #expect(tracker.mode == .detecting)
        let decided = tracker.observe(header: 112, sampleCount: 3)
        #expect(decided.event == .inOrder)
        #expect(decided.mode == .sampleCounter)
        #expect(decided.firstIndex == 12)
        #expect(tracker.observe(header: 115, sampleCount: 3).event == .inOrder)
        #expect(tracker.nextIndex == 18)
    }

    @Test("a packet counter is detected and its gaps estimated as lost packets × k")
    func packetCounter() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, [(7, 3), (8, 3), (9, 3), (10, 3)])
        let decided = tracker.observe(header: 11, sampleCount: 3)
        #expect(decided.mode == .packetCounter)
        #expect(decided.event == .inOrder)
        let gap = tracker.observe(header: 14, sampleCount: 3)
        #expect(gap.event == .gap)
        #expect(gap.lostSamples == 6)
        #expect(gap.firstIndex == 15 + 6)
        #expect(tracker.observe(header: 15, sampleCount: 3).event == .inOrder)
    }

    @Test("with one sample per notification both readings agree; it is called a sample counter")
    func oneSamplePerNotification() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1)])
        #expect(tracker.mode == .sampleCounter)
    }

    @Test("a constant header is not a counter")
    func constant() {
        var tracker = SampleCounterTracker()
        let seen = Self.feed(&tracker, Array(repeating: (0xBEEF, 3), count: 17))
        #expect(tracker.mode == .notACounter)
        #expect(seen.allSatisfy { $0.event == .first || $0.event == .unchecked })
        // Indices continue in arrival order.
        #expect(seen.map(\.firstIndex) == (0..<17).map { (i: Int) -> Int64 in Int64(i * 3) })
    }

    @Test("random headers are not a counter")
    func random() {
        var random = SeededRandom(seed: 11)
        var tracker = SampleCounterTracker()
        for _ in 0..<17 {
            _ = tracker.observe(header: UInt16.random(in: 0...UInt16.max, using: &random), sampleCount: 3)
        }
        #expect(tracker.mode == .notACounter)
    }

    @Test("losses while detecting a sample counter are tolerated and counted when it is decided")
    func sampleCounterWithLosses() {
        var tracker = SampleCounterTracker()
        // 6 and 15, 18 are lost.
        let seen = Self.feed(&tracker, [(0, 3), (3, 3), (9, 3), (12, 3), (21, 3), (24, 3)])
        #expect(seen.last?.mode == .detecting)
        let decided = tracker.observe(header: 27, sampleCount: 3)
        #expect(decided.mode == .sampleCounter)
        #expect(decided.event == .gap)
        #expect(decided.lostSamples == 9)
        // The index is right again once the mode is known.
        #expect(decided.firstIndex == 27)
    }

    @Test("losses while detecting a packet counter are tolerated")
    func packetCounterWithLosses() {
        var tracker = SampleCounterTracker()
        let seen = Self.feed(&tracker, [(50, 3), (51, 3), (53, 3), (54, 3), (55, 3), (58, 3)])
        #expect(seen.last?.mode == .detecting)
        let decided = tracker.observe(header: 59, sampleCount: 3)
        #expect(decided.mode == .packetCounter)
        #expect(decided.lostSamples == 9)
    }

    @Test("a sample counter is not mistaken for a packet counter when k > 1, or vice versa")
    func noConfusion() {
        var samples = SampleCounterTracker()
        _ = Self.feed(&samples, (0..<12).map { (UInt16($0 * 2), 2) })
        #expect(samples.mode == .sampleCounter)
        var packets = SampleCounterTracker()
        _ = Self.feed(&packets, (0..<12).map { (UInt16($0), 2) })
        #expect(packets.mode == .packetCounter)
    }

    @Test("the counter wraps at 65536 without a gap (… 65530, 65534 → 2)")
    func wrap() {
        var tracker = SampleCounterTracker()
        let headers: [UInt16] = [65514, 65518, 65522, 65526, 65530, 65534, 2, 6]
        let seen = Self.feed(&tracker, headers.map { ($0, 4) })
        #expect(tracker.mode == .sampleCounter)
        #expect(seen.suffix(4).allSatisfy { $0.event == .inOrder })
        #expect(seen.map(\.firstIndex) == (0..<8).map { (i: Int) -> Int64 in Int64(i * 4) })
    }

    @Test("a gap across the wrap (65530 → 6) counts the samples in between")
    func gapAcrossWrap() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, [65514, 65518, 65522, 65526, 65530].map { ($0, 4) })
        #expect(tracker.mode == .sampleCounter)
        let gap = tracker.observe(header: 6, sampleCount: 4)
        #expect(gap.event == .gap)
        #expect(gap.lostSamples == 8)
        #expect(gap.firstIndex == 28)
    }

    @Test("gaps report how many samples were lost")
    func gaps() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, (0..<5).map { (UInt16($0 * 3), 3) })
        let gap = tracker.observe(header: 15 + 3 * 7, sampleCount: 3)
        #expect(gap.event == .gap)
        #expect(gap.lostSamples == 21)
        #expect(gap.firstIndex == 36)
        #expect(tracker.observe(header: 39, sampleCount: 3).event == .inOrder)
        #expect(tracker.mode == .sampleCounter)
    }

    @Test("repeats and replays are duplicates and leave the expected counter alone")
    func duplicates() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, (0..<6).map { (UInt16($0 * 3), 3) })
        #expect(tracker.observe(header: 15, sampleCount: 3).event == .duplicate)
        #expect(tracker.observe(header: 6, sampleCount: 3).event == .duplicate)
        // Behind the counter across the wrap is still "behind".
        #expect(tracker.observe(header: 65533, sampleCount: 3).event == .duplicate)
        let next = tracker.observe(header: 18, sampleCount: 3)
        #expect(next.event == .inOrder)
        #expect(next.firstIndex == 18)
    }

    @Test("a replay after reconnecting is dropped, then the stream continues in order")
    func replay() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, (0..<10).map { (UInt16($0 * 3), 3) })
        let replayed = Self.feed(&tracker, (5..<10).map { (UInt16($0 * 3), 3) })
        #expect(replayed.allSatisfy { $0.event == .duplicate })
        let next = tracker.observe(header: 30, sampleCount: 3)
        #expect(next.event == .inOrder)
        #expect(next.firstIndex == 30)
        #expect(tracker.mode == .sampleCounter)
    }

    @Test("a big backwards jump is a resync; indices keep increasing")
    func resync() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, (0..<10).map { (UInt16(30000 + $0 * 3), 3) })
        let reset = tracker.observe(header: 0, sampleCount: 3, samplesElapsedEstimate: 103)
        #expect(reset.event == .resync)
        #expect(reset.firstIndex == 30 + 100)
        #expect(reset.lostSamples == 0)
        let next = tracker.observe(header: 3, sampleCount: 3)
        #expect(next.event == .inOrder)
        #expect(next.firstIndex == 133)
        #expect(tracker.mode == .sampleCounter)
    }

    @Test(
        "a jump past the gap limit is a gap when the elapsed time agrees (a slow reconnect), else a resync",
        arguments: [(3003, true), (2600, true), (3700, true), (5000, false), (1500, false), (0, false)])
    func longGap(elapsed: Int, isGap: Bool) {
        // 3 000 samples (30 s at 100 Hz) lost: past the default 2 048-sample gap limit.
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, (0..<10).map { (UInt16($0 * 3), 3) })
        let after = tracker.observe(header: 3030, sampleCount: 3, samplesElapsedEstimate: elapsed)
        if isGap {
            #expect(after.event == .gap)
            #expect(after.lostSamples == 3000)
            #expect(after.firstIndex == 3030, "the sensor's own index, exactly")
        } else {
            #expect(after.event == .resync)
            #expect(after.lostSamples == 0)
        }
        #expect(tracker.observe(header: 3033, sampleCount: 3).event == .inOrder)
        #expect(tracker.mode == .sampleCounter)
    }

    @Test("a counter that turns random is demoted after three misfits")
    func demotion() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, (0..<8).map { (UInt16($0 * 3), 3) })
        #expect(tracker.mode == .sampleCounter)
        let seen = Self.feed(&tracker, [(20000, 3), (40000, 3), (60000, 3)])
        #expect(seen.map(\.event) == [.resync, .resync, .unchecked])
        #expect(tracker.mode == .notACounter)
        // From now on nothing is dropped or checked.
        #expect(tracker.observe(header: 60000, sampleCount: 3).event == .unchecked)
    }

    @Test("a counter that freezes is demoted after too many duplicates in a row")
    func frozen() {
        var tracker = SampleCounterTracker(configuration: .init(maxConsecutiveDuplicates: 4))
        _ = Self.feed(&tracker, (0..<8).map { (UInt16($0 * 3), 3) })
        let seen = Self.feed(&tracker, Array(repeating: (21, 3), count: 5))
        #expect(seen.map(\.event) == [.duplicate, .duplicate, .duplicate, .duplicate, .unchecked])
        #expect(tracker.mode == .notACounter)
    }

    @Test("a reset to a count just behind ours resyncs after the duplicate limit instead of demoting")
    func resetJustBehind() {
        var tracker = SampleCounterTracker(configuration: .init(maxConsecutiveDuplicates: 4))
        _ = Self.feed(&tracker, (0..<40).map { (UInt16($0 * 3), 3) })
        // The sensor restarts at 0 while we expect 120: within the replay window.
        let seen = Self.feed(&tracker, (0..<6).map { (UInt16($0 * 3), 3) })
        #expect(seen.map(\.event) == [.duplicate, .duplicate, .duplicate, .duplicate, .resync, .inOrder])
        #expect(tracker.mode == .sampleCounter)
        #expect(seen[4].firstIndex == 120)
    }

    @Test("one reset among in-order notifications does not demote")
    func singleResetKeepsMode() {
        var tracker = SampleCounterTracker()
        _ = Self.feed(&tracker, (0..<8).map { (UInt16($0 * 3), 3) })
        _ = tracker.observe(header: 50000, sampleCount: 3)
        _ = Self.feed(&tracker, (1..<10).map { (UInt16(50000 + $0 * 3), 3) })
        _ = tracker.observe(header: 7, sampleCount: 3)
        _ = Self.feed(&tracker, (1..<10).map { (UInt16(7 + $0 * 3), 3) })
        #expect(tracker.mode == .sampleCounter)
    }
}
