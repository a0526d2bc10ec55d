// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import SeededRandomness
import VirtualSensor

/// The independent model's accelerometer: what a MEMS part and its firmware do to the true specific
/// force before it reaches the radio.
///
/// - an anti-aliasing low-pass of two first-order stages at 0.25–0.45 × the output data rate (the
///   part's digital filter), applied to the 1 kHz signal;
/// - an output data rate off by ±1–2 % from the nominal one (the part's own oscillator), sampled at
///   a random phase;
/// - per-axis offset ±30–60 mg, scale error ±2–3 %, axis misalignment and cross-axis coupling
///   (off-diagonal ±0.5–2 %), white noise 2–5 mg RMS per axis;
/// - 16384 counts per g, saturating per axis at the Int16 limits (±2 g).
struct SensorFrontEnd: Sendable {
    /// The true output data rate, Hz.
    let rate: Double
    let smoothing: Double
    let offset: Vector3
    /// Rows of the gain matrix: scale on the diagonal, misalignment off it.
    let rows: (Vector3, Vector3, Vector3)
    let noise: Double
    var random: SplitMix64
    var stage1 = Vector3.zero
    var stage2 = Vector3.zero
    var previous = Vector3.zero
    var primed = false
    /// Frames seen.
    var frames = 0
    /// The true time of the next output sample, s.
    var nextSampleTime: Double

    /// A front end drawn from `seed` for the nominal `rate`; `ideal` leaves out the rate error and the
    /// calibration errors (the virtual sensor's own pacing sets its rate).
    init(seed: UInt64, nominalRate: Double, rateError: Bool) {
        var random = SplitMix64(seed: seed ^ 0x7F4A_7C15_9E37_79B9)
        let error = random.uniform(0.01...0.02) * (random.chance(0.5) ? 1 : -1)
        rate = rateError ? nominalRate * (1 + error) : nominalRate
        let cutoff = rate * random.uniform(0.25...0.45)
        smoothing = 1 - MotionMath.exp(-2 * MotionMath.pi * cutoff * bodyFrameInterval)
        func signed(_ range: ClosedRange<Double>) -> Double {
            random.uniform(range) * (random.chance(0.5) ? 1 : -1)
        }
        offset = Vector3(signed(0.03...0.06), signed(0.03...0.06), signed(0.03...0.06))
        let scale = Vector3(1 + signed(0.02...0.03), 1 + signed(0.02...0.03), 1 + signed(0.02...0.03))
        rows = (
            Vector3(scale.x, signed(0.005...0.02), signed(0.005...0.02)),
            Vector3(signed(0.005...0.02), scale.y, signed(0.005...0.02)),
            Vector3(signed(0.005...0.02), signed(0.005...0.02), scale.z)
        )
        noise = random.uniform(0.002...0.005)
        nextSampleTime = random.unit() / rate
        self.random = random
    }

    /// Feeds one 1 kHz frame (the true specific force in the sensor frame, g); returns a reading when
    /// the part takes a sample within this frame, with its true time.
    mutating func push(_ frame: Vector3) -> (time: Double, reading: RawAcceleration)? {
        let time = Double(frames) * bodyFrameInterval
        frames += 1
        if !primed {
            stage1 = frame
            stage2 = frame
            previous = frame
            primed = true
        }
        stage1 += (frame - stage1) * smoothing
        stage2 += (stage1 - stage2) * smoothing
        defer { previous = stage2 }
        guard nextSampleTime <= time else { return nil }
        let fraction = 1 - (time - nextSampleTime) / bodyFrameInterval
        let value = previous + (stage2 - previous) * fraction
        let sampleTime = nextSampleTime
        nextSampleTime += 1 / rate
        return (sampleTime, reading(value))
    }

    mutating func reading(_ value: Vector3) -> RawAcceleration {
        func count(_ g: Double) -> Int16 {
            let counts = (g * SDUProfile.countsPerG).rounded()
            return Int16(min(max(counts, -32768), 32767))
        }
        let x = rows.0.dot(value) + offset.x + noise * random.gaussian()
        let y = rows.1.dot(value) + offset.y + noise * random.gaussian()
        let z = rows.2.dot(value) + offset.z + noise * random.gaussian()
        return RawAcceleration(x: count(x), y: count(y), z: count(z))
    }
}

/// A recording from the independent model: samples with their times as the host recovers them
/// (lost notifications leave gaps), and the ground truth.
public struct IndependentRecording: Sendable {
    /// The nominal sample rate, Hz.
    public var rate: Double
    /// The sensor's true output data rate, Hz (off by 1–2 % from `rate`).
    public var sensorRate: Double
    /// The samples that arrived, in g, at their recovered times, s.
    public var samples: [AccelerationSample]
    /// The true events, in time order, s.
    public var labels: [MotionLabel]
    /// Where the sensor was worn.
    public var mount: SensorMount
    /// Samples lost with their notifications.
    public var lostSamples: Int
}

/// Renders recordings of the independent motion model (`IndependentMotionGenerator` through
/// `SensorFrontEnd`).
public enum IndependentMotionModel {
    /// Samples per notification (a 20-byte ATT payload: 2-byte counter + 3 × 6 bytes).
    public static let samplesPerNotification = 3

    /// Renders `duration` seconds (rounded up to whole movements, so every label is complete) of
    /// `script` at the nominal `rate`.
    ///
    /// Sample times are the sensor's true sampling times as the host's `SampleClock` recovers them
    /// from the counter and arrival times, with a residual rate error of ±0.02 %. Notifications are
    /// lost in bursts (a two-state channel: 0.1–1 % chance to enter the bad state, 50 % to leave it).
    public static func render(
        script: MotionScript, seed: UInt64, rate: Double, duration: Double
    )
        -> IndependentRecording
    {
        var generator = IndependentMotionGenerator(script: script, seed: seed)
        var frontEnd = SensorFrontEnd(seed: seed, nominalRate: rate, rateError: true)
        var channel = SplitMix64(seed: seed ^ 0x2545_F491_4F6C_DD1D)
        let enterBad = channel.uniform(0.001...0.01)
        let clockError = 1 + channel.uniform(-0.0002...0.0002)
        var bad = false
        var samples: [AccelerationSample] = []
        samples.reserveCapacity(Int(duration * rate * 1.1))
        var pending: [AccelerationSample] = []
        var lost = 0
        var lastTime = 0.0
        while generator.time < duration || generator.indexInBlock < generator.block.count {
            let frame = generator.nextFrame()
            guard let (time, raw) = frontEnd.push(frame) else { continue }
            lastTime = time
            pending.append(AccelerationSample(t: time * clockError, raw: raw))
            if pending.count == samplesPerNotification {
                bad = bad ? !channel.chance(0.5) : channel.chance(enterBad)
                if bad {
                    lost += pending.count
                } else {
                    samples += pending
                }
                pending.removeAll(keepingCapacity: true)
            }
        }
        samples += pending
        let labels = generator.labels.filter { label in
            switch label {
            case .jump(_, let landing), .throw(_, let landing): landing < lastTime
            default: label.time < lastTime
            }
        }
        return IndependentRecording(
            rate: rate, sensorRate: frontEnd.rate, samples: samples, labels: labels, mount: generator.mount,
            lostSamples: lost)
    }
}

/// The independent model as an endless `AccelerationSource` for the virtual sensor (no labels, no
/// rate error: the virtual sensor paces the samples itself; calibration errors and noise stay).
public struct IndependentMotionSource: AccelerationSource {
    var generator: IndependentMotionGenerator
    var frontEnd: SensorFrontEnd

    /// Creates a source playing `script` from `seed` at `rate` samples per second.
    public init(script: MotionScript, seed: UInt64, rate: Double) {
        generator = IndependentMotionGenerator(script: script, seed: seed, recordsLabels: false)
        frontEnd = SensorFrontEnd(seed: seed, nominalRate: rate, rateError: false)
    }

    /// The next reading.
    public mutating func nextSample() -> RawAcceleration {
        while true {
            if let (_, reading) = frontEnd.push(generator.nextFrame()) { return reading }
        }
    }
}
