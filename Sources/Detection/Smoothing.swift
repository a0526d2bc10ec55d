// SPDX-License-Identifier: GPL-2.0-or-later

/// A first-order low-pass filter with a time constant in seconds, correct at any sample rate:
/// the smoothing factor is recomputed only for a sample interval it has not just seen.
///
/// Two intervals are remembered: timestamps t = offset + k/rate round to two or three neighbouring
/// intervals that alternate, and with one remembered the factor's division ran at nearly every sample.
@usableFromInline
struct ExponentialSmoother: Sendable {
    @usableFromInline let timeConstant: Double
    /// NaN until an interval is seen: equal to none, so every factor is `alpha(interval:)`'s.
    @usableFromInline var lastInterval: Double = .nan
    @usableFromInline var alpha: Double = 1
    @usableFromInline var olderInterval: Double = .nan
    @usableFromInline var olderAlpha: Double = 1

    @inlinable init(timeConstant: Double) {
        self.timeConstant = timeConstant
    }

    /// The weight of a new sample arriving `interval` seconds after the previous one:
    /// dt / (τ + dt), the bilinear-free discretisation of 1 − e^(−dt/τ) good to first order.
    @inlinable @inline(__always) mutating func factor(interval: Double) -> Double {
        let isLast = interval == lastInterval
        if !isLast && interval != olderInterval {
            olderInterval = lastInterval
            olderAlpha = alpha
            lastInterval = interval
            alpha = ExponentialSmoother.alpha(interval: interval, timeConstant: timeConstant)
            return alpha
        }
        return isLast ? alpha : olderAlpha
    }

    /// dt / (τ + dt) for dt = max(`interval`, 0); 1 without a time constant.
    @inlinable static func alpha(interval: Double, timeConstant: Double) -> Double {
        let dt = max(interval, 0)
        return timeConstant > 0 ? dt / (timeConstant + dt) : 1
    }
}

/// Tracks the gravity vector in the sensor's frame by low-pass filtering the readings while the
/// sensor is not accelerating hard, so that a - g (the motion) can be measured in any orientation.
@usableFromInline
struct GravityTracker: Sendable {
    @usableFromInline var x: Double = 0
    @usableFromInline var y: Double = 0
    @usableFromInline var z: Double = 0
    @usableFromInline var initialised = false
    @usableFromInline var smoother: ExponentialSmoother
    /// Squared |a| bounds (g²) inside which a reading is treated as mostly gravity.
    @usableFromInline let quietLow: Double
    @usableFromInline let quietHigh: Double

    @inlinable init(timeConstant: Double, quietBand: Double) {
        smoother = ExponentialSmoother(timeConstant: timeConstant)
        quietLow = (1 - quietBand) * (1 - quietBand)
        quietHigh = (1 + quietBand) * (1 + quietBand)
    }

    /// Updates the estimate with one reading whose squared magnitude is `m2` (g²).
    @inlinable mutating func update(x ax: Double, y ay: Double, z az: Double, m2: Double, interval: Double) {
        if !initialised {
            if m2 > quietLow && m2 < quietHigh {
                x = ax
                y = ay
                z = az
                initialised = true
            }
            return
        }
        guard m2 > quietLow && m2 < quietHigh else { return }
        let k = smoother.factor(interval: interval)
        x += k * (ax - x)
        y += k * (ay - y)
        z += k * (az - z)
    }

    /// Takes the reading (x, y, z) as gravity now (the sensor is known to be still).
    @inlinable mutating func reset(x ax: Double, y ay: Double, z az: Double) {
        x = ax
        y = ay
        z = az
        initialised = true
    }

    /// Squared length of (a − g), in g²; before the first quiet reading, (|a| − 1)² instead.
    @inlinable func dynamicSquared(x ax: Double, y ay: Double, z az: Double, m2: Double) -> Double {
        guard initialised else {
            let m = m2.squareRoot() - 1
            return m * m
        }
        let dx = ax - x
        let dy = ay - y
        let dz = az - z
        return dx * dx + dy * dy + dz * dz
    }
}
