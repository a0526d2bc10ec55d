// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Detects strokes (table-tennis hits and other hard swings) in any orientation and mounting.
///
/// A stroke is a short burst of large dynamic acceleration |a − g|, where g is the gravity vector
/// tracked slowly while the sensor is quiet. A burst starts when |a − g| exceeds `onG` and ends when
/// it has stayed below `offG` for `quietGap`, or when |a| has stayed within 1 ± `stillBand` for
/// `stillGap` (the sensor is still but turned, so frozen gravity no longer fits; the reading becomes
/// gravity). Inside a burst, each run above `onG` is a lobe (back-swing, swing, follow-through); the
/// stroke is timed at the centroid of (|a − g|² − `offG`²) over its most energetic lobe, the swing,
/// whose tangential acceleration and deceleration lie on either side of contact (an integral, so
/// per-axis clipping moves it far less than it moves the largest sample). A lobe more than
/// `strokeSpacing` after the burst's best lobe starts the next stroke: in a fast rally the arm never
/// rests between strokes. Bursts whose times lie within `mergeWindow` of each other are one stroke,
/// reported `mergeWindow` after its time. A stroke must spend `minTimeAboveOn` above `onG` (taps on a
/// table are a few milliseconds of impact) and reach `minPeakG`.
///
/// Clipping: the sensor saturates at ±2 g per axis. The event's `saturated` flag says so, and
/// `intensityG` extrapolates the clipped peak from the time the largest axis spent above `clipLevelG`
/// and the slopes into and out of that interval (a triangle through both slopes), which keeps ranking
/// strokes whose measured peaks are all the same clipped value.
public struct HitDetector: StreamingDetector {
    /// Tunable values, all in seconds and g so they hold at any sample rate.
    public struct Parameters: Hashable, Sendable {
        /// |a − g| that opens a burst, g. Default 1.0.
        public var onG: Double = 1.0
        /// |a − g| under which a burst may end, g. Default 0.5.
        public var offG: Double = 0.5
        /// Smallest peak |a − g| of a stroke, g. Default 1.3.
        public var minPeakG: Double = 1.3
        /// Least time above `onG` for a burst to be a stroke, s. Default 0.035.
        public var minTimeAboveOn: Double = 0.035
        /// Time below `offG` that ends a burst, s. Default 0.08.
        public var quietGap: Double = 0.08
        /// Bursts whose times are closer than this are one stroke; also the reporting delay, s.
        /// Default 0.35 (strokes of one player are at least ~0.5 s apart).
        public var mergeWindow: Double = 0.35
        /// Lobes (runs of |a − g| above `onG`) of one burst whose centroids are further apart than
        /// this belong to different strokes, s. Default 0.5: a stroke's back-swing, swing and
        /// follow-through lobes lie within it, and in a fast rally (0.8–1.5 s between contacts) the arm
        /// never rests, so one burst can hold several strokes.
        public var strokeSpacing: Double = 0.5
        /// Time constant of the gravity tracker, s. Default 0.6.
        public var gravityTimeConstant: Double = 0.6
        /// |a| within 1 ± this is quiet enough to update gravity, g. Default 0.3.
        public var gravityQuietBand: Double = 0.3
        /// |a| within 1 ± this counts as still, whatever the orientation, g. Default 0.15 (calibration
        /// offsets and gains move a still sensor's |a| by up to ~0.1 g with orientation).
        public var stillBand: Double = 0.15
        /// Time |a| must stay within `stillBand` to end a burst even while |a − g| is large, s.
        /// Default 0.15. Gravity is frozen during a burst, so a forearm that ends the burst turned
        /// (arm swing while walking, pronation, a slowly rotating wrist) would otherwise keep |a − g|
        /// above `offG` and the burst open for seconds; the new orientation's reading is then gravity.
        public var stillGap: Double = 0.15
        /// The level above which an axis counts as clipping for the intensity estimate, g. Default 1.9.
        public var clipLevelG: Double = 1.9
        /// An axis at or beyond this is saturated, g. Default 1.999 (full scale is 32767/16384 g).
        public var saturationG: Double = 1.999

        /// The documented defaults.
        public init() {}
    }

    @usableFromInline struct Burst: Sendable {
        @usableFromInline var peakTime: Double = 0
        /// The stroke's reported time (the centroid once the burst has ended).
        @usableFromInline var time: Double = 0
        @usableFromInline var peakDynamic2: Double = 0
        @usableFromInline var peakMagnitude2: Double = 0
        @usableFromInline var timeAboveOn: Double = 0
        @usableFromInline var saturated = false
        @usableFromInline var clipEstimate: Double = 0
        @usableFromInline var clipMidpoint: Double = 0
        @usableFromInline var clipDuration: Double = 0
        /// ∫ w dt and ∫ w·t dt with w = |a − g|² − off², for the stroke's centroid time.
        @usableFromInline var weight: Double = 0
        @usableFromInline var weightedTime: Double = 0
        /// The most energetic lobe so far: its weight and centroid (the stroke's time).
        @usableFromInline var lobeWeight: Double = 0
        @usableFromInline var lobeTime: Double = 0
        @usableFromInline init() {}

        /// The stroke's time: the centroid of its most energetic lobe (the swing, whose lobes of
        /// tangential acceleration and deceleration lie around contact), else of the whole burst.
        @usableFromInline var centroid: Double {
            lobeWeight > 0 ? lobeTime : (weight > 0 ? weightedTime / weight : peakTime)
        }

        @usableFromInline mutating func absorb(_ other: Burst) {
            if other.peakDynamic2 > peakDynamic2 {
                peakTime = other.peakTime
                peakDynamic2 = other.peakDynamic2
            }
            if other.clipDuration > clipDuration {
                clipDuration = other.clipDuration
                clipMidpoint = other.clipMidpoint
            }
            peakMagnitude2 = max(peakMagnitude2, other.peakMagnitude2)
            weight += other.weight
            weightedTime += other.weightedTime
            if other.lobeWeight > lobeWeight {
                lobeWeight = other.lobeWeight
                lobeTime = other.lobeTime
            }
            time = centroid
            timeAboveOn += other.timeAboveOn
            saturated = saturated || other.saturated
            clipEstimate = max(clipEstimate, other.clipEstimate)
        }
    }

    public let parameters: Parameters
    @usableFromInline let on2: Double
    @usableFromInline let off2: Double
    @usableFromInline let minPeak2: Double
    @usableFromInline var gravity: GravityTracker
    @usableFromInline var lastTime = -Double.infinity
    @usableFromInline var lastDynamic2: Double = 0
    @usableFromInline var lastX: Double = 0
    @usableFromInline var lastY: Double = 0
    @usableFromInline var lastZ: Double = 0
    @usableFromInline var inBurst = false
    @usableFromInline var above = false
    @usableFromInline var aboveSince: Double = 0
    @usableFromInline var quietSince: Double = .nan
    @usableFromInline var clipping = false
    @usableFromInline var clipSince: Double = 0
    @usableFromInline var clipSlopeIn: Double = 0
    @usableFromInline var axisBefore: Double = .nan
    @usableFromInline var exitPending = false
    @usableFromInline var exitAxis: Double = 0
    @usableFromInline var exitTime: Double = 0
    @usableFromInline var burst = Burst()
    @usableFromInline var riseWeight: Double = 0
    @usableFromInline var riseWeightedTime: Double = 0
    /// The current lobe (|a − g| above `onG`): weight, weighted time, peak.
    @usableFromInline var lobeWeight: Double = 0
    @usableFromInline var lobeWeightedTime: Double = 0
    @usableFromInline var lobePeak2: Double = 0
    @usableFromInline let stillLow: Double
    @usableFromInline let stillHigh: Double
    @usableFromInline var stillSince: Double = .nan
    @usableFromInline var stillWeight: Double = 0
    @usableFromInline var stillWeightedTime: Double = 0
    @usableFromInline var pending: Burst?
    @usableFromInline var spacing = SampleSpacing()

    /// Creates a detector with `parameters` (the documented defaults when omitted).
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        on2 = parameters.onG * parameters.onG
        off2 = parameters.offG * parameters.offG
        minPeak2 = parameters.minPeakG * parameters.minPeakG
        stillLow = (1 - parameters.stillBand) * (1 - parameters.stillBand)
        stillHigh = (1 + parameters.stillBand) * (1 + parameters.stillBand)
        gravity = GravityTracker(
            timeConstant: parameters.gravityTimeConstant, quietBand: parameters.gravityQuietBand)
    }

    /// Consumes one sample; returns a stroke `mergeWindow` after its peak.
    @inlinable public mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        let x = sample.x
        let y = sample.y
        let z = sample.z
        let t = sample.t
        spacing.observe(t)
        let m2 = x * x + y * y + z * z
        let d2 = gravity.dynamicSquared(x: x, y: y, z: z, m2: m2)
        var event: DetectorEvent?
        if inBurst {
            event = continueBurst(t: t, x: x, y: y, z: z, m2: m2, d2: d2)
        } else {
            let interval = t - lastTime
            if d2 > on2 && lastTime > -Double.infinity {
                startBurst(t: t, x: x, y: y, z: z, m2: m2, d2: d2)
            } else {
                // The rise from `offG` to `onG` belongs to the next burst's timestamp.
                if d2 > off2 && lastTime > -Double.infinity {
                    let w = (d2 - off2) * interval
                    riseWeight += w
                    riseWeightedTime += w * t
                } else {
                    riseWeight = 0
                    riseWeightedTime = 0
                }
                gravity.update(x: x, y: y, z: z, m2: m2, interval: interval)
                if let held = pending, t - held.time >= parameters.mergeWindow {
                    pending = nil
                    event = qualify(held)
                }
            }
        }
        lastTime = t
        lastDynamic2 = d2
        lastX = x
        lastY = y
        lastZ = z
        return event
    }

    /// Ends the stream: reports a stroke still in progress or held for merging.
    public mutating func finish() -> [DetectorEvent] {
        var events: [DetectorEvent] = []
        if inBurst {
            if lobeWeight > 0, let event = closeLobe(t: lastTime) { events.append(event) }
            if above { burst.timeAboveOn += lastTime - aboveSince }
            if clipping { closeClip(t: lastTime, slopeOut: 0) }
            if exitPending { closeClip(t: exitTime, slopeOut: 0) }
            inBurst = false
            if let event = endBurst() { events.append(event) }
        }
        if let held = pending, let event = qualify(held) { events.append(event) }
        pending = nil
        return events
    }

    @usableFromInline mutating func startBurst(t: Double, x: Double, y: Double, z: Double, m2: Double, d2: Double) {
        inBurst = true
        burst = Burst()
        burst.peakTime = t
        burst.peakDynamic2 = d2
        burst.peakMagnitude2 = m2
        burst.weight = riseWeight
        burst.weightedTime = riseWeightedTime
        riseWeight = 0
        riseWeightedTime = 0
        let weight = accumulateWeight(t: t, d2: d2)
        lobeWeight = weight
        lobeWeightedTime = weight * t
        lobePeak2 = d2
        above = true
        aboveSince = crossing(t0: lastTime, v0: lastDynamic2, t1: t, v1: d2, level: on2)
        quietSince = .nan
        stillSince = .nan
        clipping = false
        exitPending = false
        axisBefore = .nan
        let previousAxis = max(abs(lastX), abs(lastY), abs(lastZ))
        trackClip(t: t, axis: max(abs(x), abs(y), abs(z)), previousAxis: previousAxis)
    }

    @usableFromInline mutating func continueBurst(
        t: Double, x: Double, y: Double, z: Double, m2: Double, d2: Double
    ) -> DetectorEvent? {
        if d2 > burst.peakDynamic2 {
            burst.peakDynamic2 = d2
            burst.peakTime = t
        }
        let weight = accumulateWeight(t: t, d2: d2)
        if d2 > on2 {
            if lobeWeight == 0 { lobePeak2 = 0 }
            lobeWeight += weight
            lobeWeightedTime += weight * t
            lobePeak2 = max(lobePeak2, d2)
        } else if lobeWeight > 0, let event = closeLobe(t: t) {
            // A new stroke began in this burst (rare): the rest of this sample's bookkeeping is skipped.
            return event
        }
        if m2 > stillLow && m2 < stillHigh {
            if stillSince.isNaN {
                stillSince = t
                stillWeight = 0
                stillWeightedTime = 0
            }
            stillWeight += weight
            stillWeightedTime += weight * t
            if t - stillSince >= parameters.stillGap {
                return endStill(t: t, x: x, y: y, z: z)
            }
        } else {
            stillSince = .nan
        }
        if m2 > burst.peakMagnitude2 { burst.peakMagnitude2 = m2 }
        trackClip(t: t, axis: max(abs(x), abs(y), abs(z)), previousAxis: max(abs(lastX), abs(lastY), abs(lastZ)))
        if d2 > on2 {
            if !above {
                above = true
                aboveSince = crossing(t0: lastTime, v0: lastDynamic2, t1: t, v1: d2, level: on2)
            }
            quietSince = .nan
            return nil
        }
        if above {
            above = false
            burst.timeAboveOn += crossing(t0: lastTime, v0: lastDynamic2, t1: t, v1: d2, level: on2) - aboveSince
        }
        guard d2 < off2 else {
            quietSince = .nan
            return nil
        }
        if quietSince.isNaN { quietSince = t }
        guard t - quietSince >= parameters.quietGap else { return nil }
        if clipping { closeClip(t: t, slopeOut: 0) }
        if exitPending { closeClip(t: exitTime, slopeOut: 0) }
        inBurst = false
        return endBurst()
    }

    /// Adds the sample's dynamic-acceleration energy above `offG` over the interval since the previous
    /// sample; returns that weight.
    @inlinable @discardableResult mutating func accumulateWeight(t: Double, d2: Double) -> Double {
        let w = max(d2 - off2, 0) * (t - lastTime)
        burst.weight += w
        burst.weightedTime += w * t
        return w
    }

    /// Ends a burst whose sensor has been still (|a| ≈ 1 g) for `stillGap` while frozen gravity says
    /// otherwise: the still stretch's weight leaves the centroid, and the reading becomes gravity.
    @usableFromInline mutating func endStill(t: Double, x: Double, y: Double, z: Double) -> DetectorEvent? {
        burst.weight -= stillWeight
        burst.weightedTime -= stillWeightedTime
        if above {
            above = false
            burst.timeAboveOn += max(stillSince - aboveSince, 0)
        }
        if clipping { closeClip(t: t, slopeOut: 0) }
        if exitPending { closeClip(t: exitTime, slopeOut: 0) }
        inBurst = false
        stillSince = .nan
        lobeWeight = 0
        lobeWeightedTime = 0
        gravity.reset(x: x, y: y, z: z)
        return endBurst()
    }

    /// Ends the current lobe. A lobe more than `strokeSpacing` after the burst's best lobe starts a
    /// new stroke: the burst so far is handed on as one stroke (possibly releasing the held one).
    @usableFromInline mutating func closeLobe(t: Double) -> DetectorEvent? {
        let weight = lobeWeight
        let time = lobeWeightedTime / lobeWeight
        lobeWeight = 0
        lobeWeightedTime = 0
        if burst.lobeWeight == 0 || time - burst.lobeTime < parameters.strokeSpacing {
            if weight > burst.lobeWeight {
                burst.lobeWeight = weight
                burst.lobeTime = time
            }
            return nil
        }
        var next = Burst()
        next.peakTime = time
        next.peakDynamic2 = lobePeak2
        next.lobeWeight = weight
        next.lobeTime = time
        let event = endBurst()
        burst = next
        return event
    }

    @usableFromInline mutating func endBurst() -> DetectorEvent? {
        burst.time = burst.centroid
        guard var held = pending else {
            pending = burst
            return nil
        }
        if burst.time - held.time < parameters.mergeWindow {
            held.absorb(burst)
            pending = held
            return nil
        }
        pending = burst
        return qualify(held)
    }

    @usableFromInline mutating func trackClip(t: Double, axis: Double, previousAxis: Double) {
        if axis >= parameters.saturationG { burst.saturated = true }
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
        let estimate = parameters.clipLevelG + rise
        burst.clipEstimate = max(burst.clipEstimate, estimate)
        if duration > burst.clipDuration {
            burst.clipDuration = duration
            burst.clipMidpoint = clipSince + duration / 2
        }
    }

    @usableFromInline func qualify(_ candidate: Burst) -> DetectorEvent? {
        guard candidate.peakDynamic2 >= minPeak2, candidate.timeAboveOn >= parameters.minTimeAboveOn else {
            return nil
        }
        let peak = candidate.peakMagnitude2.squareRoot()
        let intensity = candidate.saturated ? max(peak, candidate.clipEstimate) : peak
        // A stroke's lobes lie within `strokeSpacing` of its time: a gap there may hide its peak.
        var quality = spacing.quality(
            from: candidate.time, to: candidate.time, margin: parameters.strokeSpacing,
            slowest: QualityFlag.slowestInterval(for: .hit))
        if candidate.saturated { quality.insert(.clipped) }
        return .hit(
            HitEvent(
                t: candidate.time, peakG: peak, saturated: candidate.saturated, intensityG: intensity, quality: quality)
        )
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
