// SPDX-License-Identifier: GPL-2.0-or-later

import SeededRandomness
/// Movements between table-tennis drills that are not strokes: picking balls up from the floor and
/// loosening arm swings. Real wrists between drills (`rest/` of tt-wrist, development dates) show
/// 30–50 lobes of |a − g| above 1 g per minute, 40–60 ms long, peaking at 1.1–1.2 g in the median and
/// 2.8 g at most, and |a| within 1 ± 0.15 g only half of the time.
enum DrillBreakMotion {
    /// Bend down (the forearm turns by `bend` rad while the hand drops `drop` m), `grabs` quick grabs
    /// of a ball, and back up; `axis` is horizontal.
    case pickUp(bend: Double, drop: Double, grabs: Int, grab: Double, axis: Vector3)
    /// The arm swung as a pendulum from the shoulder: ±`amplitude` rad at `frequency` Hz for
    /// `cycles` cycles, the wrist `radius` m from the shoulder, in the plane of `forward` and up.
    case loosen(amplitude: Double, frequency: Double, cycles: Double, radius: Double, forward: Vector3)

    static func pickUp(_ random: inout SplitMix64) -> (DrillBreakMotion, Double) {
        let grabs = Int(random.uniform(1...4.99))
        let motion = DrillBreakMotion.pickUp(
            bend: random.uniform(0.8...1.5), drop: random.uniform(0.5...0.9), grabs: grabs,
            grab: random.uniform(0.2...0.6), axis: random.horizontal())
        return (motion, 2 * pickUpMove + 0.4 * Double(grabs) + 0.3)
    }

    static func loosen(_ random: inout SplitMix64) -> (DrillBreakMotion, Double) {
        let frequency = random.uniform(0.8...1.6)
        let cycles = random.uniform(2...5)
        let motion = DrillBreakMotion.loosen(
            amplitude: random.uniform(0.25...0.6), frequency: frequency, cycles: cycles,
            radius: random.uniform(0.55...0.7), forward: random.horizontal())
        return (motion, cycles / frequency + 0.2)
    }

    /// Seconds to bend down, and to come back up.
    static let pickUpMove = 0.9

    func point(at t: Double, duration: Double) -> MotionPoint {
        switch self {
        case .pickUp(let bend, let drop, let grabs, let grab, let axis):
            let move = Self.pickUpMove
            let downAt = 0.1
            let upAt = duration - move - 0.1
            let (pDown, _, aDown) = DrillStroke.minimumJerk((t - downAt) / move)
            let (pUp, _, aUp) = DrillStroke.minimumJerk((t - upAt) / move)
            let turn = bend * (pDown - pUp)
            let vertical = -drop * (aDown - aUp) / (move * move) / standardGravity
            var force = Vector3(0, 0, 1 + vertical)
            let grabbing = t - downAt - move
            if grabbing > 0 && t < upAt {
                let index = Int(grabbing / 0.4)
                if index < grabs {
                    force +=
                        axis.cross(.up)
                        * (grab * MotionMath.sin(2 * MotionMath.pi * (grabbing - 0.4 * Double(index)) / 0.4))
                }
            }
            return MotionPoint(force: force, rotation: Rotation3(axis: axis, angle: turn))
        case .loosen(let amplitude, let frequency, let cycles, let radius, let forward):
            let w = 2 * MotionMath.pi * frequency
            let length = cycles / frequency
            let u = t - 0.1
            guard u > 0 && u < length else { return MotionPoint() }
            // A smooth envelope (sin² over the whole bout) so the swing starts and ends at rest.
            let k = MotionMath.pi / length
            let root = MotionMath.sin(k * u)
            let e = root * root
            let de = k * MotionMath.sin(2 * k * u)
            let dde = 2 * k * k * MotionMath.cos(2 * k * u)
            let s = MotionMath.sin(w * u)
            let c = MotionMath.cos(w * u)
            let theta = amplitude * e * s
            let rate = amplitude * (de * s + e * w * c)
            let acceleration = amplitude * (dde * s + 2 * de * w * c - e * w * w * s)
            let sine = MotionMath.sin(theta)
            let cosine = MotionMath.cos(theta)
            let tangential = (forward * cosine + Vector3.up * sine) * (radius * acceleration)
            let centripetal = (forward * -sine + Vector3.up * cosine) * (radius * rate * rate)
            let side = forward.cross(.up).normalized
            return MotionPoint(
                force: .up + (tangential + centripetal) * (1 / standardGravity),
                rotation: Rotation3(axis: side, angle: -theta))
        }
    }
}

extension MotionGenerator {
    /// The break between two table-tennis drills: walking, picking balls up, loosening the arm,
    /// gestures, bouncing the ball and a few shadow swings.
    mutating func planDrillBreak() {
        for _ in 0..<Int(random.uniform(2...6.99)) {
            let pick = random.unit()
            if pick < 0.25 {
                planned.append(
                    .gait(
                        Gait(
                            random: &random, mount: mount, running: false, steps: Int(random.uniform(4...14)),
                            intensity: intensity)))
            } else if pick < 0.5 {
                let (motion, duration) = DrillBreakMotion.pickUp(&random)
                planned.append(.drillBreak(motion, duration: duration))
            } else if pick < 0.7 {
                let (motion, duration) = DrillBreakMotion.loosen(&random)
                planned.append(.drillBreak(motion, duration: duration))
            } else if pick < 0.9 {
                planned.append(distractor())
            } else {
                let shadow = TableTennisDrill(random: &random, intensity: intensity * random.uniform(0.6...0.9))
                for _ in 0..<Int(random.uniform(1...3.99)) {
                    planned.append(.stroke(shadow.stroke(random: &random, start: 0, last: true, ball: false)))
                }
            }
            planned.append(rest(0.3...1.5))
        }
    }
}
