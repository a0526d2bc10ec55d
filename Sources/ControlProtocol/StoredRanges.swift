// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// The range a number must fall in to enter the store, for every entry point (the import route,
/// `sportsensorctl import`, a sample CSV, a btsnoop capture, a recovery file): a value outside it
/// is refused where it enters, naming the field and the range, so no reader of a stored row
/// (a page, a listing, a summary) can overflow on it.
public struct StoredRange<Bound: Comparable & Sendable>: Sendable {
    /// The field's name as the API spells it (`lost_samples`).
    public let field: String
    /// The values allowed.
    public let bounds: ClosedRange<Bound>
    /// How a bound reads in a message.
    fileprivate let describe: @Sendable (Bound) -> String

    init(_ field: String, _ bounds: ClosedRange<Bound>, describe: @escaping @Sendable (Bound) -> String) {
        self.field = field
        self.bounds = bounds
        self.describe = describe
    }

    /// The range as a message states it: `0 to 1000000000000`.
    public var allowed: String { "\(describe(bounds.lowerBound)) to \(describe(bounds.upperBound))" }

    /// What is wrong with `value` for this field, or nil when it is in range; `label` replaces the
    /// field's name (`sample 3's t`).
    public func problem(with value: Bound, label: String? = nil) -> String? {
        guard !bounds.contains(value) else { return nil }
        return "\(label ?? field) is \(describe(value)); it must be \(allowed)"
    }
}

extension StoredRange where Bound == Double {
    /// Also refuses NaN, which no range contains but `contains` cannot say so for.
    public func problem(with value: Double, label: String? = nil) -> String? {
        guard value.isFinite, bounds.contains(value) else {
            return "\(label ?? field) is \(value.isFinite ? describe(value) : "\(value)"); it must be \(allowed)"
        }
        return nil
    }
}

/// The ranges themselves, defined once (Docs/API.md lists them).
public enum StoredRanges {
    /// A count of samples or notifications (received, lost, malformed): 10¹² is 80 years at 400 Hz,
    /// and the sum of any two still fits in 64 bits.
    public static let sampleCount = count("samples")
    /// `lost_samples`.
    public static let lostSamples = count("lost_samples")
    /// `malformed_notifications`.
    public static let malformedNotifications = count("malformed_notifications")
    /// The recovered sample rate, in Hz: the sensors send 25 to 400 Hz; the margin takes a rate
    /// recovered from a short or jittery capture.
    public static let sampleRate = StoredRange("sample_rate", 0.1...10_000.0) { "\(number($0)) Hz" }
    /// A sample's or an event's time, in seconds from the session's start: a week at most. Epoch
    /// seconds (1.7·10⁹) are far past it.
    public static let time = StoredRange("t", 0...604_800.0) { "\(number($0)) s" }
    /// A sample's unwrapped index: whole numbers a JSON number holds exactly.
    public static let sampleIndex = StoredRange<Int64>("index", 0...(1 << 53)) { "\($0)" }
    /// A wall-clock time (`started_at`, `capture_start`): 1970 to 2100.
    public static let wallClock = StoredRange(
        "started_at", Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 4_102_444_800)
    ) { ISO8601DateFormatter().string(from: $0) }

    /// `range` under another field name.
    public static func named<Bound>(_ range: StoredRange<Bound>, _ field: String) -> StoredRange<Bound> {
        StoredRange(field, range.bounds, describe: range.describe)
    }

    private static func count(_ field: String) -> StoredRange<Int64> {
        StoredRange(field, 0...1_000_000_000_000) { "\($0)" }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
