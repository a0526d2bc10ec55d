// SPDX-License-Identifier: GPL-2.0-or-later
import SeededRandomness
import VirtualSensor

/// Throws: the sensor pushed up from the hand, in free flight, and caught.
extension BodyMovements {
    /// The hand dips, pushes up (acceleration A·sin(πx/T)) and decelerates along the same sine: the
    /// sensor leaves the palm when the hand decelerates faster than g (the contact force reaches zero). It flies
    /// freely with a spin of 0.5–6 rad/s and is caught 0.15 m below to 0.05 m above the release
    /// point by a contact force that takes up its weight and stops it within 0.08–0.25 s.
    static func throwAndCatch(_ random: inout SplitMix64) -> Block {
        let g = metresPerSecondSquaredPerG
        let lead = random.uniform(0.3...0.6)
        let dipTime = random.uniform(0.25...0.4)
        // A preparatory dip gentler than gravity (≤ 0.6 g: 5.77·depth/T² for minimum jerk).
        let dipDepth = min(random.uniform(0.05...0.15), 0.6 * g * dipTime * dipTime / 5.77)
        let target = random.uniform(1.5...4.8)
        // The hand's upward acceleration is A·sin(πx/T): it pushes for T, then decelerates smoothly;
        // the sensor leaves the palm where A·sin(πx/T) = −g (needs A > g, so T ≤ v·π/3g).
        let pushTime = min(random.uniform(0.12...0.25), target * MotionMath.pi / (3 * g))
        var amplitude = target * MotionMath.pi / (2 * pushTime)
        for _ in 0..<30 {
            let c = max(1 - (g / amplitude) * (g / amplitude), 0).squareRoot()
            amplitude = target * MotionMath.pi / (pushTime * (1 + c))
        }
        var low = pushTime
        var high = 1.5 * pushTime
        for _ in 0..<60 {
            let mid = (low + high) / 2
            if amplitude * MotionMath.sin(MotionMath.pi * mid / pushTime) > -g { low = mid } else { high = mid }
        }
        let releaseAfter = (low + high) / 2
        let releaseSpeed =
            amplitude * pushTime / MotionMath.pi * (1 - MotionMath.cos(MotionMath.pi * releaseAfter / pushTime))
        let forwardSpeed = 2 * amplitude * pushTime / MotionMath.pi
        let catchHeight = random.uniform(-0.15...0.05)
        let flight = (releaseSpeed + (releaseSpeed * releaseSpeed - 2 * g * catchHeight).squareRoot()) / g
        let catchSpeed = g * flight - releaseSpeed
        let catchTime = random.uniform(0.08...0.25)
        let after = random.uniform(0.6...1)
        let release = lead + dipTime + releaseAfter
        let caught = release + flight
        var block = Block(duration: caught + catchTime + after)
        let spinAxis = random.direction()
        let spinRate = random.uniform(0.5...6)
        let forward = heading(&random) * random.uniform(0...0.15)
        for index in 0..<block.count {
            let t = Block.time(index)
            var accel = 0.0  // the hand's (and sensor's) vertical acceleration, m/s²
            if t >= lead && t < lead + dipTime {
                let u = (t - lead) / dipTime
                accel = -dipDepth / (dipTime * dipTime) * (60 * u - 180 * u * u + 120 * u * u * u)
            } else if t >= lead + dipTime && t < release {
                accel = amplitude * MotionMath.sin(MotionMath.pi * (t - lead - dipTime) / pushTime)
            }
            if t < release {
                // The push also carries the hand forward; the deceleration to release is vertical, so
                // the contact force reaches zero on every axis at once.
                let ahead = accel > 0 && t < lead + dipTime + pushTime ? forward * (accel / g) : .zero
                block.direct[index] = Vector3.up * (accel / g) + ahead
                let spinUp = MotionMath.smoothstep(release - 0.05, release, t)
                block.spin[index] = spinAxis * (spinRate * spinUp)
            } else if t < caught {
                block.direct[index] = Vector3(0, 0, -1)
                block.spin[index] = spinAxis * spinRate
                block.airborne[index] = true
            } else if t < caught + catchTime {
                block.spin[index] = spinAxis * (spinRate * (1 - MotionMath.smoothstep(caught, caught + 0.03, t)))
            }
        }
        // The catch: contact force (BW of the sensor) = weight taken up + a half-sine stopping it.
        let needed = catchSpeed / g
        let level = (needed + catchTime / 2) / (catchTime * 2 / MotionMath.pi)
        // The forward speed the push gave (2AT/π·|forward|) is taken up by the same half-sine.
        let horizontal = forwardSpeed / g / (catchTime * 2 / MotionMath.pi)
        for index in block.frame(caught)..<block.frame(caught + catchTime) {
            let s = (Block.time(index) - caught) / catchTime
            let force = MotionMath.smoothstep(0, 1, s) + level * Profiles.halfSine(s)
            block.direct[index] = Vector3.up * (force - 1) + forward * (-horizontal * Profiles.halfSine(s))
        }
        // The hand settles back down afterwards.
        let lower = random.uniform(0.05...0.15)
        let settle = caught + catchTime
        for index in block.frame(settle)..<block.count {
            let t = Block.time(index) - settle
            let duration = after - 0.1
            guard t < duration else { break }
            let u = t / duration
            block.direct[index].z += -lower / (duration * duration) * (60 * u - 180 * u * u + 120 * u * u * u) / g
        }
        block.labels = [.throw(release: release, catch: caught)]
        return block
    }

    /// A small drop: the hand opens (the contact force falls to zero in 10–25 ms), the sensor falls
    /// for 0.04–0.13 s and lands in the other hand or on a table (an impact stopping it in 20–60 ms).
    static func smallDrop(_ random: inout SplitMix64) -> Block {
        let lead = random.uniform(0.2...0.4)
        let open = random.uniform(0.01...0.025)
        let fall = random.uniform(0.04...0.13)
        let stop = random.uniform(0.02...0.06)
        var block = Block(duration: lead + open + fall + stop + 0.5)
        let speed = metresPerSecondSquaredPerG * (fall + open / 2)
        let level = (speed / metresPerSecondSquaredPerG + stop / 2) / (stop * 2 / MotionMath.pi)
        for index in 0..<block.count {
            let t = Block.time(index)
            var force = 1.0
            if t >= lead && t < lead + open {
                force = 1 - (t - lead) / open
            } else if t >= lead + open && t < lead + open + fall {
                force = 0
                block.airborne[index] = true
            } else if t >= lead + open + fall && t < lead + open + fall + stop {
                let s = (t - lead - open - fall) / stop
                force = MotionMath.smoothstep(0, 1, s) + level * Profiles.halfSine(s)
            }
            block.direct[index] = Vector3(0, 0, force - 1)
        }
        return block
    }

    /// A throwing motion that keeps the sensor gripped: the hand moves up 0.1–0.25 m and back.
    static func feintThrow(_ random: inout SplitMix64) -> Block {
        let up = random.uniform(0.5...0.7)
        let down = random.uniform(0.5...0.7)
        // Up to 0.25 m in ≥ 0.5 s: the hand never pulls the sensor down faster than ~0.6 g (a hand
        // that did would put the gripped sensor in free fall: no accelerometer tells that from a throw).
        let height = random.uniform(0.1...0.25)
        var block = Block(duration: up + down + 0.3)
        for index in 0..<block.count {
            let t = Block.time(index)
            let s = t < up ? Profiles.minimumJerk(t / up) : 1 - Profiles.minimumJerk((t - up) / down)
            block.limb[index] = Vector3(0, 0, height * s)
        }
        return block
    }
}
