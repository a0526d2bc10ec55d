// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

@Suite("StepDetector on varied walking")
struct StepVariationTests {
    @Test("slow, shuffling steps of 0.025 g at a lower back are counted", arguments: [50.0, 100.0, 200.0])
    func smallSteps(rate: Double) {
        // 1.4 steps/s for 20 s: 28 steps.
        let samples = synthesize(rate: rate, duration: 22) { t in
            let walking = t >= 1 && t < 21 ? 0.025 * MotionMath.cos(2 * MotionMath.pi * 1.4 * (t - 1)) : 0
            return (0, 0, 1 + walking)
        }
        let steps = StepDetector().events(in: samples)
        #expect(abs(steps.count - 28) <= 1, "\(steps.count) steps at \(rate) Hz")
    }

    @Test("a turn that slows two steps by 70 % inside a bout's first steps does not lose the bout's steps")
    func turnEarlyInBout() {
        // Steps at 0.55 s, then two at 0.95 s (a turn), then 0.55 s again.
        var times: [Double] = []
        var t = 1.0
        for index in 0..<24 {
            times.append(t)
            t += index == 1 || index == 2 ? 0.95 : 0.55
        }
        let samples = synthesize(rate: 100, duration: t + 1) { now in
            let z = times.reduce(0.0) { $0 + 0.25 * bump(now, centre: $1, width: 0.25) }
            return (0, 0, 1 + z)
        }
        let steps = StepDetector().events(in: samples)
        #expect(abs(steps.count - times.count) <= 1, "\(steps.count) of \(times.count) steps")
    }

    @Test("on the varied steps script the count is within 3 % at 50, 100 and 200 Hz", arguments: [50.0, 100.0, 200.0])
    func variedScript(rate: Double) {
        var truth = 0
        var found = 0
        for seed in UInt64(0)..<4 {
            let recording = MotionGenerator.render(script: .steps, seed: 40 + seed, rate: rate, duration: 120)
            truth += recording.labels.count
            found += StepDetector().events(in: recording.samples).count
        }
        #expect(truth > 300)
        #expect(abs(Double(found - truth)) <= 0.03 * Double(truth), "\(found) of \(truth) steps at \(rate) Hz")
    }
}
