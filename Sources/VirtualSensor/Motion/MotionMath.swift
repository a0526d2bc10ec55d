// SPDX-License-Identifier: GPL-2.0-or-later

/// The few transcendental functions the motion scripts need, written with the standard library
/// alone (so `VirtualSensor` needs neither Foundation nor Glibc) and accurate to about 1e-12.
public enum MotionMath {
    /// π.
    public static let pi = Double.pi

    /// Sine of `x` radians.
    public static func sin(_ x: Double) -> Double {
        guard x.isFinite else { return .nan }
        // Reduce to [-π, π], then to [-π/2, π/2] with sin(π − r) = sin(r).
        let twoPi = 2 * pi
        var r = x - (x / twoPi).rounded() * twoPi
        if r > pi / 2 {
            r = pi - r
        } else if r < -pi / 2 {
            r = -pi - r
        }
        let r2 = r * r
        // Taylor series to r^17: the remainder at π/2 is below 1e-12.
        var term = r
        var sum = r
        var n = 1.0
        for _ in 0..<8 {
            term *= -r2 / ((n + 1) * (n + 2))
            n += 2
            sum += term
        }
        return sum
    }

    /// Cosine of `x` radians.
    public static func cos(_ x: Double) -> Double { sin(x + pi / 2) }

    /// e to the power `x`.
    public static func exp(_ x: Double) -> Double {
        guard x > -700 else { return 0 }
        guard x < 700 else { return .infinity }
        let ln2 = 0.693_147_180_559_945_3
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0
        var sum = 1.0
        for n in 1...14 {
            term *= r / Double(n)
            sum += term
        }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }

    /// 0 below `edge0`, 1 above `edge1`, a smooth cubic in between.
    public static func smoothstep(_ edge0: Double, _ edge1: Double, _ x: Double) -> Double {
        let u = min(max((x - edge0) / (edge1 - edge0), 0), 1)
        return u * u * (3 - 2 * u)
    }
}

/// A 3-vector of doubles.
public struct Vector3: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double

    /// Creates a vector.
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    public static let zero = Vector3(0, 0, 0)
    /// Straight up in the world frame: the specific force of a sensor at rest, in g.
    public static let up = Vector3(0, 0, 1)

    /// Euclidean length.
    public var length: Double { (x * x + y * y + z * z).squareRoot() }
    /// This vector scaled to length 1 (or `up` for the zero vector).
    public var normalized: Vector3 {
        let l = length
        return l > 0 ? self * (1 / l) : .up
    }

    /// Dot product.
    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }
    /// Cross product.
    public func cross(_ o: Vector3) -> Vector3 { Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x) }

    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    public static func += (a: inout Vector3, b: Vector3) { a = a + b }
}

/// A rotation as a 3×3 matrix whose columns are the rotated frame's axes in the outer frame.
public struct Rotation3: Hashable, Sendable {
    public var c0: Vector3
    public var c1: Vector3
    public var c2: Vector3

    /// The identity.
    public static let identity = Rotation3(c0: Vector3(1, 0, 0), c1: Vector3(0, 1, 0), c2: Vector3(0, 0, 1))

    /// Creates a rotation from its columns.
    public init(c0: Vector3, c1: Vector3, c2: Vector3) {
        self.c0 = c0
        self.c1 = c1
        self.c2 = c2
    }

    /// The rotation by `angle` radians about the unit vector `axis` (Rodrigues).
    public init(axis: Vector3, angle: Double) {
        let k = axis.normalized
        let c = MotionMath.cos(angle)
        let s = MotionMath.sin(angle)
        let t = 1 - c
        c0 = Vector3(t * k.x * k.x + c, t * k.x * k.y + s * k.z, t * k.x * k.z - s * k.y)
        c1 = Vector3(t * k.x * k.y - s * k.z, t * k.y * k.y + c, t * k.y * k.z + s * k.x)
        c2 = Vector3(t * k.x * k.z + s * k.y, t * k.y * k.z - s * k.x, t * k.z * k.z + c)
    }

    /// The rotation of the unit quaternion (w, x, y, z).
    public init(quaternion w: Double, _ x: Double, _ y: Double, _ z: Double) {
        c0 = Vector3(1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y))
        c1 = Vector3(2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x))
        c2 = Vector3(2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y))
    }

    /// R·v: a vector given in the rotated frame, expressed in the outer frame.
    public func apply(_ v: Vector3) -> Vector3 { c0 * v.x + c1 * v.y + c2 * v.z }
    /// Rᵀ·v: a vector given in the outer frame, expressed in the rotated frame.
    public func applyInverse(_ v: Vector3) -> Vector3 { Vector3(c0.dot(v), c1.dot(v), c2.dot(v)) }
    /// The composition self·other (apply `other` first).
    public func then(_ other: Rotation3) -> Rotation3 {
        Rotation3(c0: apply(other.c0), c1: apply(other.c1), c2: apply(other.c2))
    }
}

/// Two unit vectors perpendicular to each other and to `normal` (the table-tennis drill's stroke
/// plane, and the independent model's).
package func planeBasis(normal: Vector3) -> (Vector3, Vector3) {
    let n = normal.normalized
    let helper = abs(n.z) < 0.9 ? Vector3(0, 0, 1) : Vector3(1, 0, 0)
    let u = helper.cross(n).normalized
    return (u, n.cross(u))
}
