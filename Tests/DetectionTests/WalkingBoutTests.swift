// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import SeededRandomness
import Testing

/// Steps count only inside a walking bout: a regular run of `confirm_steps` peaks confirms one (and is
/// credited at once), and a confirmed bout ends at a stride much longer than its own.
@Suite("StepDetector walking bouts")
struct WalkingBoutTests {
    /// A 0.55 s walk of `steps` steps from `start`, with step-like handling peaks (a phone put away or taken
    /// out: 0.04–0.12 g, irregular intervals as on steps-oxford) at `handling`.
    func walk(rate: Double, start: Double, steps: Int, handling: [Double]) -> [AccelerationSample] {
        let times = (0..<steps).map { start + Double($0) * 0.55 }
        let heights = [0.06, 0.1, 0.04, 0.12, 0.08]
        let end = max(times.last ?? 0, handling.last ?? 0) + 1.5
        return synthesize(rate: rate, duration: end) { now in
            let z =
                times.reduce(0.0) { $0 + 0.3 * bump(now, centre: $1, width: 0.12) }
                + handling.indices.reduce(0.0) {
                    $0 + heights[$1 % heights.count] * bump(now, centre: handling[$1], width: 0.1)
                }
            return (0, 0, 1 + z)
        }
    }

    /// Handling peaks after a walk whose last step is at 17.5 s: 0.3–1.2 s apart, irregular, as when a phone
    /// is taken out of a pocket or purse (steps-oxford).
    static let handlingAfter: [Double] = [0.45, 0.75, 1.65, 2.0, 3.2, 3.6, 4.1, 5.1, 5.4, 6.1, 6.55, 7.65].map {
        17.5 + $0
    }

    /// Settings that confirm a bout on 3 peaks within a factor 2.5 and never end one early: the rules before
    /// walking bouts.
    func looseBouts() throws -> DetectionSettings {
        var settings = DetectionSettings(profile: .steps)
        try settings.set("confirm_steps=3")
        try settings.set("stride_regularity=100")
        try settings.set("stride_tolerance=0")
        return settings
    }

    func stepTimes(_ settings: DetectionSettings, _ samples: [AccelerationSample]) -> [Double] {
        StepDetector(parameters: settings.parameters.step).events(in: samples).compactMap { event -> Double? in
            if case .step(let step) = event { return step.t }
            return nil
        }
    }

    /// At 200 Hz the first two handling bumps are seen as one peak 0.75 s after the last step and the later gaps
    /// as whole numbers of missed steps, so the bout runs on: a limit in Docs/DETECTION.md, not covered here.
    @Test(
        "taking a phone out after a walk does not continue the bout; without the stride tolerance it did",
        arguments: [50.0, 100.0])
    func handlingAfterWalk(rate: Double) throws {
        let samples = walk(rate: rate, start: 1, steps: 31, handling: Self.handlingAfter)
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        #expect(steps.count >= 30 && steps.count <= 33, "\(steps.count) of 31 steps at \(rate) Hz: \(steps.suffix(5))")
        let loose = stepTimes(try looseBouts(), samples).count
        #expect(loose >= 36, "the loose rules count the handling: \(loose) at \(rate) Hz")
    }

    @Test(
        "gestures before a walk (five peaks 0.25–0.85 s apart) count nothing; confirming on three peaks counted them",
        arguments: [50.0, 100.0, 200.0])
    func handlingBeforeWalk(rate: Double) throws {
        let samples = walk(rate: rate, start: 5, steps: 20, handling: [1.0, 1.4, 2.0, 2.25, 3.1])
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        #expect(steps.count == 20, "\(steps.count) of 20 steps at \(rate) Hz")
        #expect(steps.allSatisfy { $0 > 4.5 }, "no step among the gestures at \(rate) Hz")
        let loose = stepTimes(try looseBouts(), samples).count
        #expect(loose >= 22, "the loose rules count the gestures: \(loose) at \(rate) Hz")
    }

    @Test("a bout's first steps are credited when its sixth step confirms it, with their own times")
    func firstStepsCredited() {
        let samples = walk(rate: 100, start: 1, steps: 12, handling: [])
        var detector = StepDetector()
        var emitted: [(at: Double, t: Double)] = []
        for sample in samples {
            var events: [DetectorEvent] = []
            detector.process(CollectionOfOne(sample), into: &events)
            for case .step(let step) in events { emitted.append((sample.t, step.t)) }
        }
        #expect(emitted.count == 12)
        // Nothing is reported before the sixth step (3.75 s); the first five come out then, in order.
        let first = emitted.first?.at ?? 0
        #expect(first > 1 + 5 * 0.55 && first < 1 + 5 * 0.55 + 0.4, "first step reported at \(first) s")
        #expect(abs((emitted.first?.t ?? 0) - 1) < 0.05, "the first step keeps its own time")
        #expect(zip(emitted, emitted.dropFirst()).allSatisfy { $0.t < $1.t }, "steps come out in time order")
    }

    @Test("a run of five regular steps is not counted, six are (confirm_steps 6)")
    func shortRuns() {
        for (steps, expected) in [(5, 0), (6, 6)] {
            let samples = walk(rate: 100, start: 1, steps: steps, handling: [])
            let counted = stepTimes(DetectionSettings(profile: .steps), samples)
            #expect(counted.count == expected, "\(counted.count) of a \(steps)-step run")
        }
    }

    @Test("a walk that resumes after a pause of 1.5 s is confirmed again and keeps its steps")
    func pauseInsideWalk() {
        let first = (0..<15).map { 1 + Double($0) * 0.55 }
        let second = (0..<15).map { first.last! + 1.5 + Double($0) * 0.55 }
        let samples = synthesize(rate: 100, duration: second.last! + 1.5) { now in
            (0, 0, 1 + (first + second).reduce(0.0) { $0 + 0.3 * bump(now, centre: $1, width: 0.12) })
        }
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        #expect(steps.count == 30, "\(steps.count) of 30 steps")
    }

    @Test("a walk that speeds up after a short pause re-locks the bout (0.62 s steps after 1.25 s ones)")
    func fasterWalkRelocks() {
        // The pause (1.6 s) is within the slow walk's stride tolerance, so the bout carries on at 1.25 s and
        // refuses every other fast step as too soon, until six regular peaks at 0.62 s re-lock it.
        let slow = (0..<16).map { 1 + Double($0) * 1.25 }
        let fast = (0..<30).map { slow.last! + 1.6 + Double($0) * 0.62 }
        let samples = synthesize(rate: 100, duration: fast.last! + 1.5) { now in
            (0, 0, 1 + (slow + fast).reduce(0.0) { $0 + 0.3 * bump(now, centre: $1, width: 0.12) })
        }
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        let fastSteps = steps.filter { $0 > fast[0] - 0.1 }.count
        #expect(steps.count >= 44 && steps.count <= 46, "\(steps.count) of 46 steps")
        #expect(fastSteps >= 28, "\(fastSteps) of the fast walk's 30 steps")
    }

    @Test("running at 0.3 s after two slower peaks is counted at its own cadence, not locked on every other step")
    func runningAfterSlowerStart() {
        // A run that starts on 0.6 s peaks takes the first 0.3 s peaks for echoes inside a step; once those
        // peaks and the steps are a regular run together, that run is the bout.
        let times = [1.0, 1.6, 2.5] + (0..<30).map { 2.8 + Double($0) * 0.3 }
        let samples = synthesize(rate: 100, duration: times.last! + 1.5) { now in
            (0, 0, 1 + times.reduce(0.0) { $0 + 0.4 * bump(now, centre: $1, width: 0.1) })
        }
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        #expect(steps.count >= 30 && steps.count <= 33, "\(steps.count) of 33 peaks")
        #expect(steps.filter { $0 > 2.7 && $0 < 4.5 }.count == 6, "the first 0.3 s steps are counted")
    }

    /// A 0.55 s walk of 0.5 g steps from 1 s, then peaks of `weakHeight` g at `after` (offsets from its last step).
    func walkThenWeakPeaks(
        rate: Double, after: [Double], weakHeight: Double
    ) -> (samples: [AccelerationSample], last: Double) {
        let steps = (0..<20).map { 1 + Double($0) * 0.55 }
        let weak = after.map { steps.last! + $0 }
        let samples = synthesize(rate: rate, duration: (weak.last ?? steps.last!) + 1.5) { now in
            let z =
                steps.reduce(0.0) { $0 + 0.5 * bump(now, centre: $1, width: 0.12) }
                + weak.reduce(0.0) { $0 + weakHeight * bump(now, centre: $1, width: 0.12) }
            return (0, 0, 1 + z)
        }
        return (samples, steps.last!)
    }

    @Test(
        "peaks a tenth of the walk's steps at its rhythm after it (a phone handled) are not steps; with bout_height_fraction 0 they were",
        arguments: [50.0, 100.0, 200.0])
    func weakPeaksAfterWalk(rate: Double) throws {
        // Each within the bout's stride tolerance of the one before, peaking at a tenth of the walk's steps.
        let after = [0.6, 1.1, 1.55, 2.2, 2.7, 3.35, 3.8]
        let (samples, last) = walkThenWeakPeaks(rate: rate, after: after, weakHeight: 0.07)
        // A low hysteresis and a quicker baseline let the weak peaks through at once (the step amplitude's 2 s
        // memory and the walk's raised baseline would hide the first of them): what is tested is the bout's
        // rule, which must refuse them itself.
        var settings = DetectionSettings(profile: .steps)
        try settings.set("hysteresis=0.05")
        try settings.set("baseline_time_constant=0.4")
        let steps = stepTimes(settings, samples)
        #expect(steps.count == 20, "\(steps.count) of 20 steps at \(rate) Hz: \(steps.suffix(4))")
        #expect(steps.allSatisfy { $0 < last + 0.2 }, "nothing after the walk at \(rate) Hz")
        var off = settings
        try off.set("bout_height_fraction=0")
        let counted = stepTimes(off, samples)
        #expect(counted.count >= 24, "without the rule the bout takes them: \(counted.suffix(8)) at \(rate) Hz")
    }

    @Test("a walk that goes on with steps a tenth as strong is confirmed again and counted", arguments: [50.0, 100.0])
    func weakerWalkConfirmedAgain(rate: Double) {
        let after = (1...20).map { Double($0) * 0.55 }
        let (samples, _) = walkThenWeakPeaks(rate: rate, after: after, weakHeight: 0.07)
        let steps = stepTimes(DetectionSettings(profile: .steps), samples)
        // The first weak steps are refused until one is late for the strong bout; the new bout then counts
        // its run with the steps it backfills.
        #expect(steps.count >= 36 && steps.count <= 40, "\(steps.count) of 40 steps at \(rate) Hz: \(steps.suffix(22))")
    }

    @Test(
        "steps whose heights vary within a factor 4 (alternating feet, random) count the same with and without the weak-peak rule",
        arguments: [50.0, 100.0])
    func unevenStepsKept(rate: Double) throws {
        var off = DetectionSettings(profile: .steps)
        try off.set("bout_height_fraction=0")
        var random = SplitMix64(seed: 26)
        // Alternating 0.5 and 0.17 g (a phone in a front pocket peaks on one foot's steps), then four walks of
        // random heights in 0.15–0.6 g.
        var walks: [[Double]] = [(0..<30).map { $0 % 2 == 0 ? 0.5 : 0.17 }]
        for _ in 0..<4 { walks.append((0..<30).map { _ in 0.15 + 0.45 * random.unit() }) }
        for heights in walks {
            let times = heights.indices.map { 1 + Double($0) * 0.55 }
            let samples = synthesize(rate: rate, duration: times.last! + 1.5) { now in
                (0, 0, 1 + zip(times, heights).reduce(0.0) { $0 + $1.1 * bump(now, centre: $1.0, width: 0.12) })
            }
            let with = stepTimes(DetectionSettings(profile: .steps), samples)
            let without = stepTimes(off, samples)
            #expect(with == without, "\(with.count) against \(without.count) steps at \(rate) Hz, heights \(heights)")
            #expect(with.count >= 27, "\(with.count) of 30 steps at \(rate) Hz")
        }
    }

    @Test("stride_regularity and stride_tolerance are settings with the documented defaults")
    func settings() throws {
        let defaults = StepDetector.Parameters()
        #expect(defaults.strideRegularity == 1.2 && defaults.strideTolerance == 1.3 && defaults.confirmSteps == 6)
        #expect(defaults.boutHeightFraction == 0.2)
        var settings = DetectionSettings(profile: .steps)
        try settings.set("stride_regularity=1.5")
        try settings.set("stride_tolerance=0")
        #expect(settings.parameters.step.strideRegularity == 1.5)
        #expect(settings.parameters.step.strideTolerance == 0)
        #expect(throws: DetectionSettingsError.self) { try settings.set("stride_tolerance=-1") }
    }
}
