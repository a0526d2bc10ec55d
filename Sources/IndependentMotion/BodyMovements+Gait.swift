// SPDX-License-Identifier: GPL-2.0-or-later
import SeededRandomness
import VirtualSensor

/// Gait: walking and running from ground reaction forces, with the arm's pendulum swing.
extension BodyMovements {
    /// A walking or running bout of `steps` foot contacts: per-foot vertical ground reaction force
    /// (walking: double hump, double support; running: one hump with a heel-strike transient and a
    /// flight phase), braking/propulsion and medio-lateral forces, and (on an arm) the pendulum arm
    /// swing at stride frequency. Every foot contact is labelled.
    static func gait(_ random: inout SplitMix64, steps: Int, running: Bool, arm: Bool, vigour: Double) -> Block {
        let cadence = running ? random.uniform(145...185) : random.uniform(95...125)
        let stepTime = 60 / cadence
        var contacts: [Double] = []
        var t = 0.4 + stepTime
        for _ in 0..<steps {
            contacts.append(t)
            t += stepTime * (1 + 0.02 * random.gaussian())
        }
        let stance = running ? stepTime * random.uniform(0.55...0.75) : 2 * stepTime * random.uniform(0.58...0.64)
        var block = Block(duration: t + stance + 0.4)
        let forward = heading(&random)
        let side = Vector3.up.cross(forward)
        let heelPeak = running ? (random.chance(0.6) ? random.uniform(0.5...1.5) : 0) : random.uniform(0.05...0.3)
        let heelWidth = random.uniform(0.015...0.035)
        let braking = running ? random.uniform(0.25...0.5) : random.uniform(0.08...0.2)
        let lateral = running ? random.uniform(0.05...0.12) : random.uniform(0.03...0.08)
        let humpDip = random.uniform(0.3...0.45)
        var vertical = [Double](repeating: 0, count: block.count)
        for (k, contact) in contacts.enumerated() {
            let first = block.frame(contact)
            let last = block.frame(contact + stance)
            let sideSign: Double = k % 2 == 0 ? 1 : -1
            for index in first..<last {
                let s = (Block.time(index) - contact) / stance
                let force =
                    running
                    ? Profiles.halfSine(s) : Profiles.halfSine(s) + humpDip * MotionMath.sin(3 * MotionMath.pi * s)
                vertical[index] += force
                block.trunk[index] +=
                    forward * (-braking * MotionMath.sin(2 * MotionMath.pi * s)) + side
                    * (sideSign * lateral * Profiles.halfSine(s))
            }
        }
        // Scale so the force averages one body weight over the steady strides.
        let from = block.frame(contacts[min(1, contacts.count - 1)])
        let to = block.frame(contacts[contacts.count - 1])
        var mean = 1.0
        if to > from + 10 {
            mean = vertical[from..<to].reduce(0, +) / Double(to - from)
        }
        // The first contact (from standing) is already a full one: the fade-in is the step before it.
        let fadeIn = (contacts[0] - stepTime, contacts[0])
        let fadeOut = (contacts[contacts.count - 1], contacts[contacts.count - 1] + stance)
        for index in 0..<block.count {
            let time = Block.time(index)
            let w =
                MotionMath.smoothstep(fadeIn.0, fadeIn.1, time)
                * (1 - MotionMath.smoothstep(fadeOut.0, fadeOut.1, time))
            let force = vertical[index] / mean
            block.trunk[index] = block.trunk[index] * w
            block.trunk[index].z += w * (force - 1) * vigour
        }
        for contact in contacts where heelPeak > 0 {
            for index in block.frame(contact)..<block.frame(contact + heelWidth) {
                block.trunk[index].z += heelPeak * Profiles.halfSine((Block.time(index) - contact) / heelWidth)
            }
        }
        if arm {
            let amplitude = (running ? random.uniform(0.3...0.5) : random.uniform(0.15...0.35)) * vigour
            let radius = running ? random.uniform(0.3...0.4) : random.uniform(0.55...0.7)
            let phase = random.uniform(-0.3...0.3)
            let angles = (0..<block.count).map { index -> Double in
                let time = Block.time(index)
                let w =
                    MotionMath.smoothstep(contacts[0] - 0.3, contacts[0] + 2 * stepTime, time)
                    * (1 - MotionMath.smoothstep(fadeOut.0 - stepTime, fadeOut.1, time))
                return amplitude * w * MotionMath.sin(MotionMath.pi * (time - contacts[0]) / stepTime + phase)
            }
            addArmSwing(&block, angles: angles, radius: radius, forward: forward)
        }
        addSway(&block, &random)
        block.labels = contacts.map { .step(t: $0) }
        return block
    }
}
