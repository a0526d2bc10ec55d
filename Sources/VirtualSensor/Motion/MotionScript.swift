// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import SeededRandomness

/// A ground-truth event in a synthetic recording.
public enum MotionLabel: Hashable, Sendable {
    /// A stroke's ball contact, with the true peak |specific force| of the stroke in g.
    case hit(t: Double, intensityG: Double)
    /// A jump: the instants the feet leave and touch the ground.
    case jump(takeoff: Double, landing: Double)
    /// A throw of the sensor: the instants it leaves and reaches the hand.
    case `throw`(release: Double, catch: Double)
    /// A foot contact.
    case step(t: Double)

    /// The label's reference time (hit, takeoff, release or step time).
    public var time: Double {
        switch self {
        case .hit(let t, _), .step(let t): t
        case .jump(let t, _), .throw(let t, _): t
        }
    }

    package func shifted(by offset: Double) -> MotionLabel {
        switch self {
        case .hit(let t, let g): .hit(t: t + offset, intensityG: g)
        case .jump(let a, let b): .jump(takeoff: a + offset, landing: b + offset)
        case .throw(let a, let b): .throw(release: a + offset, catch: b + offset)
        case .step(let t): .step(t: t + offset)
        }
    }
}

/// What a synthetic recording shows.
///
/// A script's raw value is the name of the detection profile whose detector it exercises
/// (`DetectionProfile(rawValue:)`), so evaluations and tests pair them without a table of their
/// own; `rest` exercises none.
public enum MotionScript: String, CaseIterable, Hashable, Sendable {
    /// The sensor lying or held still, with tremor (and gestures when distractors are on).
    case rest
    /// Robot drills of 12–40 topspins, flips or blocks on one side, a ball every 1.0–1.2 s, with the
    /// arm's return between strokes and clipping at ±2 g (`TableTennisDrill`); between drills:
    /// walking, picking balls up, loosening swings, gestures, bouncing the ball, taps and a few
    /// shadow swings (labelled hits).
    case tableTennis = "table-tennis"
    /// Counter-movement jumps, rebound series and rope skipping, soft and hard landings; between
    /// them: walking, gestures, squats.
    case jumps = "jump"
    /// The sensor thrown up with spin and caught; between throws: taps, small drops, gestures.
    case throwing = "throw"
    /// Walking and running bouts; between them: rest, gestures, taps.
    case steps
    /// Shoulder exercises at the wrist or in the hand (arm circles, raises, swings, forearm
    /// rotations) between rests: no jump, throw, hit or step, so every detection is a false one
    /// (`sportsensor-dev eval` scores them per hour).
    case armExercise = "arm-exercise"
}

/// Knobs for a synthetic recording; nil means "drawn at random from the seed".
public struct MotionOptions: Hashable, Sendable {
    /// Include motions that are not events (on by default).
    public var distractors = true
    /// Where the sensor is worn; nil draws one suited to the script.
    public var mount: SensorMount?
    /// The sensor's orientation on the body; nil draws a uniform random rotation.
    public var orientation: Rotation3?
    /// Slow drift of the orientation (strap slipping), rad/s; nil draws 0–0.1.
    public var driftRate: Double?
    /// Standard deviation of the sensor noise, g; nil draws 0.003–0.02.
    public var noise: Double?
    /// Scale of the motion's vigour; nil draws 0.8–1.2.
    public var intensity: Double?
    /// Apply per-axis offset (±0.03 g) and gain (±3 %) errors (on by default).
    public var calibrationErrors = true

    /// Everything random.
    public init() {}
}

/// A rendered recording: raw readings at a fixed rate and the ground truth.
public struct MotionRecording: Sendable {
    /// Samples per second.
    public var rate: Double
    /// The readings, as the sensor reports them (16384 counts per g, Int16-saturated).
    public var raw: [RawAcceleration]
    /// The true events, in time order.
    public var labels: [MotionLabel]
    /// The mount used.
    public var mount: SensorMount

    /// The readings as samples in g; sample i is at t = i / rate.
    public var samples: [AccelerationSample] {
        raw.enumerated().map { AccelerationSample(t: Double($0.offset) / rate, raw: $0.element) }
    }
}

/// Produces a script's readings sample by sample, planning new random segments as time goes on.
public struct MotionGenerator: Sendable {
    enum Segment {
        case stroke(DrillStroke)
        case distractor(Distractor, duration: Double)
        case drillBreak(DrillBreakMotion, duration: Double)
        case gait(Gait)
        case flights(FlightSeries)
        case arm(ArmExercise)

        var duration: Double {
            switch self {
            case .stroke(let s): s.duration
            case .distractor(_, let d), .drillBreak(_, let d): d
            case .gait(let g): g.duration
            case .flights(let f): f.duration
            case .arm(let a): a.duration
            }
        }

        func point(at t: Double) -> MotionPoint {
            switch self {
            case .stroke(let s): s.point(at: t)
            case .distractor(let d, let duration): d.point(at: t, duration: duration)
            case .drillBreak(let d, let duration): d.point(at: t, duration: duration)
            case .gait(let g): g.point(at: t)
            case .flights(let f): f.point(at: t)
            case .arm(let a): a.point(at: t)
            }
        }

        var labels: [MotionLabel] {
            switch self {
            case .stroke(let s): [.hit(t: s.contact, intensityG: s.peak)]
            case .distractor, .drillBreak, .arm: []
            case .gait(let g): (0..<g.steps).map { .step(t: g.stepTime($0)) }
            case .flights(let f):
                f.takeoffs.indices.map {
                    f.kind == .toss
                        ? .throw(release: f.takeoffs[$0], catch: f.landings[$0])
                        : .jump(takeoff: f.takeoffs[$0], landing: f.landings[$0])
                }
            }
        }
    }

    /// The script being played.
    public let script: MotionScript
    /// The mount in use.
    public let mount: SensorMount
    var random: SplitMix64
    /// Noise has its own stream so the motion is the same at every sample rate.
    var noiseRandom: SplitMix64
    let options: MotionOptions
    let base: Rotation3
    let driftAxis: Vector3
    let driftRate: Double
    let noise: Double
    let intensity: Double
    let offset: Vector3
    let gain: Vector3
    var planned: [Segment] = []
    var current: Segment
    var currentStart: Double = 0
    /// Ground truth for the segments planned so far (only when `recordsLabels`).
    public private(set) var labels: [MotionLabel] = []
    let recordsLabels: Bool
    var rallyLeft = 0
    /// The table-tennis drill being played and the arm's angle at the end of its last stroke.
    var drill: TableTennisDrill?
    var armAngle = 0.0

    /// Creates a generator for `script` from `seed`; `recordsLabels` keeps the ground truth (a live
    /// source streaming forever turns it off so memory stays bounded).
    public init(
        script: MotionScript, seed: UInt64, options: MotionOptions = MotionOptions(), recordsLabels: Bool = true
    ) {
        var random = SplitMix64(seed: seed)
        self.script = script
        self.options = options
        self.recordsLabels = recordsLabels
        let mount: SensorMount
        if let chosen = options.mount {
            mount = chosen
        } else {
            switch script {
            case .tableTennis: mount = random.chance(0.8) ? .wrist : .hand
            case .throwing: mount = .hand
            case .jumps:
                mount = [.wrist, .wrist, .wrist, .lowerBack, .lowerBack, .shank, .hand][Int(random.unit() * 7)]
            case .steps: mount = [.wrist, .wrist, .wrist, .lowerBack, .hand][Int(random.unit() * 5)]
            case .rest: mount = .wrist
            case .armExercise: mount = random.chance(0.8) ? .wrist : .hand
            }
        }
        self.mount = mount
        base = options.orientation ?? random.rotation()
        driftAxis = random.direction()
        driftRate = options.driftRate ?? random.uniform(0...0.1)
        noise = options.noise ?? random.uniform(0.003...0.02)
        intensity = options.intensity ?? random.uniform(0.8...1.2)
        if options.calibrationErrors {
            offset = Vector3(random.uniform(-0.03...0.03), random.uniform(-0.03...0.03), random.uniform(-0.03...0.03))
            gain = Vector3(random.uniform(0.97...1.03), random.uniform(0.97...1.03), random.uniform(0.97...1.03))
        } else {
            offset = .zero
            gain = Vector3(1, 1, 1)
        }
        current = .distractor(.rest(tremor: 0.005, frequency: 9, direction: .up), duration: 1)
        self.random = random
        noiseRandom = SplitMix64(seed: seed ^ 0x5DEE_CE66_D1CE_4E5B)
        if recordsLabels { labels = [] }
    }

    /// The end time of the segments planned so far, s.
    public var plannedUntil: Double { currentStart + current.duration + planned.reduce(0) { $0 + $1.duration } }

    /// The sensor's reading at time `t` (seconds from the start; call with increasing times), in g in
    /// the sensor's frame, before noise, calibration errors and quantisation.
    public mutating func specificForce(at t: Double) -> Vector3 {
        while t >= currentStart + current.duration {
            currentStart += current.duration
            if planned.isEmpty { planBlock() }
            current = planned.removeFirst()
            if recordsLabels { labels += current.labels.map { $0.shifted(by: currentStart) } }
        }
        let point = current.point(at: t - currentStart)
        let drift = Rotation3(axis: driftAxis, angle: driftRate * t)
        let sensor = point.rotation.then(base.then(drift))
        return sensor.applyInverse(point.force) + point.sensorFrame
    }

    /// The raw reading for the sample at `t`, averaging the motion over the sample interval as the
    /// sensor's own filter does, adding noise and calibration errors, quantising to 16384 counts per g
    /// and saturating at the Int16 limits.
    public mutating func reading(at t: Double, interval: Double) -> RawAcceleration {
        let steps = max(2, Int((interval / 0.001).rounded(.up)))
        var sum = Vector3.zero
        for index in 0..<steps {
            let u = t - interval / 2 + (Double(index) + 0.5) * interval / Double(steps)
            sum += specificForce(at: max(u, 0))
        }
        let mean = sum * (1 / Double(steps))
        func count(_ value: Double, _ gain: Double, _ offset: Double, _ noise: Double) -> Int16 {
            let g = value * gain + offset + noise
            let counts = (g * SDUProfile.countsPerG).rounded()
            return Int16(min(max(counts, -32768), 32767))
        }
        let nx = noise * noiseRandom.gaussian()
        let ny = noise * noiseRandom.gaussian()
        let nz = noise * noiseRandom.gaussian()
        return RawAcceleration(
            x: count(mean.x, gain.x, offset.x, nx), y: count(mean.y, gain.y, offset.y, ny),
            z: count(mean.z, gain.z, offset.z, nz))
    }

    /// Renders `duration` seconds (rounded up to whole segments, so every label is complete) at `rate`.
    public static func render(
        script: MotionScript, seed: UInt64, rate: Double, duration: Double, options: MotionOptions = MotionOptions()
    ) -> MotionRecording {
        var generator = MotionGenerator(script: script, seed: seed, options: options)
        while generator.plannedUntil < duration { generator.planBlock() }
        let total = generator.plannedUntil
        let count = Int((total * rate).rounded(.down))
        var raw: [RawAcceleration] = []
        raw.reserveCapacity(count)
        for index in 0..<count {
            raw.append(generator.reading(at: Double(index) / rate, interval: 1 / rate))
        }
        let end = Double(count - 1) / rate
        let labels = generator.labels.filter { label in
            switch label {
            case .jump(_, let landing), .throw(_, let landing): landing < end
            default: label.time < end
            }
        }
        return MotionRecording(rate: rate, raw: raw, labels: labels, mount: generator.mount)
    }

    mutating func rest(_ range: ClosedRange<Double>) -> Segment {
        .distractor(
            .rest(
                tremor: random.uniform(0.002...0.015), frequency: random.uniform(7...12), direction: random.direction()),
            duration: random.uniform(range))
    }

    mutating func distractor() -> Segment {
        let pick = random.unit()
        switch script {
        case .tableTennis:
            if pick < 0.25 {
                return .gait(
                    Gait(
                        random: &random, mount: mount, running: false, steps: Int(random.uniform(3...12)),
                        intensity: intensity))
            }
            if pick < 0.5 {
                return .distractor(
                    .bounce(
                        frequency: random.uniform(1.5...2.6), amplitude: random.uniform(0.1...0.35),
                        impact: random.uniform(0.2...0.8)),
                    duration: random.uniform(2...5))
            }
            if pick < 0.8 { return gesture() }
            return tap()
        case .jumps:
            if pick < 0.3 {
                return .gait(
                    Gait(
                        random: &random, mount: mount, running: false, steps: Int(random.uniform(3...10)),
                        intensity: intensity))
            }
            if pick < 0.65 { return gesture() }
            return .distractor(
                .squat(dip: random.uniform(0.2...0.5), push: random.uniform(0.2...0.6)),
                duration: random.uniform(1...1.8))
        case .throwing:
            if pick < 0.35 { return tap() }
            if pick < 0.7 {
                return .distractor(
                    .drop(fall: random.uniform(0.04...0.14), impact: random.uniform(1.5...4)), duration: 1)
            }
            return gesture()
        case .steps, .rest, .armExercise:
            return pick < 0.7 ? gesture() : tap()
        }
    }

    mutating func gesture() -> Segment {
        .distractor(
            .gesture(
                direction: random.direction(), amplitude: random.uniform(0.15...0.6), axis: random.direction(),
                angle: random.uniform(-0.9...0.9)),
            duration: random.uniform(0.6...1.6))
    }

    mutating func tap() -> Segment {
        let direction = (random.direction() + Vector3(0, 0, 1.5)).normalized
        return .distractor(
            .tap(direction: direction, amplitude: random.uniform(0.8...3), width: random.uniform(0.003...0.01)),
            duration: 0.5)
    }

    /// Plans the next few segments of the script.
    mutating func planBlock() {
        let distract = options.distractors
        switch script {
        case .rest:
            planned.append(rest(2...6))
            if distract && random.chance(0.5) { planned.append(distractor()) }
        case .tableTennis:
            if rallyLeft == 0 {
                planned.append(rest(0.8...2.5))
                if distract && drill != nil { planDrillBreak() }
                drill = TableTennisDrill(random: &random, intensity: intensity)
                rallyLeft = Int(random.uniform(12...40))
                armAngle = 0
            }
            guard let drill else { return }
            let stroke = drill.stroke(random: &random, start: armAngle, last: rallyLeft == 1)
            armAngle = stroke.returning == nil ? stroke.end : 0
            planned.append(.stroke(stroke))
            rallyLeft -= 1
        case .jumps:
            planned.append(rest(0.8...2.5))
            let pick = random.unit()
            let kind: FlightSeries.Kind = pick < 0.7 ? .jump : .rope
            let count = pick < 0.45 ? 1 : (kind == .rope ? Int(random.uniform(6...16)) : Int(random.uniform(2...6)))
            planned.append(
                .flights(FlightSeries(random: &random, kind: kind, mount: mount, count: count, intensity: intensity)))
            if distract && random.chance(0.5) { planned.append(distractor()) }
        case .throwing:
            planned.append(rest(0.8...2))
            planned.append(
                .flights(FlightSeries(random: &random, kind: .toss, mount: .hand, count: 1, intensity: intensity)))
            if distract && random.chance(0.6) { planned.append(distractor()) }
        case .steps:
            planned.append(rest(1...4))
            if distract && random.chance(0.6) { planned.append(distractor()) }
            let running = random.chance(0.35)
            planned.append(
                .gait(
                    Gait(
                        random: &random, mount: mount, running: running, steps: Int(random.uniform(12...60)),
                        intensity: intensity, varied: true)))
        case .armExercise:
            planned.append(rest(0.5...2))
            planned.append(.arm(ArmExercise(random: &random, intensity: intensity)))
            if distract && random.chance(0.3) { planned.append(gesture()) }
        }
    }
}

/// A motion script as an endless `AccelerationSource` for the virtual sensor: it keeps planning new
/// random segments, and keeps no labels so memory stays bounded.
public struct MotionScriptSource: AccelerationSource {
    var generator: MotionGenerator
    /// Samples per second the virtual sensor pulls at.
    public let rate: Double
    var index: UInt64 = 0

    /// Creates a source playing `script` from `seed` at `rate` samples per second.
    public init(script: MotionScript, seed: UInt64, rate: Double, options: MotionOptions = MotionOptions()) {
        generator = MotionGenerator(script: script, seed: seed, options: options, recordsLabels: false)
        self.rate = rate
    }

    /// The next reading.
    public mutating func nextSample() -> RawAcceleration {
        let t = Double(index) / rate
        index += 1
        return generator.reading(at: t, interval: 1 / rate)
    }
}
