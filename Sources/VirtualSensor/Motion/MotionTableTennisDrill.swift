// SPDX-License-Identifier: GPL-2.0-or-later

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
/// nearly as strong as the swing in others; clipping at ±2 g comes from the sensor's range.
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
        type = pick < 0.45 ? .topspin : (pick < 0.75 ? .flip : .block)
        forehand = random.chance(0.5)
        period = random.uniform(1.0...1.2)
        // Per drill vigour: the real drills of one type differ by a factor of 2–3 in peak |a|.
        let vigour = random.uniform(0.7...1.25) * intensity
        let tilt: Double
        switch type {
        case .topspin:
            omega = random.uniform(9...13.5) * (forehand ? 1 : 0.8)
            radius = random.uniform(0.4...0.55)
            rise = random.uniform(0.11...0.16)
            fall = random.uniform(0.18...0.26)
            backAngle = random.uniform(0.5...0.9)
            tilt = random.uniform(0.9...1.5)
            recoveryRadius = random.uniform(0.3...0.8)
            pronation = random.uniform(0.8...1.8)
        case .flip:
            omega = random.uniform(9...15)
            radius = random.uniform(0.22...0.32)
            rise = random.uniform(0.1...0.14)
            fall = random.uniform(0.18...0.26)
            backAngle = random.uniform(0.3...0.6)
            tilt = random.uniform(0.4...1.2)
            recoveryRadius = random.uniform(0.4...1)
            pronation = random.uniform(0.8...1.6)
        case .block:
            omega = random.uniform(5...8)
            radius = random.uniform(0.25...0.35)
            rise = random.uniform(0.08...0.12)
            fall = random.uniform(0.12...0.18)
            backAngle = random.uniform(0.1...0.3)
            tilt = random.uniform(0.2...0.9)
            recoveryRadius = random.uniform(0.6...1.2)
            pronation = random.uniform(0.3...0.8)
        }
        omega *= vigour
        // Some players snap the arm back right after the follow-through (most in forehand topspin
        // drills): the return is then a lobe nearly as strong as the swing, and the arm waits at the
        // back-swing; the others take the whole time between balls to come back.
        let snaps = random.chance(type == .topspin && forehand ? 0.3 : 0.05)
        recoveryShare = snaps ? random.uniform(0.5...0.7) : random.uniform(0.85...1)
        if snaps { recoveryRadius = min(recoveryRadius * 1.3, 1.1) }
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
        let omega = self.omega * max(spread, 0.6)
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
