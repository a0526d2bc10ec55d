// SPDX-License-Identifier: GPL-2.0-or-later

/// One accelerometer reading as the sensor sent it: three signed 16-bit counts.
public struct RawAcceleration: Hashable, Sendable {
    public var x: Int16
    public var y: Int16
    public var z: Int16

    @inlinable public init(x: Int16, y: Int16, z: Int16) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// One accelerometer reading in g, with the time it was taken.
///
/// `t` is in seconds on whatever time base the producer uses: host monotonic time for a live
/// link (after clock recovery), seconds since the first sample for a file.
public struct AccelerationSample: Hashable, Sendable {
    /// Seconds.
    public var t: Double
    /// Acceleration along the sensor's axes, in g.
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable public init(t: Double, x: Double, y: Double, z: Double) {
        self.t = t
        self.x = x
        self.y = y
        self.z = z
    }

    /// Converts raw counts at 16384 LSB/g.
    @inlinable public init(t: Double, raw: RawAcceleration) {
        let scale = 1.0 / 16384.0
        self.init(t: t, x: Double(raw.x) * scale, y: Double(raw.y) * scale, z: Double(raw.z) * scale)
    }

    /// The length of the acceleration vector, in g.
    @inlinable public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }
}
