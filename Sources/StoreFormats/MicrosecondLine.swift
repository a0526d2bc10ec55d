// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// A chunk's times as whole microseconds on an integer line: what format 3 keeps when every time
/// is a whole number of microseconds (`StoreTime.microseconds`).
///
/// Both sides compute a sample's line value with the same integer and IEEE-754 operations, and a
/// time is only taken when `Double(microseconds) / 1e6` gives back its exact bits, so decoding
/// returns the recorded `Double` itself. A time half-way between a line in seconds and the next
/// microsecond (the tie the older modes round either way) cannot arise.
struct MicrosecondLine {
    /// Largest magnitude of a microsecond count or line offset: below 2⁵³, where every integer is
    /// a `Double` (about 285 years).
    static let limit: Int64 = 1 << 52

    /// The first sample's time, µs.
    var first: Int64
    /// Microseconds per sample index.
    var step: Double
    /// Each sample's time minus its line value, µs (below 10¹² in magnitude).
    var residuals: [Int64]
    /// True when every residual is zero.
    var isExact: Bool

    /// The line through the first and last sample; nil when a time is not a whole microsecond, or
    /// a value leaves the range the format holds.
    init?(_ samples: [IndexedSample]) {
        guard let firstSample = samples.first, let lastSample = samples.last,
            let first = Self.wholeMicroseconds(firstSample.t), let last = Self.wholeMicroseconds(lastSample.t)
        else { return nil }
        let span = lastSample.index &- firstSample.index
        let step = span > 0 ? Double(last - first) / Double(span) : 0
        var residuals: [Int64] = []
        residuals.reserveCapacity(samples.count)
        var isExact = true
        for sample in samples {
            guard let micro = Self.wholeMicroseconds(sample.t),
                let base = Self.base(first: first, step: step, offset: sample.index &- firstSample.index)
            else { return nil }
            let residual = micro - base
            guard abs(residual) < 1_000_000_000_000 else { return nil }
            if residual != 0 { isExact = false }
            residuals.append(residual)
        }
        self.first = first
        self.step = step
        self.residuals = residuals
        self.isExact = isExact
    }

    /// `t` as a count of microseconds, when `t` is exactly that count divided by 10⁶. −0.0 is not:
    /// an integer count has no sign of zero, and it would come back as +0.0.
    static func wholeMicroseconds(_ t: Double) -> Int64? {
        let micro = (t * 1e6).rounded(.toNearestOrAwayFromZero)
        guard micro.isFinite, abs(micro) <= Double(limit), micro / 1e6 == t, !(t == 0 && t.sign == .minus) else {
            return nil
        }
        return Int64(micro)
    }

    /// The line's value at `offset` indices after the first sample; nil out of range.
    @inline(__always)
    static func base(first: Int64, step: Double, offset: Int64) -> Int64? {
        let along = (Double(offset) * step).rounded(.toNearestOrAwayFromZero)
        guard along.isFinite, abs(along) <= Double(limit) else { return nil }
        return first + Int64(along)
    }
}
