// SPDX-License-Identifier: GPL-2.0-or-later

/// The keys of each profile's detector parameters: how the configuration file names them
/// (`[detection.table-tennis] min_peak_g = 1.5`), how `--set` takes them and how a session stores
/// them. One table, so the three cannot disagree.
public enum DetectionParameterKeys {
    /// A tunable number: its key, whether it is a duration in seconds (else a level in g or a
    /// ratio), and where it lives.
    public struct Field {
        /// The key, snake_case.
        public var key: String
        /// True for a duration in seconds.
        public var isSeconds: Bool
        /// Where the value lives.
        public var path: WritableKeyPath<DetectionParameters, Double>

        /// What is wrong with `value` for this parameter, nil when nothing is.
        public func problem(with value: Double) -> Problem? {
            if value.isFinite, value >= 0, !(isSeconds && value > 3600) { return nil }
            return isSeconds
                ? Problem(message: "bad duration \(value) s", fix: "give seconds between 0 and 3600")
                : Problem(message: "bad value \(value)", fix: "give a number of g of 0 or more")
        }
    }

    /// A tunable whole number.
    public struct IntegerField {
        /// The key, snake_case.
        public var key: String
        /// The values it may take.
        public var range: ClosedRange<Int>
        /// Where the value lives.
        public var path: WritableKeyPath<DetectionParameters, Int>

        /// What is wrong with `value` for this parameter, nil when nothing is.
        public func problem(with value: Int) -> Problem? {
            range.contains(value)
                ? nil
                : Problem(message: "\(value) is out of range", fix: "give \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// Why a value does not fit a parameter, and what to give instead.
    public struct Problem: Hashable, Sendable {
        /// What is wrong (`bad duration 5000.0 s`).
        public var message: String
        /// What to give instead.
        public var fix: String
    }

    /// The profile's numeric parameters, in the order the documentation lists them.
    public static func fields(for profile: DetectionProfile) -> [Field] {
        switch profile {
        case .tableTennis:
            [
                Field(key: "min_peak_g", isSeconds: false, path: \.hit.minPeakG),
                Field(key: "envelope_time_constant", isSeconds: true, path: \.hit.envelopeTimeConstant),
                Field(key: "merge_window", isSeconds: true, path: \.hit.mergeWindow),
                Field(key: "peak_band", isSeconds: false, path: \.hit.peakBand),
                Field(key: "gravity_time_constant", isSeconds: true, path: \.hit.gravityTimeConstant),
                Field(key: "gravity_quiet_band", isSeconds: false, path: \.hit.gravityQuietBand),
                Field(key: "clip_level_g", isSeconds: false, path: \.hit.clipLevelG),
                Field(key: "saturation_g", isSeconds: false, path: \.hit.saturationG),
                Field(key: "min_swing_energy", isSeconds: false, path: \.hit.minSwingEnergy),
                Field(key: "min_top_g", isSeconds: false, path: \.hit.minTopG),
            ]
        case .jump: flightFields(\.jump)
        case .throw: flightFields(\.throw)
        case .steps:
            [
                Field(key: "smoothing_time_constant", isSeconds: true, path: \.step.smoothingTimeConstant),
                Field(key: "baseline_time_constant", isSeconds: true, path: \.step.baselineTimeConstant),
                Field(key: "hysteresis", isSeconds: false, path: \.step.hysteresis),
                Field(key: "min_peak_g", isSeconds: false, path: \.step.minPeakG),
                Field(key: "min_interval", isSeconds: true, path: \.step.minInterval),
                Field(key: "min_interval_fraction", isSeconds: false, path: \.step.minIntervalFraction),
                Field(key: "min_interval_cap", isSeconds: true, path: \.step.minIntervalCap),
                Field(key: "min_doubled_interval", isSeconds: true, path: \.step.minDoubledInterval),
                Field(key: "skipped_step_factor", isSeconds: false, path: \.step.skippedStepFactor),
                Field(key: "max_interval", isSeconds: true, path: \.step.maxInterval),
                Field(key: "regularity", isSeconds: false, path: \.step.regularity),
                Field(key: "stride_regularity", isSeconds: false, path: \.step.strideRegularity),
                Field(key: "stride_tolerance", isSeconds: false, path: \.step.strideTolerance),
                Field(key: "backfill_height", isSeconds: false, path: \.step.backfillHeight),
                Field(key: "bout_height_fraction", isSeconds: false, path: \.step.boutHeightFraction),
                Field(key: "amplitude_memory", isSeconds: true, path: \.step.amplitudeMemory),
            ]
        }
    }

    /// The profile's whole-number parameters.
    public static func integerFields(for profile: DetectionProfile) -> [IntegerField] {
        switch profile {
        case .steps:
            [
                IntegerField(key: "confirm_steps", range: 1...8, path: \.step.confirmSteps),
                IntegerField(
                    key: "half_cadence_confirm", range: 0...StepDetector.halfCadenceConfirmMax,
                    path: \.step.halfCadenceConfirm),
            ]
        case .tableTennis: [IntegerField(key: "racket_hand", range: -1...1, path: \.hit.racketHand)]
        case .jump, .throw: []
        }
    }

    /// Every key of the profile, numbers first.
    public static func keys(for profile: DetectionProfile) -> [String] {
        fields(for: profile).map(\.key) + integerFields(for: profile).map(\.key)
    }

    private static func flightFields(
        _ base: WritableKeyPath<DetectionParameters, FlightTracker.Parameters>
    ) -> [Field] {
        [
            Field(key: "enter_g", isSeconds: false, path: base.appending(path: \.enterG)),
            Field(key: "land_g", isSeconds: false, path: base.appending(path: \.landG)),
            Field(key: "floor_max_g", isSeconds: false, path: base.appending(path: \.floorMaxG)),
            Field(key: "propulsion_g", isSeconds: false, path: base.appending(path: \.propulsionG)),
            Field(key: "propulsion_window", isSeconds: true, path: base.appending(path: \.propulsionWindow)),
            Field(key: "min_flight", isSeconds: true, path: base.appending(path: \.minFlight)),
            Field(key: "max_flight", isSeconds: true, path: base.appending(path: \.maxFlight)),
            Field(key: "edge_cap_g", isSeconds: false, path: base.appending(path: \.edgeCapG)),
            Field(key: "floor_spread_max_g", isSeconds: false, path: base.appending(path: \.floorSpreadMaxG)),
            Field(key: "landing_rise_max", isSeconds: true, path: base.appending(path: \.landingRiseMax)),
            Field(key: "margin_spread_max_g", isSeconds: false, path: base.appending(path: \.marginSpreadMaxG)),
        ]
    }
}
