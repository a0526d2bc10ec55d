// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Anything that produces the raw accelerometer readings a virtual sensor streams, one sample at a
/// time at the sensor's sample rate.
///
/// Motion scripts (rest, strokes, jumps, throws, walking) conform to this; so does a constant
/// source in tests. The virtual sensor's GATT server pulls `nextSample()` once per sample period
/// and packs the readings into notifications, so a source never sees the radio.
public protocol AccelerationSource: Sendable {
    /// The next reading, as the sensor's ADC would report it (16384 counts per g, clipped to Int16).
    mutating func nextSample() -> RawAcceleration
}

/// A source that repeats one reading forever: the sensor lying still, or a fixed test pattern.
public struct ConstantAccelerationSource: AccelerationSource {
    /// The reading returned for every sample.
    public var reading: RawAcceleration

    /// Creates a source that always returns `reading`.
    public init(_ reading: RawAcceleration) {
        self.reading = reading
    }

    /// Returns `reading`.
    public mutating func nextSample() -> RawAcceleration { reading }
}
