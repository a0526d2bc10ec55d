// SPDX-License-Identifier: GPL-2.0-or-later

/// One reason to trust a detected event less, as the event record names it (`quality`).
///
/// The raw values are stored and counted (session summaries, exports): they never change; new
/// flags are added at the end. Docs/DETECTION.md ("Quality flags") gives each one's meaning and
/// what it costs in accuracy.
public enum QualityFlag: String, CaseIterable, Hashable, Sendable, Codable {
    /// An axis reached the sensor's ±2 g full scale on the samples that time or size the event: a
    /// hit's peak is a lower bound, a flight edge was located without its clipped samples.
    case clipped
    /// A flight edge was too fast for a line through its samples (fewer than two samples on its
    /// steep part, or the line disagreed with the edge's moments): it was located from the moments
    /// of the changes of |a| instead, a few ms less exact.
    case edgeFallback = "edge_fallback"
    /// The flight's mean |a| came within 80 % of the largest a flight may have (`floor_max_g`): arm
    /// motion or spin nearly hid the free fall, so the flight is less certain to be one.
    case lowFloorMargin = "low_floor_margin"
    /// The samples around the event were further apart than the detector needs for its stated
    /// accuracy (see `QualityFlag.slowestInterval(for:)`).
    case rateTooLow = "rate_too_low"
    /// Samples were missing around the event (an interval over 1.8 times the usual one: lost
    /// notifications), so an edge or peak may fall in the gap.
    case sampleGap = "sample_gap"
    /// A hit's side is not given because the session's strokes contradict the racket hand
    /// (`StrokeSideEstimator`): the hand, the sensor's frame or the side cue is wrong, and a side
    /// would be a guess that could be swapped.
    case sideUnsure = "side_unsure"

    /// The longest sample interval at which events of `kind` keep their documented accuracy, s:
    /// flights need ≥ 40 Hz for centimetre heights, hits ≥ 40 Hz to see a stroke's lobes, steps
    /// ≥ 20 Hz to see a running step's peak.
    public static func slowestInterval(for kind: EventKind) -> Double {
        kind == .step ? 1.0 / 20 : 1.0 / 40
    }
}

/// The quality flags of one event, stored in one byte so detectors carry it without allocating.
public struct EventQuality: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8

    /// A set from its bits.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The set holding `flag`.
    @inlinable public init(_ flag: QualityFlag) {
        rawValue = 1 << UInt8(QualityFlag.allCases.firstIndex(of: flag)!)
    }

    /// The set holding `flags`.
    public init(flags: [QualityFlag]) {
        self.init()
        for flag in flags { insert(EventQuality(flag)) }
    }

    public static let clipped = EventQuality(rawValue: 1 << 0)
    public static let edgeFallback = EventQuality(rawValue: 1 << 1)
    public static let lowFloorMargin = EventQuality(rawValue: 1 << 2)
    public static let rateTooLow = EventQuality(rawValue: 1 << 3)
    public static let sampleGap = EventQuality(rawValue: 1 << 4)
    public static let sideUnsure = EventQuality(rawValue: 1 << 5)

    /// The flags in `QualityFlag.allCases` order (empty for a clean event).
    public var flags: [QualityFlag] {
        QualityFlag.allCases.enumerated().compactMap { index, flag in
            rawValue & (1 << UInt8(index)) != 0 ? flag : nil
        }
    }
}

/// Watches the sample intervals of a stream: the usual interval (a slow average that gaps do not
/// move) and whether the recent samples came too slowly or with a gap. O(1), no allocation.
///
/// An interval within `steadyFraction` of the usual one leaves it as it is. Timestamps jitter in their
/// last bits (t = offset + k/rate rounds differently at every k), so a running mean of every interval
/// never settles and costs a serial subtract-multiply-add per sample; with the dead band a steady
/// stream's mean is fixed and a sample costs two subtractions and a comparison.
@usableFromInline
struct SampleSpacing: Sendable {
    /// The usual sample interval, s (0 until two samples were seen).
    @usableFromInline var usual: Double = 0
    @usableFromInline var lastTime = -Double.infinity
    /// Time of the last gap seen.
    @usableFromInline var lastGap = -Double.infinity
    /// Intervals within this fraction of `usual` do not move it (0.1 %: 10 µs at 100 Hz, far below
    /// anything the flags compare it with, far above the timestamps' rounding).
    @usableFromInline static let steadyFraction = 1e-3

    @inlinable init() {}

    /// Takes the next sample time.
    @inlinable @inline(__always) mutating func observe(_ t: Double) {
        defer { lastTime = t }
        // A steady interval first: one comparison for most samples. It changes nothing below either: it is
        // positive (usual > 0; at usual = 0 only dt = 0 passes, which is skipped), and no gap.
        if abs((t - lastTime) - usual) <= SampleSpacing.steadyFraction * usual { return }
        guard lastTime > -Double.infinity else { return }
        let dt = t - lastTime
        guard dt > 0 else { return }
        if usual == 0 {
            usual = dt
        } else if dt > 1.8 * usual {
            lastGap = t
        } else if abs(dt - usual) > SampleSpacing.steadyFraction * usual {
            usual += 0.02 * (dt - usual)
        }
    }

    /// The flags for an event spanning `start…end` (a gap within `margin` of it counts).
    @inlinable func quality(from start: Double, to end: Double, margin: Double, slowest: Double) -> EventQuality {
        var quality = EventQuality()
        if usual > slowest { quality.insert(.rateTooLow) }
        if lastGap >= start - margin && lastGap <= end + margin { quality.insert(.sampleGap) }
        return quality
    }
}
