// SPDX-License-Identifier: GPL-2.0-or-later

extension StepDetector {
    /// Tunable values, in seconds and g.
    public struct Parameters: Hashable, Sendable {
        /// Time constant of each of the two smoothing stages, s. Default 0.035 (passes 3.5 steps/s).
        public var smoothingTimeConstant: Double = 0.035
        /// Time constant of the baseline, s. Default 0.8.
        public var baselineTimeConstant: Double = 0.8
        /// Fraction of the recent peak height a peak must exceed. Default 0.35.
        public var hysteresis: Double = 0.35
        /// Smallest peak above the baseline that can be a step, g. Default 0.015: slow or shuffling
        /// walking moves a lower-back sensor by a few hundredths of a g.
        public var minPeakG: Double = 0.015
        /// Shortest step interval, s (300 steps/min). Default 0.2.
        public var minInterval: Double = 0.2
        /// Inside a confirmed bout a peak sooner than this fraction of the bout's step interval after
        /// the last step is not a step. Default 0.6: at a lower back one step can show a second peak
        /// 0.2–0.3 s after it (the other foot's push-off, a knock on the sensor), and no foot lands
        /// again that soon at a steady cadence. 0 turns it off.
        public var minIntervalFraction: Double = 0.6
        /// The cadence-following shortest interval never exceeds this, s. Default 0.35, below every
        /// walking step interval: a bout that locked onto every other step (its interval doubled) still
        /// takes the steps between.
        public var minIntervalCap: Double = 0.35
        /// Intervals in a row that must each hold a refused peak half-way before a confirmed bout's
        /// cadence is doubled (its steps and those peaks are held until then). Default 2: a bout locked
        /// onto every other step shows the skipped step half-way in every stride, a walker's mid-step
        /// trunk peak only now and then. 0 never doubles it; at most 3.
        public var halfCadenceConfirm: Int = 2
        /// The cadence is not doubled when half the bout's step interval would be shorter than this, s.
        /// Default 0 (off). 0.28 (214 steps/min) keeps a trunk peak half-way through every walking step of
        /// a lower-back sensor from counting, but also leaves some fast wrist running at half cadence.
        public var minDoubledInterval: Double = 0
        /// Inside a confirmed bout an interval longer than this many step intervals held steps the
        /// detector did not see: the bout's cadence takes it as that many steps, so a missed step does
        /// not lengthen the shortest interval and refuse the next one. Default 1.6; 0 turns it off.
        public var skippedStepFactor: Double = 1.6
        /// Longest step interval inside a bout, s (30 steps/min). Default 2.0.
        public var maxInterval: Double = 2.0
        /// Neighbouring intervals of a run being confirmed differ by at most this factor. Default 2.5: a
        /// phone in a front pocket alternates short and long steps (0.34 / 0.66 s).
        public var regularity: Double = 2.5
        /// Neighbouring strides (two neighbouring intervals each) of a run being confirmed differ by at most
        /// this factor. Default 1.2: walking repeats its stride whichever foot is faster, a turn lengthens it
        /// by up to a sixth per step, and handling a phone rarely keeps one for `confirmSteps` peaks.
        public var strideRegularity: Double = 1.2
        /// In a confirmed bout a peak that makes a stride (its interval and the last) shorter than twice the
        /// bout's step interval divided by this factor is not a step; one that makes it longer than twice
        /// the interval times this factor ends the bout, and a new one starts from the last step; a regular run
        /// of refused peaks and steps this factor faster re-locks the bout. Default 1.3; 0 turns all three off.
        public var strideTolerance: Double = 1.3
        /// Peaks in a regular run that confirm a bout (all of them are then counted). Default 6 (1–8): a
        /// run shorter than this is not counted.
        public var confirmSteps: Int = 6
        /// When a bout is confirmed, the uncounted peaks just before its run that continue it backwards at its
        /// cadence and stride (as the bout would have taken them) are counted too if each is at least this
        /// fraction of the remembered step height. Default 0.8: a turn or a missed step among a walk's first
        /// steps broke the run, and handling a phone before a walk peaks weaker than the walk. 0 turns it off.
        public var backfillHeight: Double = 0.8
        /// Inside a confirmed bout a peak lower than this fraction of the bout's step height (its steps'
        /// peak heights, smoothed) is not a step; the bout ends when its next step is late. Default 0.2: on
        /// the development walks a reference step peaks that low in 26 of 10 097, while the phone handled
        /// after a walk (put in a pocket or purse, a hand coming to rest) peaks at a tenth to a quarter of the
        /// walk's steps at a walking rhythm. 0 turns it off.
        public var boutHeightFraction: Double = 0.2
        /// Time constant with which the remembered step amplitude fades, s. Default 2: after running
        /// (peaks of ~1 g) a walk (peaks of ~0.1 g) must not stay below a threshold set by the run.
        public var amplitudeMemory: Double = 2.0

        /// The documented defaults.
        public init() {}
    }
}
