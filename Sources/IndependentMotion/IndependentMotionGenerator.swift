// SPDX-License-Identifier: GPL-2.0-or-later
import SeededRandomness
import VirtualSensor

/// A second, independent motion model for evaluation: the same scripts (and the same `MotionLabel`
/// ground truth) as `MotionGenerator`, built another way.
///
/// `MotionGenerator` composes acceleration shapes per segment and averages them over each sample
/// interval. This model builds movements from forces and kinematics at 1 kHz (`BodyMovements`),
/// carries them to the sensor through the body (second-order filters for the arm's and soft tissue's
/// compliance), turns the sensor with an integrated angular velocity (limb rotation, a thrown
/// sensor's spin, a slowly rotating forearm), and hands the result to a separate sensor front end
/// (`SensorFrontEnd`) with its own non-idealities and output data rate.
public struct IndependentMotionGenerator: Sendable {
    /// The script being played.
    public let script: MotionScript
    /// Where the sensor is worn.
    public let mount: SensorMount
    /// Ground truth so far, s from the start (only when recording labels).
    public private(set) var labels: [MotionLabel] = []
    /// Seconds generated so far.
    public var time: Double { Double(frameIndex) * bodyFrameInterval }

    var random: SplitMix64
    let recordsLabels: Bool
    let vigour: Double
    var queue: [BodyMotionBlock] = []
    var block: BodyMotionBlock
    var blockStartFrame = 0
    var indexInBlock = 0
    var frameIndex = 0
    var rallyLeft = 0
    /// World ← sensor orientation as a unit quaternion (w, x, y, z).
    var orientation: (Double, Double, Double, Double)
    /// Body transfer: trunk acceleration → sensor (arm or soft tissue), a second-order low-pass.
    var transfer: SecondOrderLowPass
    var limbPrevious = Vector3.zero
    var limbBeforePrevious = Vector3.zero
    /// Slow forearm rotation (pronation/supination) about a fixed axis in the sensor frame.
    let forearmAxis: Vector3
    let forearmRotations: [(amplitude: Double, frequency: Double, phase: Double)]
    /// The accelerometer's offset from a hand-held sensor's centre of mass, m (sensor frame).
    let lever: Vector3

    /// Creates a generator for `script` from `seed`; `recordsLabels` keeps the ground truth.
    public init(script: MotionScript, seed: UInt64, recordsLabels: Bool = true) {
        var random = SplitMix64(seed: seed ^ 0x1DE9_E7D3_A11C_0B0D)
        self.script = script
        self.recordsLabels = recordsLabels
        let pick = random.unit()
        switch script {
        case .tableTennis: mount = pick < 0.85 ? .wrist : .hand
        case .jumps: mount = pick < 0.55 ? .wrist : .lowerBack
        case .throwing: mount = .hand
        case .steps: mount = pick < 0.7 ? .wrist : .lowerBack
        case .rest: mount = .wrist
        case .armExercise: mount = pick < 0.8 ? .wrist : .hand
        }
        vigour = random.uniform(0.85...1.15)
        let q = random.rotationQuaternion()
        orientation = q
        switch mount {
        case .lowerBack, .shank:
            transfer = SecondOrderLowPass(
                frequency: random.uniform(12...20), damping: random.uniform(0.35...0.6), interval: bodyFrameInterval)
        case .wrist, .hand:
            transfer = SecondOrderLowPass(
                frequency: random.uniform(8...14), damping: random.uniform(0.3...0.5), interval: bodyFrameInterval)
        }
        forearmAxis = random.direction()
        let slow = mount == .lowerBack ? 0.1 : 1
        forearmRotations = (0..<2).map { _ in
            (random.uniform(0.2...0.8) * slow, random.uniform(0.04...0.25), random.uniform(0...6.28))
        }
        lever = random.direction() * random.uniform(0.005...0.015)
        block = BodyMovements.quiet(&random, duration: 0.5)
        self.random = random
    }

    /// The next 1 kHz frame: the sensor's true specific force in its own frame, g.
    public mutating func nextFrame() -> Vector3 {
        if indexInBlock >= block.count {
            blockStartFrame += block.count
            if queue.isEmpty { planBlocks() }
            block = queue.removeFirst()
            indexInBlock = 0
            if recordsLabels {
                let start = Double(blockStartFrame) * bodyFrameInterval
                labels += block.labels.map { $0.shifted(by: start) }
            }
        }
        let i = indexInBlock
        indexInBlock += 1
        frameIndex += 1
        let dt = bodyFrameInterval
        let trunk = transfer.step(block.trunk[i])
        let limb = block.limb[i]
        let limbAcceleration =
            (limb - limbPrevious * 2 + limbBeforePrevious) * (1 / (dt * dt * metresPerSecondSquaredPerG))
        limbBeforePrevious = limbPrevious
        limbPrevious = limb
        let world =
            block.airborne[i] ? block.direct[i] + .up : trunk + limbAcceleration + block.direct[i] + .up
        // Turn the sensor: world-frame spin, then the slow forearm rotation in the sensor frame.
        var forearmRate = 0.0
        for rotation in forearmRotations {
            let w = 2 * MotionMath.pi * rotation.frequency
            forearmRate += rotation.amplitude * w * MotionMath.cos(w * time + rotation.phase)
        }
        orientation = Quaternion.rotate(orientation, world: block.spin[i] * dt)
        orientation = Quaternion.rotate(orientation, body: forearmAxis * (forearmRate * dt))
        let rotation = Rotation3(quaternion: orientation.0, orientation.1, orientation.2, orientation.3)
        var reading = rotation.applyInverse(world)
        if block.airborne[i] {
            // A spinning free sensor reads the centripetal pull at its accelerometer: −ω×(ω×r).
            let omega = rotation.applyInverse(block.spin[i])
            reading += omega.cross(omega.cross(lever)) * (1 / metresPerSecondSquaredPerG)
        }
        return reading
    }

    mutating func planBlocks() {
        let wristLike = mount == .wrist || mount == .hand
        switch script {
        case .rest:
            queue.append(BodyMovements.quiet(&random, duration: random.uniform(2...6)))
            if random.chance(0.5) { queue.append(BodyMovements.gesture(&random)) }
        case .tableTennis:
            if rallyLeft == 0 {
                queue.append(BodyMovements.quiet(&random, duration: random.uniform(0.8...2.5)))
                let pick = random.unit()
                if pick < 0.25 {
                    queue.append(
                        BodyMovements.gait(
                            &random, steps: Int(random.uniform(3...12)), running: false, arm: true, vigour: vigour))
                } else if pick < 0.5 {
                    queue.append(BodyMovements.ballBouncing(&random))
                } else if pick < 0.8 {
                    queue.append(BodyMovements.gesture(&random))
                } else {
                    queue.append(BodyMovements.tap(&random))
                }
                queue.append(BodyMovements.quiet(&random, duration: random.uniform(0.5...1.5)))
                rallyLeft = Int(random.uniform(3...12))
            }
            queue.append(
                BodyMovements.stroke(&random, interval: random.uniform(0.8...1.5), vigour: vigour))
            rallyLeft -= 1
        case .jumps:
            queue.append(BodyMovements.quiet(&random, duration: random.uniform(0.8...2.5)))
            let pick = random.unit()
            if pick < 0.45 {
                queue.append(
                    BodyMovements.jumps(
                        &random, series: .countermovement, count: 1, arm: wristLike && random.chance(0.7)))
            } else if pick < 0.7 {
                queue.append(
                    BodyMovements.jumps(&random, series: .rebound, count: Int(random.uniform(3...8)), arm: wristLike))
            } else {
                queue.append(
                    BodyMovements.jumps(&random, series: .rope, count: Int(random.uniform(8...25)), arm: wristLike))
            }
            if random.chance(0.5) {
                let distractor = random.unit()
                if distractor < 0.3 {
                    queue.append(
                        BodyMovements.gait(
                            &random, steps: Int(random.uniform(3...10)), running: false, arm: wristLike, vigour: vigour)
                    )
                } else if distractor < 0.65 {
                    queue.append(wristLike ? BodyMovements.gesture(&random) : BodyMovements.squat(&random, arms: false))
                } else {
                    queue.append(BodyMovements.squat(&random, arms: wristLike))
                }
            }
        case .throwing:
            queue.append(BodyMovements.quiet(&random, duration: random.uniform(0.8...2)))
            queue.append(BodyMovements.throwAndCatch(&random))
            if random.chance(0.6) {
                let pick = random.unit()
                if pick < 0.35 {
                    queue.append(BodyMovements.tap(&random))
                } else if pick < 0.7 {
                    queue.append(BodyMovements.smallDrop(&random))
                } else if pick < 0.85 {
                    queue.append(BodyMovements.gesture(&random))
                } else {
                    queue.append(BodyMovements.feintThrow(&random))
                }
            }
        case .steps:
            queue.append(BodyMovements.quiet(&random, duration: random.uniform(1...4)))
            if random.chance(0.6) {
                queue.append(
                    random.chance(0.7) && wristLike ? BodyMovements.gesture(&random) : BodyMovements.tap(&random))
            }
            let running = random.chance(0.35)
            queue.append(
                BodyMovements.gait(
                    &random, steps: Int(random.uniform(12...60)), running: running, arm: wristLike, vigour: vigour))
        case .armExercise:
            queue.append(BodyMovements.quiet(&random, duration: random.uniform(0.5...2)))
            queue.append(BodyMovements.armExercise(&random))
        }
    }
}

/// A second-order low-pass (unity gain at DC) at 1 kHz, integrated semi-implicitly:
/// x'' = ω²(u − x) − 2ζω x'.
struct SecondOrderLowPass: Sendable {
    let omega: Double
    let damping: Double
    let interval: Double
    var position = Vector3.zero
    var velocity = Vector3.zero

    init(frequency: Double, damping: Double, interval: Double) {
        omega = 2 * MotionMath.pi * frequency
        self.damping = damping
        self.interval = interval
    }

    mutating func step(_ input: Vector3) -> Vector3 {
        let acceleration = (input - position) * (omega * omega) - velocity * (2 * damping * omega)
        velocity += acceleration * interval
        position += velocity * interval
        return position
    }
}

/// Unit quaternions (w, x, y, z) for integrating the sensor's orientation.
enum Quaternion {
    typealias Value = (Double, Double, Double, Double)

    static func product(_ a: Value, _ b: Value) -> Value {
        (
            a.0 * b.0 - a.1 * b.1 - a.2 * b.2 - a.3 * b.3,
            a.0 * b.1 + a.1 * b.0 + a.2 * b.3 - a.3 * b.2,
            a.0 * b.2 - a.1 * b.3 + a.2 * b.0 + a.3 * b.1,
            a.0 * b.3 + a.1 * b.2 - a.2 * b.1 + a.3 * b.0
        )
    }

    /// The rotation by the rotation vector `v` (axis × angle, rad).
    static func exponential(_ v: Vector3) -> Value {
        let angle = v.length
        guard angle > 1e-12 else { return (1, 0, 0, 0) }
        let s = MotionMath.sin(angle / 2) / angle
        return (MotionMath.cos(angle / 2), v.x * s, v.y * s, v.z * s)
    }

    static func normalized(_ q: Value) -> Value {
        let n = (q.0 * q.0 + q.1 * q.1 + q.2 * q.2 + q.3 * q.3).squareRoot()
        return (q.0 / n, q.1 / n, q.2 / n, q.3 / n)
    }

    /// `q` turned by a rotation vector given in the world frame.
    static func rotate(_ q: Value, world v: Vector3) -> Value {
        v.length > 0 ? normalized(product(exponential(v), q)) : q
    }

    /// `q` turned by a rotation vector given in the body (sensor) frame.
    static func rotate(_ q: Value, body v: Vector3) -> Value {
        v.length > 0 ? normalized(product(q, exponential(v))) : q
    }
}

extension SplitMix64 {
    /// A uniformly distributed unit quaternion (w, x, y, z), Shoemake's method.
    mutating func rotationQuaternion() -> (Double, Double, Double, Double) {
        let u1 = unit()
        let u2 = unit() * 2 * MotionMath.pi
        let u3 = unit() * 2 * MotionMath.pi
        let a = (1 - u1).squareRoot()
        let b = u1.squareRoot()
        return (b * MotionMath.cos(u3), a * MotionMath.sin(u2), a * MotionMath.cos(u2), b * MotionMath.sin(u3))
    }
}
