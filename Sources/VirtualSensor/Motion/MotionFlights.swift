// SPDX-License-Identifier: GPL-2.0-or-later

import SeededRandomness
/// A series of flights: one counter-movement jump, a series of rebound or rope jumps, or a throw
/// of the sensor itself. Forces obey the impulse balance: the propulsion gives exactly the takeoff
/// speed g·T/2 that a flight of T seconds needs, and the landing takes it away again.
struct FlightSeries {
    enum Kind {
        case jump
        case rope
        case toss
    }

    var kind: Kind
    var mount: SensorMount
    /// Phase times from the segment's start: takeoffs[i] and landings[i].
    var takeoffs: [Double] = []
    var landings: [Double] = []
    var duration: Double = 0
    var quiet: Double
    var unweight: Double
    var dip: Double
    var push: Double
    var pushPeak: Double = 0
    var contactPeaks: [Double] = []
    var landingRise: Double
    var landingPeak: Double
    var landingDecay: Double = 0
    var impactSpike: Double
    var arm: Double
    var armAxes: (Vector3, Vector3)
    var ropeRadius: Double
    var ropeRate: Double = 0
    var forward: Vector3
    var spinRate: Double
    var spinRadius: Double
    var spinAxis: Vector3
    var spinDirection: Vector3

    init(random: inout SplitMix64, kind: Kind, mount: SensorMount, count: Int, intensity: Double) {
        self.kind = kind
        self.mount = mount
        quiet = random.uniform(0.3...0.6)
        unweight = random.uniform(0.18...0.35)
        dip = random.uniform(0.15...0.5) * (kind == .toss ? 0.5 : 1)
        push = kind == .toss ? random.uniform(0.15...0.35) : random.uniform(0.22...0.4)
        let soft = random.chance(0.4)
        landingRise = soft ? random.uniform(0.05...0.12) : random.uniform(0.006...0.03)
        landingPeak = soft ? random.uniform(1.6...2.3) : random.uniform(2.5...6)
        impactSpike = mount == .shank && !soft ? random.uniform(1...3) : 0
        arm = random.uniform(0.05...0.35) * mount.armFactor
        let e1 = random.direction()
        armAxes = (e1, perpendicular(e1, &random))
        // Skipping turns the rope with the wrists while the arms stay close to the body.
        ropeRadius = kind == .rope ? random.uniform(0.01...0.025) * mount.armFactor : 0
        if kind == .rope { arm *= 0.5 }
        forward = random.horizontal()
        spinRate = kind == .toss ? random.uniform(0...12) : 0
        spinRadius = random.uniform(0.01...0.04)
        spinAxis = random.direction()
        spinDirection = random.direction()

        var flights: [Double] = []
        var contacts: [Double] = []
        for index in 0..<max(count, 1) {
            switch kind {
            case .jump:
                flights.append(
                    (count == 1 ? random.uniform(0.35...0.7) : random.uniform(0.3...0.55)) * intensity.squareRoot())
                if index > 0 { contacts.append(random.uniform(0.18...0.3)) }
            case .rope:
                flights.append(random.uniform(0.22...0.4))
                if index > 0 { contacts.append(random.uniform(0.1...0.3)) }
            case .toss:
                flights.append(random.uniform(0.35...1.2) * intensity.squareRoot())
            }
        }
        var t = quiet + unweight + push
        for (index, flight) in flights.enumerated() {
            if index > 0 {
                let contact = contacts[index - 1]
                let incoming = standardGravity * flights[index - 1] / 2
                let outgoing = standardGravity * flight / 2
                // Half-sine contact: ∫(f − 1) dt = (2·peak/π − 1)·contact = (v_in + v_out)/g.
                contactPeaks.append(((incoming + outgoing) / standardGravity + contact) * MotionMath.pi / (2 * contact))
                t += contact
            }
            takeoffs.append(t)
            t += flight
            landings.append(t)
        }
        // Propulsion: f = peak·sin(πτ/push) + (1 − τ/push); net impulse = (2·peak/π − 1/2)·push.
        let v0 = flights[0] / 2  // in g·s
        pushPeak = (v0 + push / 2 + 2 * dip * unweight / MotionMath.pi) * MotionMath.pi / (2 * push)
        let vLand = flights[flights.count - 1] / 2
        // Landing ramp to the peak, then exponential return to 1 g: (peak/2 − 1)·rise + (peak − 1)·decay = v.
        landingDecay = max((vLand - (landingPeak / 2 - 1) * landingRise) / (landingPeak - 1), 0.03)
        if kind == .rope { ropeRate = 2 * MotionMath.pi / (flights[0] + (contacts.first ?? 0.17)) }
        duration = t + landingRise + 5 * landingDecay + random.uniform(0.3...0.8)
    }

    func point(at t: Double) -> MotionPoint {
        var point = MotionPoint()
        let start = quiet
        let pushStart = quiet + unweight
        var z = 1.0
        var armForce = Vector3.zero
        if t < start {
            z = 1
        } else if t < pushStart {
            z = 1 - dip * MotionMath.sin(MotionMath.pi * (t - start) / unweight)
        } else if t < takeoffs[0] {
            let u = (t - pushStart) / push
            z = pushPeak * MotionMath.sin(MotionMath.pi * u) + (1 - u)
            armForce = armAxes.0 * (arm * 1.5 * MotionMath.sin(MotionMath.pi * u))
            if kind == .toss {
                // The hand spins the sensor up during the throw: ω grows to its flight value.
                let spin = spinRate * u
                point.sensorFrame = spinDirection * (spin * spin * spinRadius / standardGravity)
                point.rotation = Rotation3(axis: spinAxis, angle: spinRate * push * u * u / 2)
            }
        } else {
            z = 1
            for index in takeoffs.indices {
                let takeoff = takeoffs[index]
                let landing = landings[index]
                if t >= takeoff && t < landing {
                    z = 0
                    let u = (t - takeoff) / (landing - takeoff)
                    armForce =
                        armAxes.0 * (arm * MotionMath.sin(2 * MotionMath.pi * u))
                        + armAxes.1 * (0.5 * arm * MotionMath.sin(4 * MotionMath.pi * u))
                    if kind == .toss {
                        point.sensorFrame =
                            spinDirection * (spinRate * spinRate * spinRadius / standardGravity)
                        point.rotation = Rotation3(axis: spinAxis, angle: spinRate * (t - takeoff + push / 2))
                    }
                    break
                }
                if index + 1 < takeoffs.count && t >= landing && t < takeoffs[index + 1] {
                    let contact = takeoffs[index + 1] - landing
                    z = contactPeaks[index] * MotionMath.sin(MotionMath.pi * (t - landing) / contact)
                    z += impactSpike * halfSine(t, start: landing, width: 0.012)
                    break
                }
                if index == takeoffs.count - 1 && t >= landing {
                    let after = t - landing
                    z =
                        after < landingRise
                        ? landingPeak * after / landingRise
                        : 1 + (landingPeak - 1) * MotionMath.exp(-(after - landingRise) / landingDecay)
                    z += impactSpike * halfSine(t, start: landing, width: 0.012)
                    if kind == .toss {
                        let total = spinRate * (landing - takeoff + push / 2)
                        let wrapped = total - (total / (2 * MotionMath.pi)).rounded() * 2 * MotionMath.pi
                        let angle = wrapped * (1 - MotionMath.smoothstep(0.15, 0.75, after))
                        point.rotation = Rotation3(axis: spinAxis, angle: angle)
                    }
                }
            }
        }
        point.force = Vector3(0, 0, z) + armForce
        if ropeRadius > 0 && t >= pushStart && t < landings[landings.count - 1] {
            let phase = ropeRate * (t - pushStart)
            let pull = ropeRate * ropeRate * ropeRadius / standardGravity
            point.force += (forward * MotionMath.cos(phase) + Vector3.up * MotionMath.sin(phase)) * -pull
        }
        return point
    }
}
