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

    /// Consumes a block of samples.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        switch (rules, profile) {
        case (.standard, .tableTennis): hits.process(block, into: &events)
        case (.standard, .jump): jumps.process(block, into: &events)
        case (.standard, .throw): throwsDetector.process(block, into: &events)
        case (.standard, .steps): steps.process(block, into: &events)
        case (.baseline, .tableTennis): baselineHits.process(block, into: &events)
        case (.baseline, .jump): baselineJumps.process(block, into: &events)
        case (.baseline, .throw): baselineThrows.process(block, into: &events)
        case (.baseline, .steps): baselineSteps.process(block, into: &events)
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
