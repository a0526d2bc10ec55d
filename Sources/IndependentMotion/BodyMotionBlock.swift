// SPDX-License-Identifier: GPL-2.0-or-later
import VirtualSensor

/// The independent motion model's frame rate: every movement is built at 1 kHz and only the sensor
/// front end turns it into samples at the sensor's (slightly wrong) output data rate.
let bodyFrameRate = 1000.0
/// Seconds per frame.
let bodyFrameInterval = 1 / bodyFrameRate
/// m/s² per g.
let metresPerSecondSquaredPerG = 9.80665

/// A stretch of movement at 1 kHz, in the world frame (z up), as three physical channels that the
/// generator combines for the mount:
///
/// - `trunk`: the trunk's acceleration, g, gravity excluded (from ground reaction forces: Newton's
///   second law on the whole body, F/m − g). It reaches a wrist through the arm's compliance and a
///   lower-back sensor through soft tissue, both modelled as second-order filters.
/// - `limb`: the sensor's displacement relative to the trunk, m (arm kinematics: joint angles
///   through segment lengths). Its second difference is the limb's own acceleration.
/// - `direct`: acceleration applied to the sensor itself, g, gravity excluded (a hand-held sensor
///   pushed, released, falling, caught; impacts of a ball or a table).
///
/// `spin` is the sensor's angular velocity in the world frame, rad/s (the limb's rotation, a thrown
/// sensor's spin). Labels are in seconds from the block's start.
struct BodyMotionBlock {
    var trunk: [Vector3]
    var limb: [Vector3]
    var direct: [Vector3]
    var spin: [Vector3]
    var labels: [MotionLabel] = []
    /// True while the sensor is off the hand (free flight of a thrown sensor).
    var airborne: [Bool]

    init(duration: Double) {
        let count = max(1, Int((duration * bodyFrameRate).rounded()))
        trunk = Array(repeating: .zero, count: count)
        limb = Array(repeating: .zero, count: count)
        direct = Array(repeating: .zero, count: count)
        spin = Array(repeating: .zero, count: count)
        airborne = Array(repeating: false, count: count)
    }

    /// Frames.
    var count: Int { trunk.count }
    /// Seconds.
    var duration: Double { Double(count) * bodyFrameInterval }

    /// The time of frame `index`, s from the block's start.
    static func time(_ index: Int) -> Double { Double(index) * bodyFrameInterval }

    /// The frame at `t` seconds (clamped into the block).
    func frame(_ t: Double) -> Int { min(max(Int((t * bodyFrameRate).rounded()), 0), count - 1) }
}

/// Profiles the model builds movements from (dimensionless, on s ∈ [0, 1]).
enum Profiles {
    /// Minimum-jerk position from 0 to 1 (Flash and Hogan): 10s³ − 15s⁴ + 6s⁵.
    static func minimumJerk(_ s: Double) -> Double {
        let u = min(max(s, 0), 1)
        return u * u * u * (10 - 15 * u + 6 * u * u)
    }

    /// sin²(πs/2) for s in [0, 1]: rises from 0 to 1 with zero slope at both ends.
    static func riseSquared(_ s: Double) -> Double {
        let u = min(max(s, 0), 1)
        let v = MotionMath.sin(MotionMath.pi * u / 2)
        return v * v
    }

    /// sin(πs) on [0, 1], 0 outside.
    static func halfSine(_ s: Double) -> Double { s > 0 && s < 1 ? MotionMath.sin(MotionMath.pi * s) : 0 }

    /// Piecewise smooth interpolation through `points` (t, value), with zero slope at each point.
    static func knots(_ t: Double, _ points: [(Double, Double)]) -> Double {
        guard let first = points.first, let last = points.last else { return 0 }
        if t <= first.0 { return first.1 }
        if t >= last.0 { return last.1 }
        var index = 1
        while points[index].0 < t { index += 1 }
        let (t0, v0) = points[index - 1]
        let (t1, v1) = points[index]
        let u = (t - t0) / (t1 - t0)
        return v0 + (v1 - v0) * u * u * (3 - 2 * u)
    }
}

extension Vector3 {
    /// This vector with its length set to `length` (or zero for the zero vector).
    func scaled(to length: Double) -> Vector3 {
        let l = self.length
        return l > 0 ? self * (length / l) : .zero
    }
}
