// SPDX-License-Identifier: GPL-2.0-or-later

/// One reading of the sensor with its place in the stream: the one sample type from the decoder to
/// the store. The decoder stamps it on the host's monotonic clock; the session pipeline moves it
/// to its session's time base (whole microseconds since the session started), which is how the
/// store, imports and exports keep it.
public struct IndexedSample: Hashable, Sendable {
    /// The unwrapped sample counter: strictly increasing over a decoder's lifetime and within a
    /// session, also across gaps, resyncs and reconnects (with gaps where samples were lost), so
    /// later code can reject anything at or below the last index it stored.
    public var index: Int64
    /// Seconds: host monotonic time from the decoder (see `SampleClock`, never decreasing), or
    /// on the session's time base once recorded (see `AccelerationSample.t`).
    public var t: Double
    /// The counts as the sensor sent them.
    public var raw: RawAcceleration

    /// Creates a sample.
    @inlinable public init(index: Int64, t: Double, raw: RawAcceleration) {
        self.index = index
        self.t = t
        self.raw = raw
    }

    /// The reading in g, stamped with `t`.
    @inlinable public var acceleration: AccelerationSample { AccelerationSample(t: t, raw: raw) }
}
