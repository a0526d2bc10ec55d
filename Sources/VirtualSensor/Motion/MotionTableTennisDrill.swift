// SPDX-License-Identifier: GPL-2.0-or-later

import SeededRandomness
/// The stroke types of a robot drill (Docs/DETECTION.md, "Evaluation": the figures they are fitted to).
enum DrillStrokeType: CaseIterable {
    case topspin
    case flip
    case block
}

/// One robot drill: a player returns balls fed every `period` seconds with one stroke type on one side.
///
/// The wrist moves on an arc of radius `radius` about an axis through the elbow or shoulder (`normal`):
/// each stroke holds the back-swing angle, swings forward with an angular speed that rises as sin² to
/// its peak at contact and falls as cos² through the follow-through, and the arm then returns to the
/// back-swing for the next ball (minimum jerk) with the elbow bent (`recoveryRadius`). The sensor turns
/// with the arc and with the forearm's pronation, so gravity moves in its frame. Real wrists show the
/// return as a second and third lobe of |a − g| 0.3–0.8 s after contact, weak in some drills and
/// about half the swing in others; clipping at ±2 g comes from the sensor's range.
struct TableTennisDrill {
    var type: DrillStrokeType
    var forehand: Bool
    /// The robot's feed period, s.
    var period: Double
    var normal: Vector3
    var radial: Vector3
    var tangent: Vector3
    /// Mean arc rate at contact, rad/s.
    var omega: Double
    var radius: Double
    /// The forward swing's rise to contact and fall after it, s.
    var rise: Double
    var fall: Double
    var backAngle: Double
    /// The wrist's distance from the axis during the return, as a fraction of `radius`.
    var recoveryRadius: Double
    /// The part of the time between follow-through and the next swing that the return takes.
    var recoveryShare: Double
    var pronation: Double
    var impact: Double

    init(random: inout SplitMix64, intensity: Double) {
        let pick = random.unit()
        type = pick < 0.5 ? .topspin : (pick < 0.8 ? .flip : .block)
        forehand = random.chance(0.5)
        period = random.uniform(1.0...1.2)
        // Per drill vigour. Swing energy grows with the fourth power of the arc rate, so a narrow range
        // (and the recording's intensity at its root) gives the real strokes' spread per type: p5 to p95
        // a factor 2–3 (Validation/stroke_energy.py). The swings are long (|a| above 1.5 g for 0.3–0.6 s
        // around a topspin's contact) on a wide arc at a moderate rate: the swept angle is what the
        // return has to bring back, and a wide sweep made the return as strong as the swing.
        let vigour = random.uniform(0.9...1.1) * intensity.squareRoot()
        let tilt: Double
        switch type {
        case .topspin:
            omega = forehand ? random.uniform(7.5...9) : random.uniform(6...7.2)
            radius = random.uniform(0.65...0.85)
            rise = forehand ? random.uniform(0.22...0.3) : random.uniform(0.18...0.24)
            fall = forehand ? random.uniform(0.26...0.34) : random.uniform(0.2...0.26)
            backAngle = random.uniform(0.5...0.9)
            tilt = random.uniform(0.9...1.5)
            recoveryRadius = random.uniform(0.1...0.25)
            pronation = random.uniform(0.8...1.8)
        case .flip:
            omega = forehand ? random.uniform(7.5...10.5) : random.uniform(7.5...9.5)
            radius = random.uniform(0.35...0.48)
            rise = forehand ? random.uniform(0.18...0.24) : random.uniform(0.14...0.2)
            fall = forehand ? random.uniform(0.24...0.32) : random.uniform(0.18...0.24)
            backAngle = random.uniform(0.3...0.6)
            tilt = random.uniform(0.4...1.2)
            recoveryRadius = random.uniform(0.12...0.3)
            pronation = random.uniform(0.8...1.6)
        case .block:
            omega = random.uniform(6...7.2)
            radius = random.uniform(0.38...0.46)
            rise = random.uniform(0.14...0.2)
            fall = random.uniform(0.16...0.24)
            backAngle = random.uniform(0.1...0.3)
            tilt = random.uniform(0.2...0.9)
            recoveryRadius = random.uniform(0.2...0.4)
            pronation = random.uniform(0.3...0.8)
        }
        omega *= vigour
        // The return is made with the elbow bent (a small radius): in the real drills it carries 0.01–0.49
        // of the swing's energy in the median. Some players snap the arm back sooner (most in forehand
        // topspin drills): the return is then about half the swing, and the arm waits at the back-swing;
        // the others take the whole time between balls to come back.
        let snaps = random.chance(type == .topspin && forehand ? 0.3 : 0.05)
        recoveryShare = snaps ? random.uniform(0.65...0.8) : random.uniform(0.85...1)
        if snaps { recoveryRadius = min(recoveryRadius * 1.5, 0.4) }
        let yaw = random.uniform(0...(2 * MotionMath.pi))
        let direction = Vector3(
            MotionMath.sin(tilt) * MotionMath.cos(yaw), MotionMath.sin(tilt) * MotionMath.sin(yaw), MotionMath.cos(tilt)
        )
        normal = forehand ? direction : direction * -1
        (radial, tangent) = planeBasis(normal: normal)
        if !forehand { pronation = -pronation }
        impact = random.uniform(0.3...1.5) * vigour
    }

    /// The next stroke, from the arm's angle at the end of the previous one (`start`: 0, the ready
    /// position, for the drill's first), `last` when the arm returns to the ready position after it;
    /// without `ball` it is a shadow swing (no impact; still labelled: it is a swing like any other).
    func stroke(random: inout SplitMix64, start: Double, last: Bool, ball: Bool = true) -> DrillStroke {
        let spread = 1 + 0.1 * random.gaussian()
        let rise = self.rise * random.uniform(0.9...1.1)
        let fall = self.fall * random.uniform(0.9...1.1)
        let interval = period + 0.03 * random.gaussian()
        let pause = random.uniform(0.02...0.08)
        // A few strokes are played softly (a late or short ball): 1.9 % of the real strokes carry less
        // than 0.15 g²·s of swing energy, against 5–20 times that for most of their drill.
        let soft = random.chance(0.02) ? random.uniform(0.45...0.65) : 1
        let omega = self.omega * max(spread, 0.6) * soft
        let hold = max(interval - rise - fall - pause, 0.3)
        return DrillStroke(
            drill: self, start: start, omega: omega, rise: rise, fall: fall, pause: pause,
            recovery: hold * recoveryShare, interval: max(interval, rise + fall + pause + 0.3),
            returning: last ? random.uniform(0.6...0.9) : nil, impact: ball ? impact : 0)
    }
}

/// One stroke of a drill as a motion segment: the return from the previous stroke (or the take-back
/// from the ready position) to the back-swing, the hold, the forward swing to contact, the
/// follow-through and, after a drill's last stroke, the return to the ready position.
struct DrillStroke {
    let drill: TableTennisDrill
    let start: Double
    let omega: Double
    let rise: Double
    let fall: Double
    let pause: Double
    let recovery: Double
    let returning: Double?
    let impact: Double
    let contact: Double
    let duration: Double
    /// The arm's angle at the end of the follow-through.
    let end: Double

    init(
        drill: TableTennisDrill, start: Double, omega: Double, rise: Double, fall: Double, pause: Double,
        recovery: Double, interval: Double, returning: Double?, impact: Double
    ) {
        self.drill = drill
        self.start = start
        self.omega = omega
        self.rise = rise
        self.fall = fall
        self.pause = pause
        self.recovery = recovery
        self.returning = returning
        self.impact = impact
        contact = interval - fall
        end = -drill.backAngle + omega * (rise + fall) / 2
        duration = interval + (returning.map { $0 + 0.1 } ?? 0)
    }

    /// The arc angle, its rate and acceleration at `t`, the radius the wrist is at, and how far the
    /// forearm is pronated (0 at the back-swing, 1 at the end of the follow-through).
    func arc(at t: Double) -> (Double, Double, Double, Double, Double) {
        let back = -drill.backAngle
        let swingStart = contact - rise
        let followEnd = contact + fall
        let turned = start == 0 ? 0.0 : 1.0
        if t < pause { return (start, 0, 0, drill.radius * drill.recoveryRadius, turned) }
        if t < pause + recovery {
            let (p, v, a) = Self.minimumJerk((t - pause) / recovery)
            let sweep = back - start
            return (
                start + sweep * p, sweep * v / recovery, sweep * a / (recovery * recovery),
                drill.radius * drill.recoveryRadius, turned * (1 - p)
            )
        }
        if t < swingStart { return (back, 0, 0, drill.radius, 0) }
        let swept = { (angle: Double) in min(max((angle - back) / (self.end - back), 0), 1) }
        let k = MotionMath.pi / 2
        if t < contact {
            let x = t - swingStart
            let s = MotionMath.sin(k * x / rise)
            let angle = back + omega * (x / 2 - rise / (2 * MotionMath.pi) * MotionMath.sin(MotionMath.pi * x / rise))
            return (
                angle, omega * s * s, omega * k / rise * MotionMath.sin(MotionMath.pi * x / rise), drill.radius,
                swept(angle)
            )
        }
        if t < followEnd {
            let y = t - contact
            let c = MotionMath.cos(k * y / fall)
            let angle =
                back + omega * rise / 2 + omega
                * (y / 2 + fall / (2 * MotionMath.pi) * MotionMath.sin(MotionMath.pi * y / fall))
            return (
                angle, omega * c * c, -omega * k / fall * MotionMath.sin(MotionMath.pi * y / fall), drill.radius,
                swept(angle)
            )
        }
        guard let returning else { return (end, 0, 0, drill.radius, 1) }
        let u = t - followEnd - 0.05
        guard u > 0 else { return (end, 0, 0, drill.radius, 1) }
        let (p, v, a) = Self.minimumJerk(u / returning)
        let radius = drill.radius * drill.recoveryRadius
        return (end - end * p, -end * v / returning, -end * a / (returning * returning), radius, 1 - p)
    }

    /// Minimum-jerk position, velocity and acceleration on s ∈ [0, 1] (per unit s).
    static func minimumJerk(_ s: Double) -> (Double, Double, Double) {
        let u = min(max(s, 0), 1)
        let u2 = u * u
        return (u2 * u * (10 - 15 * u + 6 * u2), 30 * u2 * (1 - u) * (1 - u), 60 * u * (1 - u) * (1 - 2 * u))
    }

    func point(at t: Double) -> MotionPoint {
        let (angle, rate, acceleration, radius, turned) = arc(at: t)
        let c = MotionMath.cos(angle)
        let s = MotionMath.sin(angle)
        let outward = drill.radial * c + drill.tangent * s
        let along = drill.radial * -s + drill.tangent * c
        var force =
            Vector3.up + (along * (radius * acceleration) - outward * (radius * rate * rate)) * (1 / standardGravity)
        force += along * (-impact * halfSine(t, start: contact, width: 0.006))
        let rotation = Rotation3(axis: drill.normal, angle: angle).then(
            Rotation3(axis: drill.radial, angle: drill.pronation * turned))
        return MotionPoint(force: force, rotation: rotation)
    }

    /// The true peak |specific force| of the forward swing, g.
    var peak: Double {
        var best = 0.0
        var t = contact - rise
        while t < contact + fall {
            best = max(best, point(at: t).force.length)
            t += 0.0005
        }
        return best
    }
}
