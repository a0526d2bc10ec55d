// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

// The rules existing apps use, implemented literally so the evaluation can compare against them on
// the same recordings. They assume one orientation (z or y along a particular direction) and
// fixed thresholds; see Docs/DETECTION.md for why they fail.

/// Baseline table-tennis rule: z > 1 g; the value before z starts falling is the hit's peak, at
/// least 0.6 s after the last hit; samples within 0.4 s after a hit are ignored.
public struct BaselineHitDetector: StreamingDetector {
    @usableFromInline var lastHit = -Double.infinity
    @usableFromInline var previous: AccelerationSample?

    /// Creates the baseline detector.
    public init() {}

    /// Consumes a block of samples, one by one.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        for sample in block { if let event = process(sample) { events.append(event) } }
    }

    /// Consumes one sample.
    @inlinable mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        if sample.t - lastHit < 0.4 {
            previous = nil
            return nil
        }
        defer { previous = sample }
        guard let before = previous, before.z > 1, sample.z < before.z, before.t - lastHit >= 0.6 else { return nil }
        lastHit = before.t
        let saturated = max(abs(before.x), abs(before.y), abs(before.z)) >= 1.999
        return .hit(HitEvent(t: before.t, peakG: before.z, saturated: saturated, intensityG: before.z))
    }

    /// Ends the stream (the baseline holds nothing back).
    public mutating func finish() -> [DetectorEvent] { [] }
}

/// Baseline jump rule: wait for |a| > 1.2 g, start the timer when |a| < 0.25 g, stop it at
/// |a| > 2.2 g; h = g·t²/8.
public struct BaselineJumpDetector: StreamingDetector {
    @usableFromInline var armed = false
    @usableFromInline var takeoff: Double?

    /// Creates the baseline detector.
    public init() {}

    /// Consumes a block of samples, one by one.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        for sample in block { if let event = process(sample) { events.append(event) } }
    }

    /// Consumes one sample.
    @inlinable mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        let m2 = sample.x * sample.x + sample.y * sample.y + sample.z * sample.z
        if let start = takeoff {
            guard m2 > 2.2 * 2.2 else { return nil }
            takeoff = nil
            armed = false
            return .jump(FlightEvent(start: start, end: sample.t))
        }
        if !armed {
            armed = m2 > 1.2 * 1.2
        } else if m2 < 0.25 * 0.25 {
            takeoff = sample.t
        }
        return nil
    }

    /// Ends the stream.
    public mutating func finish() -> [DetectorEvent] { [] }
}

/// Baseline throw rule: start when |a| drops by more than 1 g from the previous sample to below
/// 0.4 g, stop when it rises by more than 1 g from one sample to the next; h = ½·g·(t/2)².
public struct BaselineThrowDetector: StreamingDetector {
    @usableFromInline var previous: Double?
    @usableFromInline var release: Double?

    /// Creates the baseline detector.
    public init() {}

    /// Consumes a block of samples, one by one.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        for sample in block { if let event = process(sample) { events.append(event) } }
    }

    /// Consumes one sample.
    @inlinable mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        let m = sample.magnitude
        defer { previous = m }
        guard let before = previous else { return nil }
        if let start = release {
            guard m - before > 1 else { return nil }
            release = nil
            return .throw(FlightEvent(start: start, end: sample.t))
        }
        if before - m > 1 && m < 0.4 { release = sample.t }
        return nil
    }

    /// Ends the stream.
    public mutating func finish() -> [DetectorEvent] { [] }
}

/// Baseline step rule: one step for every 10 Hz sample with |y| > 1.4 g.
public struct BaselineStepDetector: StreamingDetector {
    @usableFromInline var nextTick = -Double.infinity

    /// Creates the baseline detector.
    public init() {}

    /// Consumes a block of samples, one by one.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        for sample in block { if let event = process(sample) { events.append(event) } }
    }

    /// Consumes one sample.
    @inlinable mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        guard sample.t >= nextTick else { return nil }
        nextTick = nextTick == -Double.infinity ? sample.t + 0.1 : max(nextTick + 0.1, sample.t - 0.05)
        guard abs(sample.y) > 1.4 else { return nil }
        return .step(StepEvent(t: sample.t, cadence: 0))
    }

    /// Ends the stream.
    public mutating func finish() -> [DetectorEvent] { [] }
}
