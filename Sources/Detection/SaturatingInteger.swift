// SPDX-License-Identifier: GPL-2.0-or-later

extension Int {
    /// `value` rounded toward zero, clamped to what an `Int` holds, and 0 for NaN: for figures
    /// computed from stored values (a duration, an epoch number), which must never trap a reader
    /// whatever a row holds.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9.223_372_036_854_775e18 {
            self = .max
        } else if value <= -9.223_372_036_854_775e18 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}

extension Sequence where Element == Int {
    /// The sum, held at `Int.max` / `Int.min` instead of overflowing: for totals of stored counts.
    public var saturatingSum: Int {
        reduce(0) { total, value in
            let (sum, overflow) = total.addingReportingOverflow(value)
            return overflow ? (value > 0 ? .max : .min) : sum
        }
    }
}
