// SPDX-License-Identifier: GPL-2.0-or-later
import SeededRandomness
import VirtualSensor

/// Table tennis: strokes along an arc, with footwork between them.
extension BodyMovements {
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
}
