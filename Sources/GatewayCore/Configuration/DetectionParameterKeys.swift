// SPDX-License-Identifier: GPL-2.0-or-later
import Detection

/// The TOML keys of each profile's detector parameters (`[detection.table-tennis] min_peak_g =
/// 1.5`), and the JSON a session stores them as so detection can be re-run the same way.
enum DetectionParameterKeys {
    /// A tunable number: its key, whether it is a duration in seconds, and where it lives.
    struct Field {
        var key: String
        var isSeconds: Bool
        var path: WritableKeyPath<DetectionParameters, Double>
    }

    /// A tunable whole number.
    struct IntegerField {
        var key: String
        var range: ClosedRange<Int>
        var path: WritableKeyPath<DetectionParameters, Int>
    }

    static func fields(for profile: DetectionProfile) -> [Field] {
        switch profile {
        case .tableTennis:
            [
                Field(key: "on_g", isSeconds: false, path: \.hit.onG),
                Field(key: "off_g", isSeconds: false, path: \.hit.offG),
                Field(key: "min_peak_g", isSeconds: false, path: \.hit.minPeakG),
                Field(key: "min_time_above_on", isSeconds: true, path: \.hit.minTimeAboveOn),
                Field(key: "quiet_gap", isSeconds: true, path: \.hit.quietGap),
                Field(key: "merge_window", isSeconds: true, path: \.hit.mergeWindow),
                Field(key: "stroke_spacing", isSeconds: true, path: \.hit.strokeSpacing),
                Field(key: "still_band", isSeconds: false, path: \.hit.stillBand),
                Field(key: "still_gap", isSeconds: true, path: \.hit.stillGap),
                Field(key: "gravity_time_constant", isSeconds: true, path: \.hit.gravityTimeConstant),
                Field(key: "gravity_quiet_band", isSeconds: false, path: \.hit.gravityQuietBand),
                Field(key: "clip_level_g", isSeconds: false, path: \.hit.clipLevelG),
                Field(key: "saturation_g", isSeconds: false, path: \.hit.saturationG),
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
                Field(key: "max_interval", isSeconds: true, path: \.step.maxInterval),
                Field(key: "regularity", isSeconds: false, path: \.step.regularity),
                Field(key: "amplitude_memory", isSeconds: true, path: \.step.amplitudeMemory),
            ]
        }
    }

    static func integerFields(for profile: DetectionProfile) -> [IntegerField] {
        profile == .steps ? [IntegerField(key: "confirm_steps", range: 1...8, path: \.step.confirmSteps)] : []
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
        ]
    }

    /// The profile's parameters as one JSON object, keys as in the configuration file.
    static func json(for profile: DetectionProfile, _ parameters: DetectionParameters) -> String {
        var members = fields(for: profile).map { "\"\($0.key)\":\(parameters[keyPath: $0.path])" }
        members += integerFields(for: profile).map { "\"\($0.key)\":\(parameters[keyPath: $0.path])" }
        return "{\"profile\":\"\(profile.rawValue)\",\"rules\":\"standard\"," + members.joined(separator: ",") + "}"
    }
}
