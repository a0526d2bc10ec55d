// SPDX-License-Identifier: GPL-2.0-or-later

/// Moments of the sample-to-sample changes of |a| along one monotone edge, from which the edge's
/// start or end is located between samples.
///
/// Each change Δ is placed at the midpoint of its two samples and weighted by |Δ|. Modelling the edge
/// as a ramp of duration R blurred by the sensor's own averaging over one sample interval dt, the
/// weighted mean is the ramp's centre and the weighted variance is (R² + 2·dt²)/12, so the ramp starts
/// at mean − R/2 and ends at mean + R/2. A step (R = 0) is located exactly at its centre whatever the
/// sampling phase, which a threshold crossing cannot do.
@usableFromInline
struct EdgeMoments: Sendable {
    @usableFromInline var weight: Double = 0
    @usableFromInline var first: Double = 0
    @usableFromInline var second: Double = 0
    @usableFromInline var interval: Double = 0
    @usableFromInline var firstTime: Double = 0
    @usableFromInline var lastTime: Double = 0
    /// The longest sample interval among the edge's changes of at least `steepChangeG`, s: lost notifications
    /// can leave the whole edge inside one interval, and then no moment locates it.
    @usableFromInline var widest: Double = 0
    /// A change this large is part of the edge, not the floor's wobble, g.
    @usableFromInline static let steepChangeG = 0.25

    @inlinable init() {}

    @inlinable mutating func reset() {
        weight = 0
        first = 0
        second = 0
        widest = 0
    }

    @inlinable @inline(__always) mutating func add(change: Double, from t0: Double, to t1: Double) {
        let w = abs(change)
        let midpoint = (t0 + t1) / 2
        if weight == 0 {
            firstTime = t0
            first = 0
            second = 0
        }
        let offset = midpoint - firstTime
        weight += w
        first += w * offset
        second += w * offset * offset
        interval = t1 - t0
        if w >= EdgeMoments.steepChangeG { widest = max(widest, t1 - t0) }
        lastTime = t1
    }

    @inlinable var isEmpty: Bool { weight == 0 }

    /// (centre, half the ramp duration) in seconds.
    @inlinable var centreAndHalfWidth: (Double, Double) {
        guard weight > 0 else { return (lastTime, 0) }
        let mean = first / weight
        let variance = max(second / weight - mean * mean, 0)
        let ramp2 = max(12 * variance - 2 * interval * interval, 0)
        let span = lastTime - firstTime
        let half = min(ramp2.squareRoot() / 2, span / 2)
        return (firstTime + mean, half)
    }

    /// The time the edge ends (for a falling edge: when the signal reaches its floor).
    @inlinable var end: Double {
        let (centre, half) = centreAndHalfWidth
        return centre + half
    }

    /// The time the edge starts (for a rising edge: when the signal leaves its floor).
    @inlinable var start: Double {
        let (centre, half) = centreAndHalfWidth
        return centre - half
    }
}
