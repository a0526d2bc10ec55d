// SPDX-License-Identifier: GPL-2.0-or-later

/// How hard a 5-s epoch of movement was, as a MET value: chosen by what the athlete did in it
/// (the profile's event rate) from the 2011 Compendium of Physical Activities, or, for an active
/// epoch without the profile's events, the lower bound of the ENMO band's MET class.
/// Docs/METRICS.md lists every code and why.
public struct ActivityIntensity: Hashable, Sendable {
    /// The Compendium code, nil for a band's lower bound.
    public var code: Int?
    /// Metabolic equivalents (1 MET ≈ 3.5 ml O₂/kg/min).
    public var met: Double

    /// Creates a value.
    public init(code: Int?, met: Double) {
        self.code = code
        self.met = met
    }

    /// ENMO intensity bands, mg, for 5-s epochs of the wrist: sedentary below 44.8 (Hildebrand et
    /// al. 2017), moderate from 100.6 and vigorous from 428.8 (Hildebrand et al. 2014, adults,
    /// non-dominant wrist, ActiGraph).
    public enum Band: Int, Comparable, Sendable, CaseIterable {
        case sedentary, light, moderate, vigorous

        /// The lowest ENMO of the light band, mg.
        public static let lightFromMg = 44.8
        /// The lowest ENMO of the moderate band, mg.
        public static let moderateFromMg = 100.6
        /// The lowest ENMO of the vigorous band, mg.
        public static let vigorousFromMg = 428.8

        /// The band of an epoch's mean ENMO in mg.
        public init(enmoMg: Double) {
            self =
                enmoMg >= Self.vigorousFromMg
                ? .vigorous
                : enmoMg >= Self.moderateFromMg ? .moderate : enmoMg >= Self.lightFromMg ? .light : .sedentary
        }

        /// The lower bound of the MET class the band's cut-point was calibrated against.
        public var lowerBoundMet: Double {
            switch self {
            case .sedentary: 0
            case .light: 1.5
            case .moderate: 3
            case .vigorous: 6
            }
        }

        public static func < (lhs: Band, rhs: Band) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Jumps per minute from which jumping counts as rope skipping.
    public static let skippingFromPerMin = 40.0
    /// Steps per minute from which stepping counts as walking.
    public static let walkingFromSpm = 60.0

    /// The intensity of an active epoch of `profile` with `events` of the profile's kind over
    /// `seconds` of recorded time, in `band`. A sedentary epoch has none (0 MET: it is not active).
    public static func of(
        profile: DetectionProfile, events: Int, seconds: Double, band: Band
    ) -> ActivityIntensity {
        guard band > .sedentary else { return ActivityIntensity(code: nil, met: 0) }
        let perMinute = seconds > 0 ? Double(events) * 60 / seconds : 0
        let fallback = ActivityIntensity(code: nil, met: band.lowerBoundMet)
        guard events > 0 else { return fallback }
        switch profile {
        case .tableTennis:
            return ActivityIntensity(code: 15660, met: 4.0)  // table tennis, ping pong
        case .throw:
            return ActivityIntensity(code: 15235, met: 2.5)  // football or baseball, playing catch
        case .jump:
            guard perMinute >= skippingFromPerMin else { return fallback }
            if perMinute >= 120 { return ActivityIntensity(code: 15550, met: 12.3) }  // fast, 120-160/min
            if perMinute >= 100 { return ActivityIntensity(code: 15551, met: 11.8) }  // moderate, 100-120/min
            return ActivityIntensity(code: 15552, met: 8.8)  // slow, < 100 skips/min
        case .steps:
            guard perMinute >= walkingFromSpm else { return fallback }
            if perMinute >= 150 { return ActivityIntensity(code: 12020, met: 7.0) }  // jogging, general
            if perMinute >= 130 { return ActivityIntensity(code: 17220, met: 5.0) }  // walking 4.0 mph
            if perMinute >= 115 { return ActivityIntensity(code: 17200, met: 4.3) }  // walking 3.5 mph
            if perMinute >= 100 { return ActivityIntensity(code: 17190, met: 3.5) }  // walking 2.8-3.2 mph
            return ActivityIntensity(code: 17170, met: 3.0)  // walking 2.5 mph
        }
    }
}
