// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Tells movement from rest, for auto-start and idle-stop: a sample moves when its |a| differs
/// from the slowly tracked resting |a| by more than `thresholdG`. Tracking the resting level
/// (instead of assuming 1 g) keeps a sensor with a calibration offset from looking busy.
public struct MotionActivity: Hashable, Sendable {
    /// |a| deviation that counts as movement, g.
    public var thresholdG: Double
    /// Time constant of the resting level, s.
    public var timeConstant: Double
    private var level: Double?
    private var lastTime: Double?

    /// A detector with `thresholdG` (default 0.12 g) and a 2 s resting level.
    public init(thresholdG: Double = 0.12, timeConstant: Double = 2) {
        self.thresholdG = thresholdG
        self.timeConstant = timeConstant
    }

    /// Consumes one sample; true when it shows movement.
    public mutating func observe(_ sample: AccelerationSample) -> Bool {
        let magnitude = sample.magnitude
        guard let current = level, let previous = lastTime else {
            level = magnitude
            lastTime = sample.t
            return false
        }
        let dt = max(0, sample.t - previous)
        lastTime = sample.t
        let moving = abs(magnitude - current) > thresholdG
        let alpha = timeConstant > 0 ? min(1, dt / timeConstant) : 1
        level = current + alpha * (magnitude - current)
        return moving
    }
}
