// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Detects strokes (table-tennis hits and other hard swings) in any orientation and mounting.
///
/// The stroke signal is the dynamic acceleration |a − g|, g being the gravity vector tracked slowly
/// while |a| is near 1 g, smoothed into an envelope with a short time constant
/// (`envelopeTimeConstant`, so a tap of a few milliseconds on a table stays far below a stroke).
/// The envelope is cut into humps at its local minima; a hump whose envelope reaches `minPeakG` is a
/// candidate stroke, placed at the middle of the stretch where |a| is within `peakBand` of its
/// largest value, its top (at contact the swing's tangential and centripetal acceleration add up; the
/// gravity estimate, frozen while the arm moves, would shift a peak of |a − g|). A clipped top is
/// reported at the middle of its run of samples with an axis above `clipLevelG`: the largest clipped
/// |a| is where the most axes clip, on a long swing before the arc's peak speed.
///
/// On real wrists a stroke is several humps: the swing through contact is the strongest, and a
/// recovery lobe follows 0.3–0.7 s later, in a topspin with |a| near 2 g for a while. Candidates
/// within `mergeWindow` of the first are one stroke, timed by the one with the largest |a|, and no
/// candidate within `mergeWindow` after a reported stroke counts. One player's strokes are ~0.8 s
/// apart or more even in a fast rally. The stroke is reported `mergeWindow` after its first
/// candidate, or once a stronger hump still going on then, its top inside the window, has ended (a
/// back-swing lobe held, the swing through contact outlasting its window).
///
/// Clipping: the sensor saturates at ±2 g per axis. The event's `saturated` flag says so, and
/// `intensityG` extrapolates the clipped peak from the time the largest axis spent above `clipLevelG`
/// and the slopes into and out of that interval (a triangle through both slopes), which keeps ranking
/// strokes whose measured peaks are all the same clipped value.
public struct HitDetector: StreamingDetector {
    /// One hump of the envelope (a candidate stroke), or the stroke held for merging.
    @usableFromInline struct Hump: Sendable {
        /// The middle of the samples near the largest |a|: the stroke's time.
        @usableFromInline var time: Double = 0
        /// The first and last sample near the largest |a|.
        @usableFromInline var topStart: Double = 0
        @usableFromInline var topEnd: Double = 0
        /// The first and last sample of the clipped run (an axis above `clipLevelG`) that holds the
        /// first sample near the largest |a|; NaN when that sample is not clipped.
        @usableFromInline var clipRunStart: Double = .nan
        @usableFromInline var clipRunEnd: Double = .nan
        /// Whether that run is still going on.
        @usableFromInline var clipRunOpen = false
        /// The time of the first hump merged in: where the merge window is measured from.
        @usableFromInline var anchor: Double = 0
        /// Where the side's cues are read: the top of the humps that closed within the window.
        @usableFromInline var sideTime: Double = 0
        /// The window is over and the stroke waits for the hump going on (`holdsBack`).
        @usableFromInline var overdue = false
        /// The envelope's peak, g: what candidates are compared by.
        @usableFromInline var strength: Double = 0
        @usableFromInline var peakMagnitude2: Double = 0
        @usableFromInline var saturated = false
        @usableFromInline var clipEstimate: Double = 0
        /// ∫(|a| − 1 g)₊² dt over the hump's samples, g²·s: the swing's energy (|a|, not |a − g|:
        /// the gravity estimate goes stale while the arm turns slowly between drills).
        @usableFromInline var energy: Double = 0
        /// |a|² at the top and the energy of the hump that times the stroke (`outranks`).
        @usableFromInline var topMagnitude2: Double = 0
        @usableFromInline var topEnergy: Double = 0
        @usableFromInline var start: Double = 0
        @usableFromInline var end: Double = 0
        @usableFromInline init() {}

        /// Takes `other`, a weaker or stronger hump of the same stroke, in.
        @usableFromInline mutating func absorb(_ other: Hump, band: Double) {
            strength = max(strength, other.strength)
            // The side is read where its cues were fitted: at the top with the largest |a|.
            if !overdue && other.peakMagnitude2 > peakMagnitude2 { sideTime = other.time }
            peakMagnitude2 = max(peakMagnitude2, other.peakMagnitude2)
            if other.outranks(self, band: band) {
                topMagnitude2 = other.topMagnitude2
                topEnergy = other.topEnergy
                time = other.time
                clipRunStart = other.clipRunStart
                clipRunEnd = other.clipRunEnd
                clipRunOpen = other.clipRunOpen
            }
            saturated = saturated || other.saturated
            clipEstimate = max(clipEstimate, other.clipEstimate)
            energy += other.energy
            start = min(start, other.start)
            end = max(end, other.end)
        }

        /// Whether this hump's top, not `other`'s, times the stroke they share: the larger |a|, or,
        /// when both tops are clipped and within `band` (a |a|² ratio) of each other, the larger
        /// energy (at the clip, |a| says how many axes clip, not how hard the arm swings).
        @usableFromInline func outranks(_ other: Hump, band: Double) -> Bool {
            let tied =
                !clipRunStart.isNaN && !other.clipRunStart.isNaN && topMagnitude2 <= other.topMagnitude2 * band
                && other.topMagnitude2 <= topMagnitude2 * band
            return tied ? topEnergy > other.topEnergy : topMagnitude2 > other.topMagnitude2
        }
    }

    public let parameters: Parameters
    /// (1 ± `peakBand`)²: |a|² ratios to the hump's largest.
    @usableFromInline let bandLow: Double
    @usableFromInline let bandHigh: Double
    /// `minTopG`²: compared with |a|² at the top.
    @usableFromInline let minTop2: Double
    @usableFromInline var gravity: GravityTracker
    @usableFromInline var envelope: ExponentialSmoother
    @usableFromInline var level: Double = 0
    @usableFromInline var rising = true
    @usableFromInline var lastTime = -Double.infinity
    @usableFromInline var lastX: Double = 0
    @usableFromInline var lastY: Double = 0
    @usableFromInline var lastZ: Double = 0
    @usableFromInline var clipping = false
    @usableFromInline var clipSince: Double = 0
    @usableFromInline var clipSlopeIn: Double = 0
    @usableFromInline var axisBefore: Double = .nan
    @usableFromInline var exitPending = false
    @usableFromInline var exitAxis: Double = 0
    @usableFromInline var exitTime: Double = 0
    /// The first sample of the run of samples with an axis above `clipLevelG` going on, or NaN.
    @usableFromInline var runStart: Double = .nan
    @usableFromInline var hump = Hump()
    @usableFromInline var pending: Hump?
    @usableFromInline var lastReported = -Double.infinity
    @usableFromInline var spacing = SampleSpacing()
    @usableFromInline var sides: StrokeSideEstimator

    /// Creates a detector with `parameters` (the documented defaults when omitted).
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        bandLow = (1 - parameters.peakBand) * (1 - parameters.peakBand)
        bandHigh = (1 + parameters.peakBand) * (1 + parameters.peakBand)
        minTop2 = parameters.minTopG * parameters.minTopG
        gravity = GravityTracker(
            timeConstant: parameters.gravityTimeConstant, quietBand: parameters.gravityQuietBand)
        envelope = ExponentialSmoother(timeConstant: parameters.envelopeTimeConstant)
        sides = StrokeSideEstimator(racketHand: parameters.racketHand)
    }

    /// Consumes a block of samples; appends the events completed in it.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        for sample in block { if let event = process(sample) { events.append(event) } }
    }

    /// Consumes one sample; returns a stroke `mergeWindow` after its time.
    @inlinable mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        let x = sample.x
        let y = sample.y
        let z = sample.z
        let t = sample.t
        sides.record(sample)
        spacing.observe(t)
        let m2 = x * x + y * y + z * z
        let d2 = gravity.dynamicSquared(x: x, y: y, z: z, m2: m2)
        var event: DetectorEvent?
        if let held = pending, t - held.anchor >= parameters.mergeWindow {
            if holdsBack(held, at: t) {
                pending?.overdue = true
            } else {
                pending = nil
                event = report(held)
            }
        }
        guard lastTime > -Double.infinity else {
            level = d2.squareRoot()
            hump.start = t
            remember(t: t, x: x, y: y, z: z)
            gravity.update(x: x, y: y, z: z, m2: m2, interval: 0)
            return event
        }
        let interval = t - lastTime
        let next = level + envelope.factor(interval: interval) * (d2.squareRoot() - level)
        // A local minimum of the envelope ends the hump before it; so does a fall below half of
        // `minPeakG` after a strong hump (a clean stroke followed by stillness has no minimum).
        let faded = hump.strength >= parameters.minPeakG && next < 0.5 * parameters.minPeakG
        let ended = !rising && (next > level || faded)
        if next > level || ended {
            if ended {
                if clipping { closeClip(t: lastTime, slopeOut: 0) }
                if exitPending { closeClip(t: exitTime, slopeOut: 0) }
                if let reported = close(hump), event == nil { event = reported }
                hump = Hump()
                hump.start = lastTime
                clipping = false
                axisBefore = .nan
            }
            rising = true
        } else if next < level {
            rising = false
        }
        level = next
        hump.strength = max(hump.strength, level)
        hump.end = t
        let excess = max(m2.squareRoot() - 1, 0)
        hump.energy += excess * excess * interval
        let axis = max(abs(x), abs(y), abs(z))
        let clipped = axis > parameters.clipLevelG
        if !clipped {
            runStart = .nan
        } else if runStart.isNaN {
            runStart = t
        }
        // The held stroke's clipped run can go on past the end of its hump (the envelope dips inside it).
        if pending?.clipRunOpen == true {
            pending?.clipRunOpen = clipped
            if clipped { pending?.clipRunEnd = t }
        }
        if m2 > hump.peakMagnitude2 * bandHigh {
            hump.topStart = t
            hump.topEnd = t
            hump.peakMagnitude2 = m2
            hump.clipRunStart = runStart
            hump.clipRunEnd = runStart.isNaN ? .nan : t
            hump.clipRunOpen = clipped
        } else {
            if m2 >= hump.peakMagnitude2 * bandLow {
                hump.topEnd = t
                hump.peakMagnitude2 = max(hump.peakMagnitude2, m2)
            }
            if hump.clipRunOpen {
                hump.clipRunOpen = clipped
                if clipped { hump.clipRunEnd = t }
            }
        }
        let previousAxis = max(abs(lastX), abs(lastY), abs(lastZ))
        if clipping || exitPending || clipped || axis >= parameters.saturationG {
            trackClip(t: t, axis: axis, previousAxis: previousAxis)
        } else {
            // No clip open, closing or starting: all `trackClip` would do.
            axisBefore = previousAxis
        }
        gravity.update(x: x, y: y, z: z, m2: m2, interval: interval)
        remember(t: t, x: x, y: y, z: z)
        return event
    }

    /// Ends the stream: reports a stroke still in progress or held for merging.
    public mutating func finish() -> [DetectorEvent] {
        var events: [DetectorEvent] = []
        if clipping { closeClip(t: lastTime, slopeOut: 0) }
        if exitPending { closeClip(t: exitTime, slopeOut: 0) }
        if let event = close(hump) { events.append(event) }
        hump = Hump()
        if let held = pending, let event = report(held) { events.append(event) }
        pending = nil
        return events
    }

    @inlinable mutating func remember(t: Double, x: Double, y: Double, z: Double) {
        lastTime = t
        lastX = x
        lastY = y
        lastZ = z
    }

    /// Whether the held stroke waits past its window for the hump going on: that hump is already a
    /// candidate whose top lies within the window, so it belongs to the held stroke (a back-swing
    /// held, the swing through contact still rising above it). Bounded by a second window.
    @inlinable func holdsBack(_ held: Hump, at t: Double) -> Bool {
        hump.strength >= parameters.minPeakG && hump.peakMagnitude2 > held.peakMagnitude2
            && (hump.topStart + hump.topEnd) / 2 - held.anchor < parameters.mergeWindow
            && t - held.anchor < 2 * parameters.mergeWindow
    }

    /// Ends a hump: a candidate if strong enough, merged with the held one when within
    /// `mergeWindow`; returns the held stroke when this candidate starts the next one.
    @usableFromInline mutating func close(_ candidate: Hump) -> DetectorEvent? {
        guard candidate.strength >= parameters.minPeakG else { return nil }
        var stroke = candidate
        stroke.topMagnitude2 = stroke.peakMagnitude2
        stroke.topEnergy = stroke.energy
        stroke.time = (stroke.topStart + stroke.topEnd) / 2
        stroke.anchor = stroke.time
        stroke.sideTime = stroke.time
        // A lobe within the window after a reported stroke is that stroke's recovery.
        guard stroke.time - lastReported >= parameters.mergeWindow else { return nil }
        guard var held = pending else {
            pending = stroke
            return nil
        }
        if stroke.anchor - held.anchor < parameters.mergeWindow {
            held.absorb(stroke, band: bandHigh)
            pending = held
            return nil
        }
        pending = stroke
        return report(held)
    }

    @usableFromInline mutating func trackClip(t: Double, axis: Double, previousAxis: Double) {
        if axis >= parameters.saturationG { hump.saturated = true }
        let level = parameters.clipLevelG
        let dt = t - lastTime
        // Slopes come from the two unclipped samples on each side of the clip: a clipped sample
        // would flatten them.
        if exitPending {
            exitPending = false
            let slope = dt > 0 ? max((exitAxis - axis) / dt, 0) : 0
            let end = slope > 0 ? exitTime - (level - exitAxis) / slope : exitTime
            closeClip(t: max(end, clipSince), slopeOut: slope)
        }
        if !clipping, axis > level {
            clipping = true
            let slope = dt > 0 && axisBefore.isFinite ? (previousAxis - axisBefore) / dt : 0
            if previousAxis < level && slope > 0 {
                clipSince = min(lastTime + (level - previousAxis) / slope, t)
                clipSlopeIn = slope
            } else {
                clipSince =
                    previousAxis < level ? crossing(t0: lastTime, v0: previousAxis, t1: t, v1: axis, level: level) : t
                clipSlopeIn = dt > 0 ? (axis - previousAxis) / dt : 0
            }
        } else if clipping, axis <= level {
            clipping = false
            exitPending = true
            exitAxis = axis
            exitTime = t
        }
        axisBefore = previousAxis
    }

    @usableFromInline mutating func closeClip(t: Double, slopeOut: Double) {
        clipping = false
        exitPending = false
        let duration = max(t - clipSince, 0)
        let s1 = max(clipSlopeIn, 0)
        let s2 = max(slopeOut, 0)
        let rise = s1 + s2 > 0 ? duration * (s1 > 0 && s2 > 0 ? s1 * s2 / (s1 + s2) : max(s1, s2) / 2) : 0
        hump.clipEstimate = max(hump.clipEstimate, parameters.clipLevelG + rise)
    }

    @usableFromInline mutating func report(_ stroke: Hump) -> DetectorEvent? {
        // Too little swing, or a top too weak, for a stroke: not reported, and it holds back
        // nothing after it.
        guard stroke.energy >= parameters.minSwingEnergy, stroke.peakMagnitude2 >= minTop2 else { return nil }
        lastReported = stroke.time
        let peak = stroke.peakMagnitude2.squareRoot()
        let intensity = stroke.saturated ? max(peak, stroke.clipEstimate) : peak
        // A gap within the merge window may hide a stronger lobe or the stroke's peak.
        var quality = spacing.quality(
            from: stroke.start, to: stroke.end, margin: parameters.mergeWindow,
            slowest: QualityFlag.slowestInterval(for: .hit))
        if stroke.saturated { quality.insert(.clipped) }
        let side = sides.estimate(hitAt: stroke.sideTime)
        if side.unsure { quality.insert(.sideUnsure) }
        // A clipped top is reported at the middle of its clipped run: the largest clipped |a| is where
        // the most axes clip, which depends on how the sensor sits, and on a long swing comes before the
        // arc's peak speed. Merging, spacing and the side stay on the top's middle (Docs/DETECTION.md,
        // "Hits").
        let t =
            stroke.clipRunStart.isNaN
            ? stroke.time : min(max((stroke.clipRunStart + stroke.clipRunEnd) / 2, stroke.start), stroke.end)
        return .hit(
            HitEvent(
                t: t, peakG: peak, saturated: stroke.saturated, intensityG: intensity, quality: quality,
                side: side.side))
    }
}

/// The time at which a signal going from `v0` at `t0` to `v1` at `t1` crosses `level`, linearly
/// interpolated and clamped to the interval.
@inlinable func crossing(t0: Double, v0: Double, t1: Double, v1: Double, level: Double) -> Double {
    let span = v1 - v0
    guard span != 0, t0.isFinite else { return t1 }
    let fraction = min(max((level - v0) / span, 0), 1)
    return t0 + fraction * (t1 - t0)
}
