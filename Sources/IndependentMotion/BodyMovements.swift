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

    // MARK: - Table tennis

    /// One stroke with its rally interval: back-swing (minimum jerk), forward swing along an arc whose
    /// angular speed rises as sin² and falls as cos² (peak speed at contact), forearm rotation with
    /// the swing, the ball's impact, follow-through and recovery; footwork in the rest of the interval.
    static func stroke(_ random: inout SplitMix64, interval: Double, vigour: Double) -> Block {
        let pick = random.unit()
        // Wrist speed at contact (m/s), the wrist's distance from the swing's axis (m) and the forward
        // swing's duration (s); the angular speed v/r and the arc swept follow. Peaks come out at
        // 2–4 g for pushes and 5–15 g for drives and smashes.
        let speed: Double
        let radius: Double
        var forward: Double
        var forehand = true
        if pick < 0.2 {  // push / short game
            speed = random.uniform(1.5...2.5)
            radius = random.uniform(0.25...0.35)
            forward = random.uniform(0.2...0.3)
            forehand = random.chance(0.5)
        } else if pick < 0.5 {  // backhand drive / topspin: forearm about the elbow
            speed = random.uniform(2.5...4.5)
            radius = random.uniform(0.25...0.35)
            forward = random.uniform(0.15...0.25)
            forehand = false
        } else if pick < 0.9 {  // forehand drive / topspin
            speed = random.uniform(3.5...6)
            radius = random.uniform(0.35...0.5)
            forward = random.uniform(0.18...0.3)
        } else {  // smash
            speed = random.uniform(5.5...7.5)
            radius = random.uniform(0.4...0.5)
            forward = random.uniform(0.15...0.22)
        }
        let peakSpeed = speed * vigour
        forward /= vigour
        let fall = forward * random.uniform(0.45...0.6)
        let rise = forward - fall
        let omega = peakSpeed / radius
        let sweep = omega * forward / 2
        var backDuration = random.uniform(0.3...0.5)
        let pause = random.uniform(0...0.05)
        var recovery = random.uniform(0.35...0.6)
        let lead = 0.05
        let fixed = lead + pause + rise + fall + 0.05
        if fixed + backDuration + recovery > interval {
            // A fast rally: shorter back-swing and recovery, but never abrupt ones.
            let ratio = max(interval - fixed, 0.4) / (backDuration + recovery)
            backDuration = max(backDuration * ratio, 0.2)
            recovery = max(recovery * ratio, 0.2)
        }
        // Back-swing and recovery are gentler than the swing, their peak tangential acceleration
        // (5.77·r·angle/T² for minimum jerk) ≤ 2 g: a shorter back-swing (a fast rally) is a smaller
        // one, and the recovery takes as long as it needs (the next stroke comes a little later).
        let gentle = 2 * metresPerSecondSquaredPerG / (5.77 * radius)
        let backAngle = min(sweep * random.uniform(0.4...0.7), gentle * backDuration * backDuration)
        recovery = max(recovery, ((sweep - backAngle) / gentle).squareRoot())
        let duration = max(interval, fixed + backDuration + recovery)
        var block = Block(duration: duration)
        let tilt = random.uniform(0.15...0.8)
        let yaw = random.uniform(0...(2 * MotionMath.pi))
        let normal =
            Vector3(
                MotionMath.sin(tilt) * MotionMath.cos(yaw), MotionMath.sin(tilt) * MotionMath.sin(yaw),
                MotionMath.cos(tilt))
            * (forehand ? 1 : -1)
        let (u, v) = planeBasis(normal: normal)
        let forward0 = lead + backDuration + pause
        let contact = forward0 + rise * random.uniform(0.9...1.03)
        let end = forward0 + rise + fall
        let pronation = random.uniform(0.3...1.4) * (forehand ? 1 : -1)
        var angles = [Double](repeating: 0, count: block.count)
        var turns = [Double](repeating: 0, count: block.count)
        for index in 0..<block.count {
            let t = Block.time(index)
            let angle: Double
            if t < lead {
                angle = 0
            } else if t < lead + backDuration {
                angle = -backAngle * Profiles.minimumJerk((t - lead) / backDuration)
            } else if t < forward0 {
                angle = -backAngle
            } else if t < forward0 + rise {
                let x = t - forward0
                angle =
                    -backAngle + omega * (x / 2 - rise / (2 * MotionMath.pi) * MotionMath.sin(MotionMath.pi * x / rise))
            } else if t < end {
                let x = t - forward0 - rise
                angle =
                    -backAngle + omega * rise / 2
                    + omega * (x / 2 + fall / (2 * MotionMath.pi) * MotionMath.sin(MotionMath.pi * x / fall))
            } else {
                angle = (-backAngle + sweep) * (1 - Profiles.minimumJerk((t - end) / recovery))
            }
            angles[index] = angle
            let swept = t < forward0 ? 0 : min(max((angle + backAngle) / sweep, 0), 1)
            turns[index] = t < end ? pronation * swept : pronation * (1 - Profiles.minimumJerk((t - end) / recovery))
            block.limb[index] =
                (u * MotionMath.cos(angle) + v * MotionMath.sin(angle) - u) * radius
        }
        addSpin(&block, angles: angles, axis: normal)
        for index in 1..<block.count {
            let radial = u * MotionMath.cos(angles[index]) + v * MotionMath.sin(angles[index])
            block.spin[index] += radial * ((turns[index] - turns[index - 1]) * bodyFrameRate)
        }
        let tangent =
            u * -MotionMath.sin(angles[block.frame(contact)]) + v * MotionMath.cos(angles[block.frame(contact)])
        addImpact(
            &block, at: contact, peak: random.uniform(0.3...1.5) * peakSpeed / 5, frequency: random.uniform(60...120),
            decay: random.uniform(0.004...0.008), direction: tangent * -1)
        addFootwork(&block, &random, from: end + recovery, to: duration)
        addSway(&block, &random)
        let peakG = (omega * omega * radius + peakSpeed * MotionMath.pi / (2 * fall)) / metresPerSecondSquaredPerG
        block.labels = [.hit(t: contact, intensityG: peakG)]
        return block
    }

    // MARK: - Gait

    /// A walking or running bout of `steps` foot contacts: per-foot vertical ground reaction force
    /// (walking: double hump, double support; running: one hump with a heel-strike transient and a
    /// flight phase), braking/propulsion and medio-lateral forces, and (on an arm) the pendulum arm
    /// swing at stride frequency. Every foot contact is labelled.
    static func gait(_ random: inout SplitMix64, steps: Int, running: Bool, arm: Bool, vigour: Double) -> Block {
        let cadence = running ? random.uniform(145...185) : random.uniform(95...125)
        let stepTime = 60 / cadence
        var contacts: [Double] = []
        var t = 0.4 + stepTime
        for _ in 0..<steps {
            contacts.append(t)
            t += stepTime * (1 + 0.02 * random.gaussian())
        }
        let stance = running ? stepTime * random.uniform(0.55...0.75) : 2 * stepTime * random.uniform(0.58...0.64)
        var block = Block(duration: t + stance + 0.4)
        let forward = heading(&random)
        let side = Vector3.up.cross(forward)
        let heelPeak = running ? (random.chance(0.6) ? random.uniform(0.5...1.5) : 0) : random.uniform(0.05...0.3)
        let heelWidth = random.uniform(0.015...0.035)
        let braking = running ? random.uniform(0.25...0.5) : random.uniform(0.08...0.2)
        let lateral = running ? random.uniform(0.05...0.12) : random.uniform(0.03...0.08)
        let humpDip = random.uniform(0.3...0.45)
        var vertical = [Double](repeating: 0, count: block.count)
        for (k, contact) in contacts.enumerated() {
            let first = block.frame(contact)
            let last = block.frame(contact + stance)
            let sideSign: Double = k % 2 == 0 ? 1 : -1
            for index in first..<last {
                let s = (Block.time(index) - contact) / stance
                let force =
                    running
                    ? Profiles.halfSine(s) : Profiles.halfSine(s) + humpDip * MotionMath.sin(3 * MotionMath.pi * s)
                vertical[index] += force
                block.trunk[index] +=
                    forward * (-braking * MotionMath.sin(2 * MotionMath.pi * s)) + side
                    * (sideSign * lateral * Profiles.halfSine(s))
            }
        }
        // Scale so the force averages one body weight over the steady strides.
        let from = block.frame(contacts[min(1, contacts.count - 1)])
        let to = block.frame(contacts[contacts.count - 1])
        var mean = 1.0
        if to > from + 10 {
            mean = vertical[from..<to].reduce(0, +) / Double(to - from)
        }
        // The first contact (from standing) is already a full one: the fade-in is the step before it.
        let fadeIn = (contacts[0] - stepTime, contacts[0])
        let fadeOut = (contacts[contacts.count - 1], contacts[contacts.count - 1] + stance)
        for index in 0..<block.count {
            let time = Block.time(index)
            let w =
                MotionMath.smoothstep(fadeIn.0, fadeIn.1, time)
                * (1 - MotionMath.smoothstep(fadeOut.0, fadeOut.1, time))
            let force = vertical[index] / mean
            block.trunk[index] = block.trunk[index] * w
            block.trunk[index].z += w * (force - 1) * vigour
        }
        for contact in contacts where heelPeak > 0 {
            for index in block.frame(contact)..<block.frame(contact + heelWidth) {
                block.trunk[index].z += heelPeak * Profiles.halfSine((Block.time(index) - contact) / heelWidth)
            }
        }
        if arm {
            let amplitude = (running ? random.uniform(0.3...0.5) : random.uniform(0.15...0.35)) * vigour
            let radius = running ? random.uniform(0.3...0.4) : random.uniform(0.55...0.7)
            let phase = random.uniform(-0.3...0.3)
            let angles = (0..<block.count).map { index -> Double in
                let time = Block.time(index)
                let w =
                    MotionMath.smoothstep(contacts[0] - 0.3, contacts[0] + 2 * stepTime, time)
                    * (1 - MotionMath.smoothstep(fadeOut.0 - stepTime, fadeOut.1, time))
                return amplitude * w * MotionMath.sin(MotionMath.pi * (time - contacts[0]) / stepTime + phase)
            }
            addArmSwing(&block, angles: angles, radius: radius, forward: forward)
        }
        addSway(&block, &random)
        block.labels = contacts.map { .step(t: $0) }
        return block
    }

    // MARK: - Jumps

    /// The kinds of jump series.
    enum JumpSeries {
        case countermovement
        case rebound
        case rope
    }

    /// Vertical ground reaction force (BW) of a countermovement push ending at takeoff, and its
    /// takeoff time: stand, unweight, brake, propel, and drop to zero with a finite slope. The
    /// propulsion level is solved so the net impulse gives exactly the takeoff speed of `flight`.
    static func push(_ random: inout SplitMix64, flight: Double, shallow: Bool) -> (force: [Double], takeoff: Double) {
        let depth = shallow ? random.uniform(0.15...0.35) : random.uniform(0.4...0.75)
        var a = shallow ? random.uniform(0.08...0.14) : random.uniform(0.12...0.2)
        var b = a + (shallow ? random.uniform(0.08...0.12) : random.uniform(0.12...0.2))
        var c = b + random.uniform(0.06...0.12)
        var d = c + random.uniform(0.08...0.16)
        var end = d + random.uniform(0.07...0.12)
        let second = random.uniform(0.85...1.1)
        let needed = flight / 2  // v₀/g in BW·s
        func force(_ t: Double, _ p: Double) -> Double {
            if t < b { return Profiles.knots(t, [(0, 1), (a, 1 - depth), (b, 1)]) }
            if t < d { return Profiles.knots(t, [(b, 1), (c, p), (d, p * second)]) }
            if t < end { return p * second * MotionMath.cos(MotionMath.pi / 2 * (t - d) / (end - d)) }
            return 0
        }
        func impulse(_ p: Double) -> Double {
            var sum = 0.0
            var t = 0.0
            while t < end {
                sum += (force(t, p) - 1) * bodyFrameInterval
                t += bodyFrameInterval
            }
            return sum
        }
        var level = 2.0
        for _ in 0..<12 {
            let i0 = impulse(0)
            level = (needed - i0) / (impulse(1) - i0)
            if level > 3.2 {
                (a, b, c, d, end) = (a, b, c * 1.12 + 0.01, d * 1.15 + 0.01, end * 1.15 + 0.01)
            } else if level < 1.4 && end - d > 0.05 {
                (c, d, end) = (b + (c - b) * 0.85, b + (d - b) * 0.85, b + (end - b) * 0.85)
            } else {
                break
            }
        }
        let count = Int((end * bodyFrameRate).rounded(.up))
        return ((0..<count).map { force(Double($0) * bodyFrameInterval, level) }, end)
    }

    /// Vertical force (BW) of a landing from `flight` s: the forefoot peak F1 and (hard landings) the
    /// heel peak F2 (soft landings: one 1.5–2.5 BW peak 50–90 ms after contact), the body weight taken up, and an absorbing hump sized so the impulse stops the
    /// fall exactly.
    static func landing(_ random: inout SplitMix64, flight: Double, soft: Bool) -> [Double] {
        let absorb = soft ? random.uniform(0.3...0.5) : random.uniform(0.2...0.35)
        var f1 = soft ? random.uniform(1.5...2.5) : random.uniform(1.5...3)
        let w1 = soft ? random.uniform(0.1...0.18) : random.uniform(0.025...0.045)
        var f2 = soft ? 0 : random.uniform(2...4.5)
        let d2 = random.uniform(0.02...0.04)
        let w2 = random.uniform(0.03...0.06)
        let count = Int(((absorb + 0.15) * bodyFrameRate).rounded())
        let needed = flight / 2
        func peaks(_ t: Double) -> Double { f1 * Profiles.halfSine(t / w1) + f2 * Profiles.halfSine((t - d2) / w2) }
        func support(_ t: Double) -> Double { Profiles.riseSquared(t / absorb) - 1 }
        func hump(_ t: Double) -> Double { Profiles.halfSine((t - 0.02) / (absorb - 0.02)) }
        var sumPeaks = 0.0
        var sumSupport = 0.0
        var sumHump = 0.0
        for index in 0..<count {
            let t = Double(index) * bodyFrameInterval
            sumPeaks += peaks(t) * bodyFrameInterval
            sumSupport += support(t) * bodyFrameInterval
            sumHump += hump(t) * bodyFrameInterval
        }
        var k = (needed - sumPeaks - sumSupport) / sumHump
        if k < 0 {
            // The peaks alone would stop more than the fall: scale them down.
            let scale = max((needed - sumSupport) / sumPeaks, 0)
            f1 *= scale
            f2 *= scale
            k = 0
        }
        return (0..<count).map { index in
            let t = Double(index) * bodyFrameInterval
            return peaks(t) + support(t) + 1 + k * hump(t)
        }
    }

    /// A series of jumps, every flight labelled (takeoff: the force reaches zero; landing: it leaves
    /// zero). Countermovement jumps (flights 0.32–0.62 s, arms swung forward and up through takeoff
    /// on a wrist, lowered a little in flight), rebound hops (contacts 0.15–0.3 s) and rope skipping
    /// (contacts 0.12–0.25 s, flights 0.2–0.32 s, the wrists circling 1–2 cm once per jump).
    static func jumps(_ random: inout SplitMix64, series: JumpSeries, count: Int, arm: Bool) -> Block {
        var flights: [Double] = []
        var contacts: [Double] = []
        switch series {
        case .countermovement:
            flights = [random.uniform(0.32...0.62)]
        case .rebound:
            let base = random.uniform(0.25...0.45)
            let contact = random.uniform(0.15...0.3)
            for _ in 0..<count {
                flights.append(base * random.uniform(0.92...1.08))
                contacts.append(contact * random.uniform(0.9...1.1))
            }
        case .rope:
            let base = random.uniform(0.2...0.32)
            let contact = random.uniform(0.12...0.25)
            for _ in 0..<count {
                flights.append(base * random.uniform(0.93...1.07))
                contacts.append(contact * random.uniform(0.92...1.08))
            }
        }
        let lead = random.uniform(0.3...0.6)
        let (pushForce, pushEnd) = push(&random, flight: flights[0], shallow: series != .countermovement)
        let soft = series == .rope || random.chance(0.35)
        let landingForce = landing(&random, flight: flights[flights.count - 1], soft: soft)
        var total = lead + pushEnd
        for (k, flight) in flights.enumerated() {
            total += flight
            if k + 1 < flights.count { total += contacts[k] }
        }
        let recovery = random.uniform(0.6...1.1)
        var block = Block(duration: total + Double(landingForce.count) * bodyFrameInterval + recovery)
        let forward = heading(&random)
        var vertical = [Double](repeating: 1, count: block.count)
        var index = block.frame(lead)
        for value in pushForce where index < block.count {
            vertical[index] = value
            index += 1
        }
        var takeoffs: [Double] = []
        var landings: [Double] = []
        var t = lead + pushEnd
        for (k, flight) in flights.enumerated() {
            takeoffs.append(t)
            for i in block.frame(t)..<block.frame(t + flight) { vertical[i] = 0 }
            t += flight
            landings.append(t)
            if k + 1 < flights.count {
                // A contact between flights: a half-sine (and a brief forefoot spike) whose impulse
                // turns the landing speed into the next takeoff speed.
                let contact = contacts[k]
                let spike = series == .rope ? 0 : random.uniform(0.3...1.2)
                let spikeWidth = 0.025
                let needed = (flight + flights[k + 1]) / 2 + contact
                let level = (needed - spike * spikeWidth * 2 / MotionMath.pi) / (contact * 2 / MotionMath.pi)
                for i in block.frame(t)..<block.frame(t + contact) {
                    let s = Block.time(i) - t
                    vertical[i] = level * Profiles.halfSine(s / contact) + spike * Profiles.halfSine(s / spikeWidth)
                }
                t += contact
            }
        }
        index = block.frame(t)
        for value in landingForce where index < block.count {
            vertical[index] = value
            index += 1
        }
        let drift = forward * random.uniform(0...0.12)
        addSway(&block, &random)
        for i in 0..<block.count {
            // Sway needs the ground: in flight the trunk falls freely.
            let sway = vertical[i] > 0 ? block.trunk[i] : .zero
            block.trunk[i] = Vector3(0, 0, vertical[i] - 1) + drift * (vertical[i] > 0 ? (vertical[i] - 1) : 0) + sway
        }
        if arm {
            switch series {
            case .countermovement:
                addJumpArmSwing(
                    &block, &random, lead: lead, takeoff: takeoffs[0], landing: landings[0], forward: forward)
            case .rebound:
                if random.chance(0.3) {
                    addArmPumping(&block, &random, takeoffs: takeoffs, landings: landings, forward: forward)
                }
            case .rope:
                addRopeTurning(&block, &random, takeoffs: takeoffs, landings: landings, forward: forward)
            }
        }
        block.labels = zip(takeoffs, landings).map { .jump(takeoff: $0, landing: $1) }
        return block
    }

    /// Arms swung back in the countermovement, forward and up through the push (peaking around
    /// 10 rad/s, stopping near takeoff), lowered 0–20° in flight, and down after landing.
    static func addJumpArmSwing(
        _ block: inout Block, _ random: inout SplitMix64, lead: Double, takeoff: Double, landing: Double,
        forward: Vector3
    ) {
        let back = random.uniform(0.5...0.9)
        let up = random.uniform(1.6...2.6)
        let inFlight = random.uniform(0...0.35)
        let swingStart = lead + (takeoff - lead) * random.uniform(0.35...0.5)
        let swingEnd = takeoff + random.uniform(-0.03...0.06)
        let settle = random.uniform(0.5...0.8)
        let angles = (0..<block.count).map { index -> Double in
            let t = Block.time(index)
            if t < lead { return 0 }
            if t < swingStart { return -back * Profiles.minimumJerk((t - lead) / (swingStart - lead)) }
            if t < swingEnd {
                return -back + (up + back) * Profiles.minimumJerk((t - swingStart) / (swingEnd - swingStart))
            }
            if t < landing { return up - inFlight * Profiles.minimumJerk((t - swingEnd) / (landing - swingEnd)) }
            return (up - inFlight) * (1 - Profiles.minimumJerk((t - landing) / settle))
        }
        addArmSwing(&block, angles: angles, radius: random.uniform(0.55...0.7), forward: forward)
    }

    /// Arms (elbows bent, wrist 0.3–0.4 m from the shoulder) pumping once per hop (±0.1–0.2 rad).
    static func addArmPumping(
        _ block: inout Block, _ random: inout SplitMix64, takeoffs: [Double], landings: [Double], forward: Vector3
    ) {
        let amplitude = random.uniform(0.1...0.2)
        let radius = random.uniform(0.3...0.4)
        let period = (landings[landings.count - 1] - takeoffs[0]) / Double(takeoffs.count)
        let start = takeoffs[0] - 0.3
        let end = landings[landings.count - 1] + 0.3
        let angles = (0..<block.count).map { index -> Double in
            let t = Block.time(index)
            let w = MotionMath.smoothstep(start - 0.3, start, t) * (1 - MotionMath.smoothstep(end, end + 0.3, t))
            return amplitude * w * MotionMath.sin(2 * MotionMath.pi * (t - start) / period)
        }
        addArmSwing(&block, angles: angles, radius: radius, forward: forward)
    }

    /// Wrists turning a rope: a circle of 1–2.5 cm in the sagittal plane, one turn per jump (ω²r = 0.1–0.7 g).
    static func addRopeTurning(
        _ block: inout Block, _ random: inout SplitMix64, takeoffs: [Double], landings: [Double], forward: Vector3
    ) {
        let radius = random.uniform(0.01...0.02)
        let period = (landings[landings.count - 1] - takeoffs[0]) / Double(max(takeoffs.count - 1, 1))
        let start = takeoffs[0] - 0.6
        let end = landings[landings.count - 1] + 0.3
        let w = 2 * MotionMath.pi / period
        var angles = [Double](repeating: 0, count: block.count)
        for index in 0..<block.count {
            let t = Block.time(index)
            let window = MotionMath.smoothstep(start, start + 0.4, t) * (1 - MotionMath.smoothstep(end, end + 0.3, t))
            let phase = w * (t - start)
            block.limb[index] +=
                (forward * MotionMath.cos(phase) + Vector3.up * MotionMath.sin(phase)) * (radius * window)
            angles[index] = phase * window
        }
        addSpin(&block, angles: angles, axis: forward.cross(.up).normalized)
    }

    // MARK: - Throws

    /// The hand dips, pushes up (acceleration A·sin(πx/T)) and decelerates along the same sine: the
    /// sensor leaves the palm when the hand decelerates faster than g (the contact force reaches zero). It flies
    /// freely with a spin of 0.5–6 rad/s and is caught 0.15 m below to 0.05 m above the release
    /// point by a contact force that takes up its weight and stops it within 0.08–0.25 s.
    static func throwAndCatch(_ random: inout SplitMix64) -> Block {
        let g = metresPerSecondSquaredPerG
        let lead = random.uniform(0.3...0.6)
        let dipTime = random.uniform(0.25...0.4)
        // A preparatory dip gentler than gravity (≤ 0.6 g: 5.77·depth/T² for minimum jerk).
        let dipDepth = min(random.uniform(0.05...0.15), 0.6 * g * dipTime * dipTime / 5.77)
        let target = random.uniform(1.5...4.8)
        // The hand's upward acceleration is A·sin(πx/T): it pushes for T, then decelerates smoothly;
        // the sensor leaves the palm where A·sin(πx/T) = −g (needs A > g, so T ≤ v·π/3g).
        let pushTime = min(random.uniform(0.12...0.25), target * MotionMath.pi / (3 * g))
        var amplitude = target * MotionMath.pi / (2 * pushTime)
        for _ in 0..<30 {
            let c = max(1 - (g / amplitude) * (g / amplitude), 0).squareRoot()
            amplitude = target * MotionMath.pi / (pushTime * (1 + c))
        }
        var low = pushTime
        var high = 1.5 * pushTime
        for _ in 0..<60 {
            let mid = (low + high) / 2
            if amplitude * MotionMath.sin(MotionMath.pi * mid / pushTime) > -g { low = mid } else { high = mid }
        }
        let releaseAfter = (low + high) / 2
        let releaseSpeed =
            amplitude * pushTime / MotionMath.pi * (1 - MotionMath.cos(MotionMath.pi * releaseAfter / pushTime))
        let forwardSpeed = 2 * amplitude * pushTime / MotionMath.pi
        let catchHeight = random.uniform(-0.15...0.05)
        let flight = (releaseSpeed + (releaseSpeed * releaseSpeed - 2 * g * catchHeight).squareRoot()) / g
        let catchSpeed = g * flight - releaseSpeed
        let catchTime = random.uniform(0.08...0.25)
        let after = random.uniform(0.6...1)
        let release = lead + dipTime + releaseAfter
        let caught = release + flight
        var block = Block(duration: caught + catchTime + after)
        let spinAxis = random.direction()
        let spinRate = random.uniform(0.5...6)
        let forward = heading(&random) * random.uniform(0...0.15)
        for index in 0..<block.count {
            let t = Block.time(index)
            var accel = 0.0  // the hand's (and sensor's) vertical acceleration, m/s²
            if t >= lead && t < lead + dipTime {
                let u = (t - lead) / dipTime
                accel = -dipDepth / (dipTime * dipTime) * (60 * u - 180 * u * u + 120 * u * u * u)
            } else if t >= lead + dipTime && t < release {
                accel = amplitude * MotionMath.sin(MotionMath.pi * (t - lead - dipTime) / pushTime)
            }
            if t < release {
                // The push also carries the hand forward; the deceleration to release is vertical, so
                // the contact force reaches zero on every axis at once.
                let ahead = accel > 0 && t < lead + dipTime + pushTime ? forward * (accel / g) : .zero
                block.direct[index] = Vector3.up * (accel / g) + ahead
                let spinUp = MotionMath.smoothstep(release - 0.05, release, t)
                block.spin[index] = spinAxis * (spinRate * spinUp)
            } else if t < caught {
                block.direct[index] = Vector3(0, 0, -1)
                block.spin[index] = spinAxis * spinRate
                block.airborne[index] = true
            } else if t < caught + catchTime {
                block.spin[index] = spinAxis * (spinRate * (1 - MotionMath.smoothstep(caught, caught + 0.03, t)))
            }
        }
        // The catch: contact force (BW of the sensor) = weight taken up + a half-sine stopping it.
        let needed = catchSpeed / g
        let level = (needed + catchTime / 2) / (catchTime * 2 / MotionMath.pi)
        // The forward speed the push gave (2AT/π·|forward|) is taken up by the same half-sine.
        let horizontal = forwardSpeed / g / (catchTime * 2 / MotionMath.pi)
        for index in block.frame(caught)..<block.frame(caught + catchTime) {
            let s = (Block.time(index) - caught) / catchTime
            let force = MotionMath.smoothstep(0, 1, s) + level * Profiles.halfSine(s)
            block.direct[index] = Vector3.up * (force - 1) + forward * (-horizontal * Profiles.halfSine(s))
        }
        // The hand settles back down afterwards.
        let lower = random.uniform(0.05...0.15)
        let settle = caught + catchTime
        for index in block.frame(settle)..<block.count {
            let t = Block.time(index) - settle
            let duration = after - 0.1
            guard t < duration else { break }
            let u = t / duration
            block.direct[index].z += -lower / (duration * duration) * (60 * u - 180 * u * u + 120 * u * u * u) / g
        }
        block.labels = [.throw(release: release, catch: caught)]
        return block
    }

    /// A small drop: the hand opens (the contact force falls to zero in 10–25 ms), the sensor falls
    /// for 0.04–0.13 s and lands in the other hand or on a table (an impact stopping it in 20–60 ms).
    static func smallDrop(_ random: inout SplitMix64) -> Block {
        let lead = random.uniform(0.2...0.4)
        let open = random.uniform(0.01...0.025)
        let fall = random.uniform(0.04...0.13)
        let stop = random.uniform(0.02...0.06)
        var block = Block(duration: lead + open + fall + stop + 0.5)
        let speed = metresPerSecondSquaredPerG * (fall + open / 2)
        let level = (speed / metresPerSecondSquaredPerG + stop / 2) / (stop * 2 / MotionMath.pi)
        for index in 0..<block.count {
            let t = Block.time(index)
            var force = 1.0
            if t >= lead && t < lead + open {
                force = 1 - (t - lead) / open
            } else if t >= lead + open && t < lead + open + fall {
                force = 0
                block.airborne[index] = true
            } else if t >= lead + open + fall && t < lead + open + fall + stop {
                let s = (t - lead - open - fall) / stop
                force = MotionMath.smoothstep(0, 1, s) + level * Profiles.halfSine(s)
            }
            block.direct[index] = Vector3(0, 0, force - 1)
        }
        return block
    }

    /// A throwing motion that keeps the sensor gripped: the hand moves up 0.1–0.25 m and back.
    static func feintThrow(_ random: inout SplitMix64) -> Block {
        let up = random.uniform(0.5...0.7)
        let down = random.uniform(0.5...0.7)
        // Up to 0.25 m in ≥ 0.5 s: the hand never pulls the sensor down faster than ~0.6 g (a hand
        // that did would put the gripped sensor in free fall: no accelerometer tells that from a throw).
        let height = random.uniform(0.1...0.25)
        var block = Block(duration: up + down + 0.3)
        for index in 0..<block.count {
            let t = Block.time(index)
            let s = t < up ? Profiles.minimumJerk(t / up) : 1 - Profiles.minimumJerk((t - up) / down)
            block.limb[index] = Vector3(0, 0, height * s)
        }
        return block
    }
}
