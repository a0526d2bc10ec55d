// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing

/// `skipped_step_factor`: a step the detector did not see must not lengthen the bout's cadence.
@Suite("StepDetector cadence across a missed step")
struct SkippedStepTests {
    /// A phone in a front pocket: a strong peak every 1.0 s (the near leg) and a weaker one 0.34 s after
    /// it (the far leg), missing after every seventh strong one (74 steps in all).
    func asymmetricWalk(rate: Double) -> (samples: [AccelerationSample], steps: Int) {
        let strong = (0..<40).map { 1 + Double($0) }
        let weak = strong.dropLast().filter { Int($0) % 7 != 6 }.map { $0 + 0.34 }
        let samples = synthesize(rate: rate, duration: strong.last! + 1.5) { now in
            let z =
                strong.reduce(0.0) { $0 + 0.3 * bump(now, centre: $1, width: 0.12) }
                + weak.reduce(0.0) { $0 + 0.2 * bump(now, centre: $1, width: 0.12) }
            return (0, 0, 1 + z)
        }
        return (samples, strong.count + weak.count)
    }

    func stepCount(_ settings: DetectionSettings, _ samples: [AccelerationSample]) -> Int {
        StepDetector(parameters: settings.parameters.step).events(in: samples).count {
            if case .step = $0 { return true }
            return false
        }
    }

    @Test(
        "an asymmetric walk keeps its short steps after a missed one; taking the gap as one interval lost them",
        arguments: [50.0, 100.0, 200.0])
    func shortStepsAfterAMiss(rate: Double) throws {
        let (samples, truth) = asymmetricWalk(rate: rate)
        #expect(stepCount(DetectionSettings(profile: .steps), samples) == truth, "at \(rate) Hz")
        // Without the rule the 1.0 s gap lengthens the cadence, the shortest interval reaches its 0.35 s
        // cap and every later 0.34 s step is refused (unless the long stride ends the bout: tolerance off).
        var off = DetectionSettings(profile: .steps)
        try off.set("skipped_step_factor=0")
        try off.set("stride_tolerance=0")
        let lost = truth - stepCount(off, samples)
        #expect(lost >= 20, "without the rule \(lost) steps are lost at \(rate) Hz")
    }
}
