// SPDX-License-Identifier: GPL-2.0-or-later
import SeededRandomness
import VirtualSensor

/// The independent model's movements, each built from the physics of the body rather than from
/// acceleration shapes: the trunk from vertical ground reaction force profiles (Newton: a = F/m − g),
/// the arm from joint-angle trajectories through segment lengths (differentiated twice by the
/// generator), a hand-held sensor from the hand's push and the contact force that holds it.
///
/// Figures (ranges drawn per movement) follow published biomechanics: countermovement jumps have an
/// unweighting phase below body weight, then braking and propulsion at about 2–2.5 body weights
/// (BW) ending in a steep drop to zero at takeoff (McMahon et al., Strength Cond J 2018); landings
/// show a forefoot peak F1 and a heel peak F2 of 3–6 BW within 30–80 ms (Rojano Ortega et al., JSSM
/// 2010); walking has the double-humped vertical force of 1.1–1.2 BW at 95–125 steps/min, running a
/// single 2–3 BW hump with a flight phase at 145–185 steps/min; table-tennis strokes swing the wrist
/// at 2–9 m/s along an arc in 0.15–0.3 s (Bańkosz and Winiarski, JSSM 2018: racket speed tied to
/// shoulder internal rotation and forearm rotation).
enum BodyMovements {
    typealias Block = BodyMotionBlock

    // MARK: - Helpers

    /// Adds a sinusoidal limb displacement of acceleration amplitude `accelerationG` (g) at
    /// `frequency` Hz along `direction`.
    static func addLimbOscillation(
        _ block: inout Block, accelerationG: Double, frequency: Double, direction: Vector3, phase: Double
    ) {
        let w = 2 * MotionMath.pi * frequency
        let amplitude = accelerationG * metresPerSecondSquaredPerG / (w * w)
        for index in 0..<block.count {
            block.limb[index] += direction * (amplitude * MotionMath.sin(w * Block.time(index) + phase))
        }
    }

    /// Postural sway of the trunk: two slow sinusoids of a few mg.
    static func addSway(_ block: inout Block, _ random: inout SplitMix64) {
        for _ in 0..<2 {
            let direction = random.direction()
            let amplitude = random.uniform(0.002...0.01)
            let w = 2 * MotionMath.pi * random.uniform(0.2...2)
            let phase = random.uniform(0...6.28)
            for index in 0..<block.count {
                block.trunk[index] += direction * (amplitude * MotionMath.sin(w * Block.time(index) + phase))
            }
        }
    }

    /// Fills `spin` with the rotation rate of a limb swinging by `angles` (rad per frame) about `axis`.
    static func addSpin(_ block: inout Block, angles: [Double], axis: Vector3) {
        for index in 1..<block.count {
            block.spin[index] += axis * ((angles[index] - angles[index - 1]) * bodyFrameRate)
        }
    }

    /// The arm hanging from the shoulder, swung by `angles` (0 hanging, positive forward) in the plane
    /// of `forward` and up, with the wrist `radius` m from the shoulder: displacement and spin.
    static func addArmSwing(_ block: inout Block, angles: [Double], radius: Double, forward: Vector3) {
        for index in 0..<block.count {
            let a = angles[index]
            block.limb[index] += (forward * MotionMath.sin(a) + Vector3.up * (1 - MotionMath.cos(a))) * radius
        }
        addSpin(&block, angles: angles, axis: forward.cross(.up).normalized)
    }

    /// A damped oscillation (an impact ringing through hand and strap) of `peak` g along `direction`.
    static func addImpact(
        _ block: inout Block, at t: Double, peak: Double, frequency: Double, decay: Double, direction: Vector3
    ) {
        let start = block.frame(t)
        let w = 2 * MotionMath.pi * frequency
        var index = start
        while index < block.count && Block.time(index - start) < 6 * decay {
            let u = Block.time(index - start)
            block.direct[index] += direction * (peak * MotionMath.exp(-u / decay) * MotionMath.sin(w * u))
            index += 1
        }
    }

    /// A heading: a horizontal unit vector.
    static func heading(_ random: inout SplitMix64) -> Vector3 { random.horizontal() }

    // MARK: - Rest and distractors

    /// Standing or sitting still: postural sway and, on an arm, physiological tremor (8–12 Hz).
    static func quiet(_ random: inout SplitMix64, duration: Double) -> Block {
        var block = Block(duration: duration)
        addSway(&block, &random)
        addLimbOscillation(
            &block, accelerationG: random.uniform(0.002...0.012), frequency: random.uniform(8...12),
            direction: random.direction(), phase: random.uniform(0...6.28))
        return block
    }

    /// A gesture: the hand moves 0.1–0.35 m to a point and back (minimum jerk), turning the forearm.
    static func gesture(_ random: inout SplitMix64) -> Block {
        let out = random.uniform(0.5...1)
        let back = random.uniform(0.5...1)
        let hold = random.uniform(0...0.4)
        var block = Block(duration: out + hold + back + 0.2)
        let target = random.direction() * random.uniform(0.1...0.35)
        let axis = random.direction()
        let turn = random.uniform(-1.2...1.2)
        var angles = [Double](repeating: 0, count: block.count)
        for index in 0..<block.count {
            let t = Block.time(index)
            let s = t < out + hold ? Profiles.minimumJerk(t / out) : 1 - Profiles.minimumJerk((t - out - hold) / back)
            block.limb[index] = target * s
            angles[index] = turn * s
        }
        addSpin(&block, angles: angles, axis: axis)
        addSway(&block, &random)
        return block
    }

    /// Tapping the sensor or the racket on a table: the hand lowers 2–5 cm, hits (1–4 g ringing at
    /// 30–70 Hz for a few ms) and lifts again.
    static func tap(_ random: inout SplitMix64) -> Block {
        var block = Block(duration: random.uniform(0.5...0.9))
        let drop = random.uniform(0.02...0.05)
        let down = random.uniform(0.1...0.2)
        for index in 0..<block.count {
            let t = Block.time(index)
            let s = t < down ? Profiles.minimumJerk(t / down) : 1 - Profiles.minimumJerk((t - down) / 0.25)
            block.limb[index] = Vector3(0, 0, -drop * s)
        }
        let direction = (random.direction() + Vector3(0, 0, 1.5)).normalized
        addImpact(
            &block, at: down, peak: random.uniform(1...4), frequency: random.uniform(30...70),
            decay: random.uniform(0.003...0.008), direction: direction)
        return block
    }

    /// Bouncing the ball on the racket: the hand rises and falls 1–3 cm with the ball's period
    /// (0.4–0.6 s for 20–45 cm bounces) and each bounce rings 0.3–1.2 g.
    static func ballBouncing(_ random: inout SplitMix64) -> Block {
        var block = Block(duration: random.uniform(2...5))
        let period = random.uniform(0.4...0.6)
        let amplitude = random.uniform(0.01...0.03)
        let direction = (Vector3.up + random.direction() * 0.2).normalized
        for index in 0..<block.count {
            let t = Block.time(index)
            let window = Profiles.minimumJerk(t / 0.5) * Profiles.minimumJerk((block.duration - t) / 0.5)
            block.limb[index] = direction * (amplitude * window * MotionMath.sin(2 * MotionMath.pi * t / period))
        }
        var t = 0.5 + period / 4
        while t < block.duration - 0.5 {
            addImpact(
                &block, at: t, peak: random.uniform(0.3...1.2), frequency: random.uniform(40...80), decay: 0.005,
                direction: direction)
            t += period
        }
        addSway(&block, &random)
        return block
    }

    /// A squat: the trunk lowers 0.25–0.45 m and rises (minimum jerk), arms forward.
    static func squat(_ random: inout SplitMix64, arms: Bool) -> Block {
        let down = random.uniform(0.7...1)
        let up = random.uniform(0.7...1)
        var block = Block(duration: down + up + 0.3)
        let depth = random.uniform(0.25...0.45)
        for index in 0..<block.count {
            let t = Block.time(index)
            let (d, duration, u) = t < down ? (-depth, down, t / down) : (depth, up, (t - down) / up)
            // d²/dt² of d·minimumJerk(u): d/T²·(60u − 180u² + 120u³).
            let accel = u >= 0 && u <= 1 ? d / (duration * duration) * (60 * u - 180 * u * u + 120 * u * u * u) : 0
            block.trunk[index] = Vector3(0, 0, accel / metresPerSecondSquaredPerG)
        }
        if arms {
            let forward = heading(&random)
            let angles = (0..<block.count).map { index -> Double in
                let t = Block.time(index)
                return t < down
                    ? 1.4 * Profiles.minimumJerk(t / down) : 1.4 * (1 - Profiles.minimumJerk((t - down) / up))
            }
            addArmSwing(&block, angles: angles, radius: 0.6, forward: forward)
        }
        return block
    }

    /// Footwork between strokes: lateral shuffles of the trunk (0.2–0.5 g, 0.15–0.25 s each way).
    static func addFootwork(_ block: inout Block, _ random: inout SplitMix64, from: Double, to: Double) {
        var t = from + random.uniform(0...0.1)
        while t + 0.5 < to && random.chance(0.6) {
            let direction = random.horizontal()
            let peak = random.uniform(0.2...0.5)
            let width = random.uniform(0.15...0.25)
            for index in block.frame(t)..<block.frame(t + 2 * width) {
                let s = (Block.time(index) - t) / width
                let value = s < 1 ? Profiles.halfSine(s) : -Profiles.halfSine(s - 1)
                block.trunk[index] += direction * (peak * value)
            }
            t += 2 * width + random.uniform(0.05...0.2)
        }
    }
}
