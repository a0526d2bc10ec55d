// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

/// The half-cadence unlock of `StepDetector`: a bout's cadence is doubled only when
/// `half_cadence_confirm` step intervals in a row each hold a refused peak half-way.
@Suite("StepDetector half-cadence confirmation")
struct HalfCadenceTests {
    /// A 0.55 s walk at a lower back with a mid-step trunk peak (0.275 s after the step) in the
    /// intervals after `echoSteps`.
    func walkWithEchoes(rate: Double, steps: Int, echoAfter echoSteps: Set<Int>) -> [AccelerationSample] {
        let times = (0..<steps).map { 1 + Double($0) * 0.55 }
        return synthesize(rate: rate, duration: times.last! + 1.5) { now in
            let z = times.indices.reduce(0.0) { sum, index in
                let echo = echoSteps.contains(index) ? 0.2 * bump(now, centre: times[index] + 0.275, width: 0.1) : 0
                return sum + 0.25 * bump(now, centre: times[index], width: 0.1) + echo
            }
            return (0, 0, 1 + z)
        }
    }

    /// Step times as the detector reports them (not sorted, so their order is checked).
    func stepTimes(_ settings: DetectionSettings, _ samples: [AccelerationSample]) -> [Double] {
        StepDetector(parameters: settings.parameters.step).events(in: samples).compactMap { event -> Double? in
            if case .step(let step) = event { return step.t }
            return nil
        }
    }

    @Test(
        "mid-step peaks in single intervals (two of every five) are not steps; unlocking on one interval counted them",
        arguments: [50.0, 100.0, 200.0])
    func isolatedMidStepPeaks(rate: Double) throws {
        let echoes = Set((0..<40).filter { $0 >= 5 && ($0 % 5 == 0 || $0 % 5 == 2) })
        let samples = walkWithEchoes(rate: rate, steps: 40, echoAfter: echoes)
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        #expect(abs(steps.count - 40) <= 1, "\(steps.count) of 40 steps at \(rate) Hz")
        var single = DetectionSettings(profile: .steps)
        try single.set("half_cadence_confirm=1")
        let unlocked = stepTimes(single, samples).count
        #expect(unlocked >= 44, "unlocking on one interval counts the mid-step peaks: \(unlocked) at \(rate) Hz")
    }

    @Test("a bout confirmed on every other step counts the held half-way peaks once the doubled cadence is confirmed")
    func heldPeaksCount() {
        // Strong peaks every 0.6 s, weak ones half-way from the ninth on (the bout is confirmed on the
        // sixth): every one of them is a step.
        let strong = (0..<40).map { 1 + Double($0) * 0.6 }
        let weak = strong.dropFirst(8).map { $0 - 0.3 }
        let samples = synthesize(rate: 100, duration: strong.last! + 1.5) { now in
            let z =
                strong.reduce(0.0) { $0 + 0.3 * bump(now, centre: $1, width: 0.12) }
                + weak.reduce(0.0) { $0 + 0.2 * bump(now, centre: $1, width: 0.12) }
            return (0, 0, 1 + z)
        }
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        let truth = strong.count + weak.count
        #expect(steps.count >= truth - 1 && steps.count <= truth, "\(steps.count) of \(truth) steps")
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 < $1 }, "steps come out in time order")
    }

    @Test("steps held with a half-way peak are reported when the next interval has none, and at the end")
    func heldStepsReleased() {
        // Mid-step peaks after step 10 (the next interval has none) and after the second-to-last step
        // (the stream ends while its step is held).
        let samples = walkWithEchoes(rate: 100, steps: 30, echoAfter: [10, 28])
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        #expect(steps.count == 30, "\(steps.count) of 30 steps")
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 < $1 }, "steps come out in time order")
    }

    @Test(
        "min_doubled_interval keeps a trunk peak half-way through every walking step from doubling it to 240 steps/min",
        arguments: [50.0, 100.0, 200.0])
    func noDoublingAtWalkingCadence(rate: Double) throws {
        // 0.5 s steps (120 steps/min), from the sixth on a weaker peak 0.25 s after each.
        let times = (0..<40).map { 1 + Double($0) * 0.5 }
        let samples = synthesize(rate: rate, duration: times.last! + 1.5) { now in
            let z = times.indices.reduce(0.0) { sum, index in
                let echo = index >= 5 ? 0.2 * bump(now, centre: times[index] + 0.25, width: 0.1) : 0
                return sum + 0.25 * bump(now, centre: times[index], width: 0.1) + echo
            }
            return (0, 0, 1 + z)
        }
        var limited = DetectionSettings(profile: .steps)
        try limited.set("min_doubled_interval=0.28")
        let steps = stepTimes(limited, samples)
        #expect(steps.count == 40, "\(steps.count) of 40 steps at \(rate) Hz")
        // Off by default: the echoes double the cadence and count.
        let doubled = stepTimes(DetectionSettings(profile: .steps), samples).count
        #expect(doubled >= 70, "without the limit the echoes count: \(doubled) at \(rate) Hz")
    }

    @Test("half_cadence_confirm takes 0 to 3")
    func settingRange() throws {
        var settings = DetectionSettings(profile: .steps)
        try settings.set("half_cadence_confirm=0")
        #expect(settings.parameters.step.halfCadenceConfirm == 0)
        #expect(throws: DetectionSettingsError.self) { try settings.set("half_cadence_confirm=4") }
        #expect(DetectionSettings(profile: .steps).parameters.step.halfCadenceConfirm == 2)
    }
}
