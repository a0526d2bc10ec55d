// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// What a session measures: the detectors it runs and their parameters.
public enum DetectionProfile: String, CaseIterable, Hashable, Sendable {
    /// Strokes: `HitDetector`.
    case tableTennis = "table-tennis"
    /// Jumps with height: `JumpDetector`.
    case jump
    /// Throws of the sensor with height: `ThrowDetector`.
    case `throw`
    /// Walking and running: `StepDetector`.
    case steps

    /// The kind of event the profile reports.
    public var eventKind: EventKind {
        switch self {
        case .tableTennis: .hit
        case .jump: .jump
        case .throw: .throw
        case .steps: .step
        }
    }
}

/// Per-profile detector parameters, each defaulting to the detector's documented defaults.
public struct DetectionParameters: Hashable, Sendable {
    /// Stroke detection.
    public var hit = HitDetector.Parameters()
    /// Jump detection.
    public var jump = JumpDetector.defaultParameters
    /// Throw detection.
    public var `throw` = ThrowDetector.defaultParameters
    /// Step detection.
    public var step = StepDetector.Parameters()

    /// The documented defaults.
    public init() {}
}

/// Which rules a `ProfileDetector` runs.
public enum DetectionRules: String, CaseIterable, Hashable, Sendable {
    /// This project's detectors.
    case standard
    /// The rules existing apps use (`BaselineHitDetector` and friends), for comparison.
    case baseline
}

/// Runs the detector a profile calls for, with no existential or allocation on the sample path.
public struct ProfileDetector: StreamingDetector {
    /// The profile being run.
    public let profile: DetectionProfile
    /// Standard or baseline rules.
    public let rules: DetectionRules
    @usableFromInline var hits: HitDetector
    @usableFromInline var jumps: JumpDetector
    @usableFromInline var throwsDetector: ThrowDetector
    @usableFromInline var steps: StepDetector
    @usableFromInline var baselineHits = BaselineHitDetector()
    @usableFromInline var baselineJumps = BaselineJumpDetector()
    @usableFromInline var baselineThrows = BaselineThrowDetector()
    @usableFromInline var baselineSteps = BaselineStepDetector()

    /// Creates the detector for `profile`.
    public init(
        profile: DetectionProfile, rules: DetectionRules = .standard, parameters: DetectionParameters = .init()
    ) {
        self.profile = profile
        self.rules = rules
        hits = HitDetector(parameters: parameters.hit)
        jumps = JumpDetector(parameters: parameters.jump)
        throwsDetector = ThrowDetector(parameters: parameters.throw)
        steps = StepDetector(parameters: parameters.step)
    }

    /// Consumes one sample.
    @inlinable public mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        switch (rules, profile) {
        case (.standard, .tableTennis): hits.process(sample)
        case (.standard, .jump): jumps.process(sample)
        case (.standard, .throw): throwsDetector.process(sample)
        case (.standard, .steps): steps.process(sample)
        case (.baseline, .tableTennis): baselineHits.process(sample)
        case (.baseline, .jump): baselineJumps.process(sample)
        case (.baseline, .throw): baselineThrows.process(sample)
        case (.baseline, .steps): baselineSteps.process(sample)
        }
    }

    /// Ends the stream.
    public mutating func finish() -> [DetectorEvent] {
        switch (rules, profile) {
        case (.standard, .tableTennis): hits.finish()
        case (.standard, .jump): jumps.finish()
        case (.standard, .throw): throwsDetector.finish()
        case (.standard, .steps): steps.finish()
        case (.baseline, .tableTennis): baselineHits.finish()
        case (.baseline, .jump): baselineJumps.finish()
        case (.baseline, .throw): baselineThrows.finish()
        case (.baseline, .steps): baselineSteps.finish()
        }
    }
}

/// A live summary of a session's events: counts, peaks, rates, heights, cadence.
public struct ProfileSummary: Hashable, Sendable {
    /// The profile summarised.
    public var profile: DetectionProfile
    /// Events counted.
    public var count = 0
    /// Time of the first and last sample seen, s.
    public var firstTime: Double = .nan
    public var lastTime: Double = .nan
    /// Hits: the last, largest and summed peak |a|, g.
    public var lastPeakG: Double = 0
    public var maxPeakG: Double = 0
    public var peakSumG: Double = 0
    /// Hits: how many strokes clipped, and the largest intensity estimate, g.
    public var saturatedCount = 0
    public var maxIntensityG: Double = 0
    /// Jumps and throws: the best and summed height, m, and the longest flight, s.
    public var bestHeightM: Double = 0
    public var heightSumM: Double = 0
    public var longestFlightS: Double = 0
    /// Steps: the cadence reported with the last step, steps/min.
    public var lastCadence: Double = 0
    /// Steps: time of the first and last step, s.
    public var firstEventTime: Double = .nan
    public var lastEventTime: Double = .nan

    /// An empty summary.
    public init(profile: DetectionProfile) {
        self.profile = profile
    }

    /// Notes that the stream reached time `t` (for the session duration and rates).
    @inlinable public mutating func observe(time t: Double) {
        if firstTime.isNaN { firstTime = t }
        lastTime = t
    }

    /// Adds one event.
    public mutating func add(_ event: DetectorEvent) {
        count += 1
        if firstEventTime.isNaN { firstEventTime = event.time }
        lastEventTime = event.time
        switch event {
        case .hit(let hit):
            lastPeakG = hit.peakG
            maxPeakG = max(maxPeakG, hit.peakG)
            peakSumG += hit.peakG
            maxIntensityG = max(maxIntensityG, hit.intensityG)
            if hit.saturated { saturatedCount += 1 }
        case .jump(let flight), .throw(let flight):
            bestHeightM = max(bestHeightM, flight.height)
            heightSumM += flight.height
            longestFlightS = max(longestFlightS, flight.flightTime)
        case .step(let step):
            lastCadence = step.cadence
        }
    }

    /// Seconds between the first and last sample.
    public var durationS: Double { firstTime.isNaN ? 0 : lastTime - firstTime }
    /// Events per minute of session.
    public var ratePerMinute: Double { durationS > 0 ? Double(count) * 60 / durationS : 0 }
    /// Mean peak |a| of the hits, g.
    public var meanPeakG: Double { count > 0 ? peakSumG / Double(count) : 0 }
    /// Mean height of the jumps or throws, m.
    public var meanHeightM: Double { count > 0 ? heightSumM / Double(count) : 0 }
    /// Mean cadence between the first and last step, steps/min (includes pauses between bouts).
    public var meanCadence: Double {
        count > 1 && lastEventTime > firstEventTime ? Double(count - 1) * 60 / (lastEventTime - firstEventTime) : 0
    }

    /// The summary's fields as (name, value, decimals), in print order; `value` is nil for flags.
    public var fields: [(name: String, value: Double, decimals: Int)] {
        var list: [(name: String, value: Double, decimals: Int)] = [
            ("count", Double(count), 0), ("duration_s", durationS, 3), ("rate_per_min", ratePerMinute, 2),
        ]
        switch profile {
        case .tableTennis:
            list += [
                ("last_peak_g", lastPeakG, 3), ("max_peak_g", maxPeakG, 3), ("mean_peak_g", meanPeakG, 3),
                ("saturated", Double(saturatedCount), 0), ("max_intensity_g", maxIntensityG, 3),
            ]
        case .jump, .throw:
            list += [
                ("best_height_m", bestHeightM, 3), ("mean_height_m", meanHeightM, 3),
                ("longest_flight_s", longestFlightS, 4),
            ]
        case .steps:
            list += [("cadence_spm", lastCadence, 1), ("mean_cadence_spm", meanCadence, 1)]
        }
        return list
    }
}
