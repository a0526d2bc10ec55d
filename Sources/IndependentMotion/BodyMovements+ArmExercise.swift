// SPDX-License-Identifier: GPL-2.0-or-later
import SeededRandomness
import VirtualSensor

extension BodyMovements {
    /// Shoulder exercises, built as joint-angle trajectories of the straight arm (shoulder to wrist
    /// 0.5–0.7 m) that the generator differentiates: arm circles whose speed builds up over a few
    /// turns (ω²R 0.5–1.8 g, so the fastest read near 0 g over the top), raises to 70–170° and back
    /// (minimum jerk, some lowered fast), and pendulum swings. No event happens in them.
    static func armExercise(_ random: inout SplitMix64) -> Block {
        let radius = random.uniform(0.5...0.7)
        var forward = heading(&random)
        if random.chance(0.5) { forward = forward.cross(.up).normalized }
        let pick = random.unit()
        var angles: [Double]
        if pick < 0.4 {
            let turns = random.uniform(3...8)
            let top = (random.uniform(0.5...1.8) * metresPerSecondSquaredPerG / radius).squareRoot()
            let sign = random.chance(0.5) ? 1.0 : -1.0
            let block = Block(duration: turns * 2 * MotionMath.pi / top + 1.5)
            angles = [Double](repeating: 0, count: block.count)
            var angle = 0.0
            for index in 0..<block.count {
                let t = Block.time(index)
                // Speed up over 0.75 s, keep, slow down over the last 0.75 s.
                let speed = top * Profiles.riseSquared(t / 0.75) * Profiles.riseSquared((block.duration - t) / 0.75)
                angle += sign * speed * bodyFrameInterval
                angles[index] = angle
            }
        } else if pick < 0.75 {
            let repetitions = Int(random.uniform(2...6))
            var points: [(Double, Double)] = [(0, 0)]
            var t = 0.2
            for _ in 0..<repetitions {
                // Peak angular speeds of 3–7.5 rad/s: 0.3–0.6 s per radian up, 0.25–0.6 down.
                let reach = random.uniform(1.2...3.0)
                let up = reach * random.uniform(0.3...0.6)
                let down = reach * random.uniform(0.25...0.6)
                points.append((t, 0))
                points.append((t + up, reach))
                points.append((t + up + random.uniform(0...0.3), reach))
                t = points.last!.0 + down
                points.append((t, 0))
                t += random.uniform(0.1...0.5)
            }
            let block = Block(duration: t + 0.2)
            angles = (0..<block.count).map { Profiles.knots(Block.time($0), points) }
        } else {
            let period = random.uniform(0.8...1.8)
            let amplitude = random.uniform(0.6...1.6)
            let block = Block(duration: period * Double(Int(random.uniform(3...8))))
            angles = (0..<block.count).map { index in
                let t = Block.time(index)
                let envelope = Profiles.riseSquared(t / period) * Profiles.riseSquared((block.duration - t) / period)
                return amplitude * envelope * MotionMath.sin(2 * MotionMath.pi * t / period)
            }
        }
        var block = Block(duration: Double(angles.count) * bodyFrameInterval)
        addArmSwing(&block, angles: angles, radius: radius, forward: forward)
        addSway(&block, &random)
        return block
    }
}
