// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import SDUSensor

/// The numbers of one session: load, intensity, energy and the profile's events. The one summary
/// every output carries: `analyze --summary`, the store, `show`, `GET /v1/sessions/{id}/summary`,
/// the `counters` items of the event stream, bests, leaderboards and reports.
///
/// Keys are snake_case with the unit in the name; a number that does not apply (a hit count in a
/// jump session, kcal without a body mass) is nil and written as `null`. Docs/METRICS.md gives
/// every formula and its source. `SessionSummaryAccumulator` computes it from samples and events.
public struct SessionSummary: Hashable, Sendable {
    /// The profile's name (`table-tennis`, `jump`, `throw`, `steps`).
    public var profile: String
    /// First to last sample, s (gaps included).
    public var durationS: Double = 0
    /// Time covered by samples, gaps left out, s.
    public var recordedS: Double = 0
    /// Time moving: 5-s epochs at or above the light-activity band, s.
    public var activeS: Double = 0
    /// Samples seen.
    public var samples: Int = 0
    /// Samples with an axis at the sensor's full scale (±2 g): their |a| is a lower bound.
    public var clippedSamples: Int = 0
    /// Pauses between consecutive samples longer than `SessionSummaryAccumulator.gapS`.
    public var gaps: Int = 0
    /// Σ √(Δx² + Δy² + Δz²) / 100 over consecutive samples, g (arbitrary units in Catapult's terms).
    public var playerload: Double = 0
    /// PlayerLoad per minute of recorded time.
    public var playerloadPerMin: Double?
    /// Mean of max(0, |a| − 1 g) over all samples, mg.
    public var enmoMg: Double?
    /// Mean over 5-s epochs of the mean absolute deviation of |a| from the epoch's mean, mg.
    public var madMg: Double?
    /// Time in 5-s epochs per ENMO band (Hildebrand et al.), s.
    public var sedentaryS: Double = 0
    public var lightS: Double = 0
    public var moderateS: Double = 0
    public var vigorousS: Double = 0
    /// MET-minutes over active epochs (MET from the Compendium code each epoch's activity maps to).
    public var metMin: Double = 0
    /// Active energy, kcal: `metMin` × 3.5 × body mass / 200; nil without a body mass.
    public var kcal: Double?
    /// Why `kcal` is nil.
    public var kcalNote: String?
    /// Table tennis: strokes.
    public var hits: Int?
    public var hitsPerMin: Double?
    public var maxPeakG: Double?
    public var meanPeakG: Double?
    public var lastPeakG: Double?
    public var saturatedHits: Int?
    public var maxIntensityG: Double?
    /// Table tennis, per side (`StrokeSide`): strokes, and the largest measured and estimated peak,
    /// taken as `maxPeakG` and `maxIntensityG` are. Nil when no stroke of the session carried a side
    /// (the detector could not tell); strokes without a side count in `hits` only.
    public var forehandHits: Int?
    public var backhandHits: Int?
    public var forehandMaxPeakG: Double?
    public var backhandMaxPeakG: Double?
    public var forehandMaxIntensityG: Double?
    public var backhandMaxIntensityG: Double?
    /// Jumps.
    public var jumps: Int?
    public var jumpsPerMin: Double?
    public var bestHeightM: Double?
    public var meanHeightM: Double?
    /// Best reactive strength index of repeated jumps: height / preceding ground contact, m/s.
    public var bestRsi: Double?
    /// Throws of the sensor.
    public var `throws`: Int?
    public var bestThrowHeightM: Double?
    /// Steps.
    public var steps: Int?
    /// Steps per minute of stepping (pauses over 2 s between steps left out).
    public var cadenceSpm: Double?
    /// Events carrying at least one quality flag (`EventRecord.quality`): how much to trust the
    /// counts and bests above.
    public var flaggedEvents: Int = 0
    /// Events per quality flag (an event with two flags counts for both); a flag no event carried
    /// is absent.
    public var qualityCounts: [QualityFlag: Int] = [:]

    /// An empty summary of `profile`.
    public init(profile: String) {
        self.profile = profile
    }

    /// Why `kcal` is null when an athlete has no body mass.
    public static let noBodyMassNote =
        "no body mass for the athlete: set it with `sportsensorctl athletes edit NAME --mass-kg KG`"

    /// The same summary with `kcal` for a body mass of `massKg`; nil leaves `kcal` null with `note`.
    public func withBodyMass(_ massKg: Double?, note: String = noBodyMassNote) -> SessionSummary {
        var copy = self
        if let massKg, massKg > 0 {
            copy.kcal = metMin * 3.5 * massKg / 200
            copy.kcalNote = nil
        } else {
            copy.kcal = nil
            copy.kcalNote = note
        }
        return copy
    }

    /// The number a leaderboard ranks by `metric`, nil when the session has none.
    public func value(of metric: SummaryMetric) -> Double? {
        switch metric {
        case .hits: hits.map(Double.init)
        case .maxPeakG: maxPeakG
        case .maxIntensityG: maxIntensityG
        case .jumps: jumps.map(Double.init)
        case .bestHeightM: bestHeightM
        case .bestRsi: bestRsi
        case .throws: `throws`.map(Double.init)
        case .bestThrowHeightM: bestThrowHeightM
        case .steps: steps.map(Double.init)
        case .playerload: playerload
        case .playerloadPerMin: playerloadPerMin
        case .activeS: activeS
        case .kcal: kcal
        }
    }
}

/// What personal bests, leaderboards and targets are kept for: summary keys where more is better.
public enum SummaryMetric: String, CaseIterable, Hashable, Sendable, Codable {
    case hits
    case maxPeakG = "max_peak_g"
    case maxIntensityG = "max_intensity_g"
    case jumps
    case bestHeightM = "best_height_m"
    case bestRsi = "best_rsi"
    case `throws`
    case bestThrowHeightM = "best_throw_height_m"
    case steps
    case playerload
    case playerloadPerMin = "playerload_per_min"
    case activeS = "active_s"
    case kcal

    /// The metric named `name`, or a message listing the names.
    public static func named(_ name: String) -> Result<SummaryMetric, SummaryMetricError> {
        if let metric = SummaryMetric(rawValue: name) { return .success(metric) }
        return .failure(SummaryMetricError(name: name))
    }

    /// Metrics whose value only counts once the session has ended (a count can still grow, but a
    /// best of a live session is already a best).
    public var isCount: Bool {
        switch self {
        case .hits, .jumps, .throws, .steps, .playerload, .activeS, .kcal: true
        default: false
        }
    }
}

/// An unknown metric name.
public struct SummaryMetricError: CodedError, Hashable, Sendable {
    /// The one kind: `unknownMetric`.
    public enum Code: String, NamedCode { case unknownMetric }

    /// The name given.
    public var name: String
    /// `unknownMetric`.
    public var code: Code { .unknownMetric }
    /// What is wrong.
    public var message: String { "unknown metric \(name)" }
    /// The names that work.
    public var fix: String? { "use one of " + SummaryMetric.allCases.map(\.rawValue).joined(separator: ", ") }
}
