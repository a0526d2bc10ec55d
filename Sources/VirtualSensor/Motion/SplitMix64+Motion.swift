// SPDX-License-Identifier: GPL-2.0-or-later

import SeededRandomness
/// The draws motion scripts make: uniform, Bernoulli, normal, directions and rotations.
extension SplitMix64 {
    /// Uniform in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Approximately standard normal (sum of 12 uniforms, exact mean and variance).
    public mutating func gaussian() -> Double {
        var sum = 0.0
        for _ in 0..<12 { sum += unit() }
        return sum - 6
    }

    /// A uniformly distributed unit vector.
    public mutating func direction() -> Vector3 {
        let z = uniform(-1...1)
        let phi = uniform(0...(2 * MotionMath.pi))
        let r = (1 - z * z).squareRoot()
        return Vector3(r * MotionMath.cos(phi), r * MotionMath.sin(phi), z)
    }

    /// A horizontal unit vector (z = 0).
    public mutating func horizontal() -> Vector3 {
        let phi = uniform(0...(2 * MotionMath.pi))
        return Vector3(MotionMath.cos(phi), MotionMath.sin(phi), 0)
    }

    /// A uniformly distributed rotation (Shoemake's method).
    public mutating func rotation() -> Rotation3 {
        let u1 = unit()
        let u2 = unit() * 2 * MotionMath.pi
        let u3 = unit() * 2 * MotionMath.pi
        let a = (1 - u1).squareRoot()
        let b = u1.squareRoot()
        return Rotation3(
            quaternion: a * MotionMath.sin(u2), a * MotionMath.cos(u2), b * MotionMath.sin(u3), b * MotionMath.cos(u3))
    }
}
