// SPDX-License-Identifier: GPL-2.0-or-later

import SeededRandomness
/// Standard gravity, m/s²: converts the scripts' accelerations to g.
let standardGravity = 9.80665

/// What a segment contributes at one instant.
struct MotionPoint {
    /// Specific force (acceleration minus gravity) of the sensor in the world frame, g; (0, 0, 1) at rest.
    var force: Vector3 = .up
    /// The segment's rotation of the limb carrying the sensor (world ← limb).
    var rotation: Rotation3 = .identity
    /// A reading added in the sensor's own frame, g (centripetal pull of a spinning sensor).
    var sensorFrame: Vector3 = .zero
}

/// A raised-cosine bump: 1 at x = 0, 0 for |x| ≥ 1.
func raisedCosine(_ x: Double) -> Double {
    abs(x) < 1 ? 0.5 * (1 + MotionMath.cos(MotionMath.pi * x)) : 0
}

/// The derivative of `raisedCosine` with respect to x.
func raisedCosineSlope(_ x: Double) -> Double {
    abs(x) < 1 ? -0.5 * MotionMath.pi * MotionMath.sin(MotionMath.pi * x) : 0
}

/// A half-sine pulse of unit height over [start, start + width].
func halfSine(_ t: Double, start: Double, width: Double) -> Double {
    t > start && t < start + width ? MotionMath.sin(MotionMath.pi * (t - start) / width) : 0
}

/// Where the sensor is worn; it changes how much arm motion and impact reach it.
public enum SensorMount: String, CaseIterable, Hashable, Sendable {
    /// On the wrist (the usual place).
    case wrist
    /// Held in the hand (a phone, or the racket hand).
    case hand
    /// On the lower back, near the centre of mass.
    case lowerBack = "lower-back"
    /// On the shank (below the knee).
    case shank

    var armFactor: Double {
        switch self {
        case .wrist: 1
        case .hand: 0.6
        case .lowerBack, .shank: 0
        }
    }
}

/// A vector perpendicular to `v`.
func perpendicular(_ v: Vector3, _ random: inout SplitMix64) -> Vector3 {
    let other = random.direction()
    let p = v.cross(other)
    return p.length > 1e-6 ? p.normalized : v.cross(Vector3(1, 0, 0)).normalized
}

/// Small motions that are not events: bouncing the ball on the racket, gestures, taps on a table,
/// small drops of the sensor, squats, and rest with physiological tremor.
enum Distractor {
    case rest(tremor: Double, frequency: Double, direction: Vector3)
    case bounce(frequency: Double, amplitude: Double, impact: Double)
    case gesture(direction: Vector3, amplitude: Double, axis: Vector3, angle: Double)
    case tap(direction: Vector3, amplitude: Double, width: Double)
    case drop(fall: Double, impact: Double)
    case squat(dip: Double, push: Double)

    func point(at t: Double, duration: Double) -> MotionPoint {
        switch self {
        case .rest(let tremor, let frequency, let direction):
            return MotionPoint(force: .up + direction * (tremor * MotionMath.sin(2 * MotionMath.pi * frequency * t)))
        case .bounce(let frequency, let amplitude, let impact):
            let envelope = MotionMath.smoothstep(0, 0.3, t) * MotionMath.smoothstep(0, 0.3, duration - t)
            let phase = frequency * t
            let pulse = halfSine(phase - phase.rounded(.down), start: 0.5, width: 0.004 * frequency)
            let z = amplitude * envelope * MotionMath.sin(2 * MotionMath.pi * phase) + impact * envelope * pulse
            return MotionPoint(force: Vector3(0, 0, 1 + z))
        case .gesture(let direction, let amplitude, let axis, let angle):
            let force = Vector3.up + direction * (amplitude * MotionMath.sin(2 * MotionMath.pi * t / duration))
            let turn = angle * 0.5 * (1 - MotionMath.cos(2 * MotionMath.pi * t / duration))
            return MotionPoint(force: force, rotation: Rotation3(axis: axis, angle: turn))
        case .tap(let direction, let amplitude, let width):
            return MotionPoint(force: .up + direction * (amplitude * halfSine(t, start: duration / 2, width: width)))
        case .drop(let fall, let impact):
            let start = 0.4
            if t >= start && t < start + fall { return MotionPoint(force: .zero) }
            let after = t - start - fall
            let z = after >= 0 && after < 0.03 ? 1 + (impact - 1) * MotionMath.sin(MotionMath.pi * after / 0.03) : 1
            return MotionPoint(force: Vector3(0, 0, z))
        case .squat(let dip, let push):
            let down = 0.45 * duration
            let z =
                t < down
                ? 1 - dip * MotionMath.sin(MotionMath.pi * t / down)
                : 1 + push * MotionMath.sin(MotionMath.pi * min(t - down, duration - down) / (duration - down))
            return MotionPoint(force: Vector3(0, 0, z))
        }
    }
}

/// Walking or running: foot contacts, the body's vertical bounce and sway, and the arm's pendulum
/// swing at half the step frequency (wrist or hand mounts).
struct Gait {
    var duration: Double
    var cadence: Double
    var steps: Int
    var running: Bool
    var mount: SensorMount
    var forward: Vector3
    var lateral: Vector3
    var vertical: Double
    var heel: Double
    var heelWidth: Double
    var sway: Double
    var armRadius: Double
    var armAngle: Double
    var armPhase: Double
    var contact: Double
    /// Step times and per-step amplitude factors of a varied bout (`varied`): nil for a bout of
    /// constant cadence and amplitude.
    var plan: StepPlan?

    init(
        random: inout SplitMix64, mount: SensorMount, running: Bool, steps: Int, intensity: Double,
        varied: Bool = false
    ) {
        self.running = running
        self.mount = mount
        self.steps = steps
        cadence = running ? random.uniform(2.5...3.3) : random.uniform(0.8...2.1)
        duration = (Double(steps) + 0.2) / cadence
        forward = random.horizontal()
        lateral = Vector3(0, 0, 1).cross(forward)
        let bodyFactor = mount == .lowerBack ? 1.0 : 0.75
        vertical = (running ? 0 : random.uniform(0.12...0.3)) * bodyFactor * intensity
        heel = (running ? random.uniform(0.5...1.5) : random.uniform(0.08...0.35)) * bodyFactor * intensity
        heelWidth = random.uniform(0.03...0.06)
        sway = random.uniform(0.03...0.1)
        armRadius = running ? random.uniform(0.25...0.35) : random.uniform(0.5...0.65)
        armAngle = (running ? random.uniform(0.4...0.8) : random.uniform(0.2...0.5)) * mount.armFactor * intensity
        armPhase = random.uniform(-0.4...0.4)
        contact = random.uniform(0.24...0.3) * 2.8 / cadence
        if varied {
            let plan = StepPlan(random: &random, steps: steps, cadence: cadence, running: running)
            // Slow walking moves the body less: vertical accelerations grow about with cadence².
            if !running && cadence < 1.6 {
                let slow = random.uniform(0.35...1) * (cadence / 1.6) * (cadence / 1.6)
                vertical *= max(slow, 0.15)
                heel *= max(slow, 0.15)
                armAngle *= random.uniform(0.4...1)
            }
            // The bout ends when its last step's stance is over (a run's contact, half a walking step), not
            // at its contact: a body does not stop dead as a foot lands, and cutting the bounce there left the
            // last step of every bout without a peak (real walks show one: Docs/DETECTION.md, "Walking bouts").
            let last = plan.times[steps - 1]
            let lastInterval = steps > 1 ? last - plan.times[steps - 2] : 1 / cadence
            duration = last + (running ? max(contact, 0.1 / cadence) : 0.5 * lastInterval)
            self.plan = plan
        }
    }

    /// Time of step `index` from the segment's start.
    func stepTime(_ index: Int) -> Double { plan?.times[index] ?? (Double(index) + 0.1) / cadence }

    func point(at t: Double) -> MotionPoint {
        if let plan { return variedPoint(at: t, plan: plan) }
        let first = stepTime(0)
        let u = t - first
        var z: Double
        if running {
            let period = 1 / cadence
            let into = u - (u / period).rounded(.down) * period
            let peak = MotionMath.pi * period / (2 * contact)
            z = u >= 0 && into < contact ? peak * MotionMath.sin(MotionMath.pi * into / contact) : (u < 0 ? 1 : 0)
            if t > stepTime(steps - 1) + contact { z = 1 }
        } else {
            z = 1 + vertical * MotionMath.cos(2 * MotionMath.pi * cadence * u - 0.4)
        }
        var heelForce = 0.0
        let nearest = Int((u * cadence).rounded())
        if nearest >= 0 && nearest < steps {
            heelForce = heel * halfSine(t, start: stepTime(nearest), width: heelWidth)
        }
        var force = Vector3(0, 0, z + heelForce) + lateral * (sway * MotionMath.sin(MotionMath.pi * cadence * u))
        var rotation = Rotation3.identity
        if armAngle > 0 {
            let envelope = 0.35 + 0.65 * MotionMath.smoothstep(0, 0.7, t) * MotionMath.smoothstep(0, 0.7, duration - t)
            let w = MotionMath.pi * cadence
            let phase = w * u + armPhase
            let theta = armAngle * envelope * MotionMath.sin(phase)
            let thetaDot = armAngle * envelope * w * MotionMath.cos(phase)
            let thetaDDot = -armAngle * envelope * w * w * MotionMath.sin(phase)
            let c = MotionMath.cos(theta)
            let s = MotionMath.sin(theta)
            let tangential = (forward * c + Vector3.up * s) * (armRadius * thetaDDot)
            let centripetal = (forward * -s + Vector3.up * c) * (armRadius * thetaDot * thetaDot)
            force += (tangential + centripetal) * (1 / standardGravity)
            rotation = Rotation3(axis: lateral, angle: -theta)
        }
        return MotionPoint(force: force, rotation: rotation)
    }

    /// `point(at:)` for a varied bout: the phase runs from step to step of the plan, and each step's
    /// bounce, heel strike and arm swing take its own amplitude; the heading turns with the plan.
    func variedPoint(at t: Double, plan: StepPlan) -> MotionPoint {
        let (index, fraction, interval) = plan.phase(at: t)
        let amplitude = plan.amplitudes[min(max(index, 0), steps - 1)]
        let localCadence = 1 / interval
        let u = Double(index) + fraction
        // After the last contact a walk's bounce, sway and arm swing settle over half a step.
        let settle = index == steps - 1 ? 1 - MotionMath.smoothstep(0, 0.5, fraction) : 1
        var z: Double
        if running {
            let into = fraction * interval
            let peak = MotionMath.pi * interval / (2 * contact)
            if index < 0 || (index == steps - 1 && into >= contact) {
                z = 1
            } else if into < contact {
                z = peak * (0.7 + 0.3 * amplitude) * MotionMath.sin(MotionMath.pi * into / contact)
            } else {
                z = 0
            }
        } else {
            z = 1 + vertical * amplitude * settle * MotionMath.cos(2 * MotionMath.pi * u - 0.4)
        }
        var heelForce = 0.0
        let nearest = fraction < 0.5 ? index : index + 1
        if nearest >= 0 && nearest < steps {
            heelForce = heel * plan.amplitudes[nearest] * halfSine(t, start: plan.times[nearest], width: heelWidth)
        }
        let heading = Rotation3(axis: .up, angle: plan.heading(at: t))
        let forward = heading.apply(self.forward)
        let lateral = heading.apply(self.lateral)
        let walkingSettle = running ? 1 : settle
        var force =
            Vector3(0, 0, z + heelForce) + lateral * (sway * walkingSettle * MotionMath.sin(MotionMath.pi * u))
        var rotation = heading
        if armAngle > 0 {
            let envelope =
                walkingSettle
                * (0.35 + 0.65 * MotionMath.smoothstep(0, 0.7, t) * MotionMath.smoothstep(0, 0.7, duration - t))
            let w = MotionMath.pi * localCadence
            let phase = MotionMath.pi * u + armPhase
            let swing = armAngle * envelope * (0.6 + 0.4 * amplitude)
            let theta = swing * MotionMath.sin(phase)
            let thetaDot = swing * w * MotionMath.cos(phase)
            let thetaDDot = -swing * w * w * MotionMath.sin(phase)
            let c = MotionMath.cos(theta)
            let s = MotionMath.sin(theta)
            let tangential = (forward * c + Vector3.up * s) * (armRadius * thetaDDot)
            let centripetal = (forward * -s + Vector3.up * c) * (armRadius * thetaDot * thetaDot)
            force += (tangential + centripetal) * (1 / standardGravity)
            rotation = Rotation3(axis: lateral, angle: -theta).then(heading)
        }
        return MotionPoint(force: force, rotation: rotation)
    }
}

/// The steps of a varied walking or running bout: cadence drifting by up to ±12 % over the bout,
/// step-to-step timing jitter of 1–4 %, amplitudes that vary from step to step (±10–35 %, with a
/// left/right asymmetry) and turns, where 2–4 steps slow down by 15–35 %, shorten (amplitude
/// 0.4–0.7) and the heading turns by 90–180°.
struct StepPlan {
    var times: [Double]
    var amplitudes: [Double]
    /// (start, end, angle) of each turn.
    var turns: [(Double, Double, Double)]

    init(random: inout SplitMix64, steps: Int, cadence: Double, running: Bool) {
        let drift = random.uniform(0...0.12)
        let driftRate = random.uniform(0.03...0.15)
        let driftPhase = random.uniform(0...6.28)
        let jitter = random.uniform(0.01...0.04)
        let spread = random.uniform(0.1...0.35)
        let asymmetry = random.uniform(0...0.25)
        var turnSteps: [Int: Double] = [:]
        var turns: [(Double, Double, Double)] = []
        var turnAt: [(Int, Int, Double)] = []
        if !running && steps >= 10 {
            var next = Int(random.uniform(4...12))
            while next + 4 < steps {
                let length = Int(random.uniform(2...4.99))
                let slow = random.uniform(0.15...0.35)
                for k in next..<(next + length) { turnSteps[k] = slow }
                turnAt.append((next, next + length, random.uniform(1.57...3.14) * (random.chance(0.5) ? 1 : -1)))
                next += length + Int(random.uniform(6...20))
            }
        }
        var times: [Double] = []
        var amplitudes: [Double] = []
        var t = 0.1 / cadence
        for k in 0..<steps {
            times.append(t)
            let slow = turnSteps[k] ?? 0
            let side = k % 2 == 0 ? 1 + asymmetry / 2 : 1 - asymmetry / 2
            let amplitude = side * (1 + spread * (2 * random.unit() - 1)) * (slow > 0 ? random.uniform(0.4...0.7) : 1)
            amplitudes.append(max(amplitude, 0.2))
            let local = cadence * (1 + drift * MotionMath.sin(2 * MotionMath.pi * driftRate * t + driftPhase))
            let interval = (1 + jitter * random.gaussian()) * (1 + slow) / local
            t += max(interval, 0.2)
        }
        for (start, end, angle) in turnAt {
            turns.append((times[start], times[min(end, steps - 1)], angle))
        }
        self.times = times
        self.amplitudes = amplitudes
        self.turns = turns
    }

    /// The step before `t` (−1 before the first), how far `t` is towards the next, and the interval.
    func phase(at t: Double) -> (Int, Double, Double) {
        let first = times[0]
        let firstInterval = times.count > 1 ? times[1] - times[0] : 0.5
        if t < first { return (-1, 1 - (first - t) / firstInterval, firstInterval) }
        var low = 0
        var high = times.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if times[middle] <= t { low = middle } else { high = middle - 1 }
        }
        let interval = low + 1 < times.count ? times[low + 1] - times[low] : times[low] - times[max(low - 1, 0)]
        let safe = interval > 0 ? interval : firstInterval
        return (low, (t - times[low]) / safe, safe)
    }

    /// The heading's turn at `t`, rad (smooth through each turn).
    func heading(at t: Double) -> Double {
        var angle = 0.0
        for (start, end, turn) in turns {
            angle += turn * MotionMath.smoothstep(start, end, t)
        }
        return angle
    }
}
