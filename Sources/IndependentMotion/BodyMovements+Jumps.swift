// SPDX-License-Identifier: GPL-2.0-or-later
import SeededRandomness
import VirtualSensor

/// Jumps: countermovement, rebound and rope series from push and landing forces.
extension BodyMovements {
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
}
