// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

/// When a walking bout is confirmed, the uncounted peaks just before its run that continue it backwards at
/// its cadence and are as strong as its steps are counted too (`backfill_height`).
@Suite("StepDetector backfill of a bout's first steps")
struct BoutBackfillTests {
    /// A 0.55 s walk of `steps` steps of 0.3 g from `start` without the peaks at `missing`, after `weak`
    /// peaks of 0.1 g (a phone being handled).
    func walk(
        rate: Double = 100, start: Double, steps: Int, missing: Set<Int> = [], weak: [Double] = []
    ) -> [AccelerationSample] {
        let times = (0..<steps).filter { !missing.contains($0) }.map { start + Double($0) * 0.55 }
        return synthesize(rate: rate, duration: start + Double(steps) * 0.55 + 1.5) { now in
            let z =
                times.reduce(0.0) { $0 + 0.3 * bump(now, centre: $1, width: 0.12) }
                + weak.reduce(0.0) { $0 + 0.1 * bump(now, centre: $1, width: 0.12) }
            return (0, 0, 1 + z)
        }
    }

    func count(_ samples: [AccelerationSample], backfillHeight: Double? = nil) throws -> Int {
        var settings = DetectionSettings(profile: .steps)
        if let backfillHeight { try settings.set("backfill_height=\(backfillHeight)") }
        return settings.detector.eventsInTimeOrder(in: samples).count
    }

    @Test("a missed step among a walk's first steps costs only that step", arguments: [50.0, 100.0, 200.0])
    func missedEarlyStep(rate: Double) throws {
        // The third step shows no peak: the run before it breaks (its stride is 1.5 times the next one).
        let samples = walk(rate: rate, start: 1, steps: 24, missing: [2])
        #expect(try count(samples) == 23, "at \(rate) Hz")
        #expect(try count(samples, backfillHeight: 0) == 21, "without backfill the two steps before it are lost")
    }

    @Test("peaks weaker than the walk just before it are not counted; as strong as it they would be")
    func weakHandlingBefore() throws {
        // Two weak peaks 0.55 s apart end 0.9 s before the walk's first step: at its cadence (one missed step
        // would fit), but a third of its height.
        let samples = walk(start: 2.45, steps: 20, weak: [1.0, 1.55])
        #expect(try count(samples) == 20)
        #expect(try count(samples, backfillHeight: 0.1) == 22, "the rule is what keeps them out")
    }

    @Test("the last step of a scripted varied bout shows a peak and is counted")
    func lastStepOfBout() {
        // The generator ends a bout when its last stance is over (real walks show the last step's peak); it
        // used to stop the body at the last contact, and no bout's last step was counted.
        var bouts = 0
        var counted = 0
        for seed in UInt64(40)..<44 {
            let recording = MotionGenerator.render(script: .steps, seed: seed, rate: 100, duration: 120)
            let steps = StepDetector().events(in: recording.samples).map(\.time)
            let labels = recording.labels.map(\.time).sorted()
            let lasts = zip(labels, labels.dropFirst() + [.infinity]).filter { $1 - $0 > 2 }.map(\.0)
            bouts += lasts.count
            counted += lasts.filter { last in steps.contains { abs($0 - last) <= 0.15 } }.count
        }
        #expect(bouts >= 12)
        #expect(Double(counted) >= 0.75 * Double(bouts), "\(counted) of \(bouts) bouts' last steps counted")
    }
}
