// SPDX-License-Identifier: GPL-2.0-or-later

import SeededRandomness
/// Shoulder exercises and arm movements that are not sport events: arm circles, raises and
/// lowerings, pendulum swings and forearm rotations, with the sensor on the wrist or in the hand.
///
/// The arm is a rigid lever of `radius` m turning about the shoulder in the plane of `forward` and
/// up (angle 0 hanging down): the wrist's acceleration is R·θ̈ along the tangent and R·θ̇² towards
/// the shoulder. Arm circles at ω²R ≈ g make the wrist read near 0 g over the top of every circle
/// and 2 g at the bottom, fast raises decelerate the wrist at up to a g at their top: the dips that
/// a free-fall detector must not take for a flight. No jump, throw, hit or step happens here.
struct ArmExercise {
    enum Kind: CaseIterable {
        /// Continuous circles, forwards or backwards.
        case circles
        /// Raising the straight arm to `reach` and lowering it again, repeatedly.
        case raises
        /// Pendulum swings of the straight arm about hanging.
        case swings
        /// Forearm rotations with the elbow bent (internal/external rotation): a short lever.
        case rotations
    }

    var kind: Kind
    var duration: Double
    var radius: Double
    var forward: Vector3
    var lateral: Vector3
    /// Circles: angular speed, rad/s (signed). Raises: top angle, rad. Swings, rotations: amplitude, rad.
    var reach: Double
    /// Raises: time up (and down), s. Swings, rotations: period, s.
    var period: Double
    /// Raises: time to lower, s (a fast lowering decelerates hard at the bottom).
    var lowering: Double
    /// Ramp in and out of circles, s.
    let ramp = 1.0

    init(random: inout SplitMix64, intensity: Double) {
        kind = Kind.allCases[min(Int(random.unit() * 4), 3)]
        forward = random.horizontal()
        if random.chance(0.5) { forward = forward.cross(.up).normalized }  // lateral raises and circles
        lateral = Vector3.up.cross(forward).normalized
        radius = random.uniform(0.5...0.7)
        lowering = 0
        switch kind {
        case .circles:
            // ω²R from 0.5 to 1.8 g: slow circles through the fast ones that read ~0 g at the top.
            let pull = random.uniform(0.5...1.8) * intensity
            reach = (pull * standardGravity / radius).squareRoot() * (random.chance(0.5) ? 1 : -1)
            period = 0
            // Whole turns, so the arm ends hanging as the next segment begins.
            let turns = Double(Int(random.uniform(3...9)))
            duration = ramp + turns * 2 * MotionMath.pi / abs(reach)
        case .raises:
            reach = random.uniform(1.2...3.0)
            // 0.3–0.6 s per radian up, 0.25–0.6 down: peak speeds of 3–7.5 rad/s, as fast as people raise an arm.
            period = reach * random.uniform(0.3...0.6) / intensity
            lowering = reach * random.uniform(0.25...0.6) / intensity
            duration = Double(Int(random.uniform(2...6))) * (period + lowering + 0.3) + 0.3
        case .swings:
            reach = random.uniform(0.6...1.6) * intensity
            period = random.uniform(0.8...1.8)
            duration = period * Double(Int(random.uniform(3...8)))
        case .rotations:
            radius = random.uniform(0.25...0.32)
            reach = random.uniform(0.6...1.3)
            period = random.uniform(0.6...1.5) / intensity
            duration = period * Double(Int(random.uniform(3...8)))
        }
    }

    /// The arm's angle, angular speed and angular acceleration at `t`.
    func angle(at t: Double) -> (Double, Double, Double) {
        switch kind {
        case .circles:
            // The speed ramps in and out with a smoothstep; the angle is its integral.
            let w = reach
            func rampIntegral(_ x: Double) -> Double { x * x * x - x * x * x * x / 2 }
            if t < ramp {
                let x = t / ramp
                return (w * ramp * rampIntegral(x), w * (3 * x * x - 2 * x * x * x), w * (6 * x - 6 * x * x) / ramp)
            }
            let end = duration - ramp
            if t < end { return (w * (ramp / 2 + t - ramp), w, 0) }
            let x = min((duration - t) / ramp, 1)
            let total = w * (ramp / 2 + end - ramp) + w * ramp / 2
            return (
                total - w * ramp * rampIntegral(x), w * (3 * x * x - 2 * x * x * x), -w * (6 * x - 6 * x * x) / ramp
            )
        case .raises:
            let cycle = period + lowering + 0.3
            // The last 0.3 s after the final lowering is rest.
            guard t < duration - 0.3 else { return (0, 0, 0) }
            let u = t - (t / cycle).rounded(.down) * cycle
            if u < period { return minimumJerk(u / period, span: period, from: 0, to: reach) }
            if u < period + lowering { return minimumJerk((u - period) / lowering, span: lowering, from: reach, to: 0) }
            return (0, 0, 0)
        case .swings, .rotations:
            let w = 2 * MotionMath.pi / period
            let envelope = MotionMath.smoothstep(0, period, t) * MotionMath.smoothstep(0, period, duration - t)
            let a = reach * envelope
            return (a * MotionMath.sin(w * t), a * w * MotionMath.cos(w * t), -a * w * w * MotionMath.sin(w * t))
        }
    }

    func minimumJerk(_ s: Double, span: Double, from a: Double, to b: Double) -> (Double, Double, Double) {
        let u = min(max(s, 0), 1)
        let d = b - a
        let p = u * u * u * (10 - 15 * u + 6 * u * u)
        let v = 30 * u * u * (1 - u) * (1 - u) / span
        let acc = 60 * u * (1 - u) * (1 - 2 * u) / (span * span)
        return (a + d * p, d * v, d * acc)
    }

    func point(at t: Double) -> MotionPoint {
        let (theta, rate, acceleration) = angle(at: t)
        let c = MotionMath.cos(theta)
        let s = MotionMath.sin(theta)
        // Rotations turn the forearm in the horizontal plane about the upper arm: no lift.
        let up = kind == .rotations ? lateral : Vector3.up
        let tangential = (forward * c + up * s) * (radius * acceleration)
        let centripetal = (forward * -s + up * c) * (radius * rate * rate)
        let force = Vector3.up + (tangential + centripetal) * (1 / standardGravity)
        let axis = kind == .rotations ? Vector3.up : lateral
        return MotionPoint(force: force, rotation: Rotation3(axis: axis, angle: -theta))
    }
}
