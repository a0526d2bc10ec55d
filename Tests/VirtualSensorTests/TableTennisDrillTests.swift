// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import Testing
import VirtualSensor

/// The table-tennis script plays robot drills as the real wrist recordings show them
/// (Docs/DETECTION.md, "Evaluation"): a ball every 1.0–1.2 s, the arm's return as lobes after
/// each stroke, clipping, and breaks between drills that hold movement but no ball.
@Suite("Table-tennis drills")
struct TableTennisDrillTests {
    static func hits(_ recording: MotionRecording) -> [Double] {
        recording.labels.compactMap { if case .hit(let t, _) = $0 { t } else { nil } }
    }

    @Test("strokes come at the robot's feed period, and drills are separated by breaks")
    func feedPeriod() {
        let recording = MotionGenerator.render(script: .tableTennis, seed: 12, rate: 50, duration: 240)
        let times = Self.hits(recording)
        let intervals = zip(times.dropFirst(), times).map { $0 - $1 }
        let fed = intervals.filter { $0 >= 0.85 && $0 <= 1.35 }
        #expect(times.count >= 100)
        #expect(Double(fed.count) >= 0.9 * Double(intervals.count), "\(fed.count) of \(intervals.count)")
        #expect(intervals.contains { $0 >= 5 }, "no break between drills")
    }

    @Test("the arm's return shows after contact: |a| beyond 1.5 g 0.3–0.8 s after some strokes, not after all")
    func returnLobes() {
        var options = MotionOptions()
        options.distractors = false
        var strong = 0
        var total = 0
        for seed: UInt64 in 1...6 {
            let recording = MotionGenerator.render(
                script: .tableTennis, seed: seed, rate: 50, duration: 60, options: options)
            let samples = recording.samples
            for t in Self.hits(recording) {
                let after = samples.filter { $0.t >= t + 0.3 && $0.t <= t + 0.8 }
                guard !after.isEmpty else { continue }
                total += 1
                if after.contains(where: { $0.magnitude > 1.5 }) { strong += 1 }
            }
        }
        #expect(total >= 200)
        #expect(strong >= total / 5 && strong <= total * 9 / 10, "\(strong) of \(total)")
    }

    @Test("a break between drills moves the wrist (walking, picking balls up, swings) without a ball")
    func breaks() {
        let recording = MotionGenerator.render(script: .tableTennis, seed: 12, rate: 50, duration: 240)
        let times = Self.hits(recording)
        let samples = recording.samples
        var moving = 0
        var breaks = 0
        for (a, b) in zip(times, times.dropFirst()) where b - a >= 5 {
            breaks += 1
            let inside = samples.filter { $0.t > a + 1.5 && $0.t < b - 1.5 }
            if inside.contains(where: { abs($0.magnitude - 1) > 0.3 }) { moving += 1 }
        }
        #expect(breaks >= 2)
        #expect(moving == breaks, "\(moving) of \(breaks) breaks move")
    }
}
