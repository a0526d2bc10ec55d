// SPDX-License-Identifier: GPL-2.0-or-later

extension HitDetector {
    /// Tunable values, all in seconds and g so they hold at any sample rate.
    public struct Parameters: Hashable, Sendable {
        /// Smallest envelope peak of a stroke, g. Default 1.3.
        public var minPeakG: Double = 1.3
        /// Time constant of the |a − g| envelope, s. Default 0.03: long enough that a tap of a few
        /// milliseconds stays small, short enough to keep a stroke's 0.1–0.2 s swing whole.
        public var envelopeTimeConstant: Double = 0.03
        /// Candidates within this of the first are one stroke, and none within this after a
        /// reported stroke counts; also the reporting delay, s. Default 0.7: a real stroke's recovery
        /// lobe comes 0.3–0.7 s after contact, and one player's strokes are ~0.8 s apart or more.
        public var mergeWindow: Double = 0.7
        /// Samples whose |a| is within this fraction of the hump's largest time the stroke (their
        /// middle), a ratio. Default 0.03: a clipped plateau is timed at its middle (0.1 moved real
        /// strokes later, and the streaming band is only exact for a narrow one).
        public var peakBand: Double = 0.03
        /// Time constant of the gravity tracker, s. Default 0.6.
        public var gravityTimeConstant: Double = 0.6
        /// |a| within 1 ± this is quiet enough to update gravity, g. Default 0.3.
        public var gravityQuietBand: Double = 0.3
        /// The level above which an axis counts as clipping, for the intensity estimate and the clipped
        /// run a clipped stroke is timed by, g. Default 1.9.
        public var clipLevelG: Double = 1.9
        /// An axis at or beyond this is saturated, g. Default 1.999 (full scale is 32767/16384 g).
        public var saturationG: Double = 1.999
        /// Smallest swing energy of a stroke, ∫(|a| − 1 g)² dt over its candidate humps, g²·s.
        /// Default 0.1: a stroke drives the wrist past 1.5 g for 0.2 s or more (99.5 % of the
        /// development split's matched strokes reach 0.1); a flick of the hand, a ball picked up or
        /// a gesture between drills reaches its peak for a few samples only.
        public var minSwingEnergy: Double = 0.1
        /// Smallest |a| at a stroke's top, g. Default 1.9: at the wrist a real stroke's contact reaches
        /// 2.6 g and more (tt-wrist, before the ±2 g clip, which keeps |a| at 2 g or above), while
        /// bending down for a ball or swinging the arm loose between drills peaks at 1.5–1.9 g.
        public var minTopG: Double = 1.9
        /// The athlete's racket hand: 1 right, −1 left, 0 not known (hits get no side). Sets which way a
        /// swing turning about gravity is the forehand (`StrokeSideEstimator`). Default 0.
        public var racketHand: Int = 0

        /// The documented defaults.
        public init() {}
    }
}
