// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// The state machine shared by jumps and throws: ground (or hand) contact, a propulsion that
/// reaches `propulsionG`, a free fall in which |a| stays low, and an impact that ends it.
///
/// Free fall reads |a| ≈ 0 on every axis whatever the orientation; arm motion (wrist-worn) or spin
/// (a thrown sensor reads ω²r towards the spin axis) raise that floor, so the flight needs only
/// |a| < `enterG` to begin, a mean |a| below `floorMaxG`, and ends at the first rise beyond
/// `landG`. Takeoff and landing are located between samples with `EdgeMoments` on the falling edge
/// into free fall and the rising edge out of it.
public struct FlightTracker: Sendable {
    /// Tunable values, in seconds and g.
    public struct Parameters: Hashable, Sendable {
        /// |a| below which free fall may have begun, g.
        public var enterG: Double
        /// |a| that ends a flight (landing or catch), g.
        public var landG: Double
        /// Largest mean |a| over a flight, g (arm motion or spin keep it above 0).
        public var floorMaxG: Double
        /// |a| a propulsion must reach before a flight, g.
        public var propulsionG: Double
        /// The propulsion must be at most this long before free fall begins, s.
        public var propulsionWindow: Double
        /// Shortest flight, s.
        public var minFlight: Double
        /// Longest flight, s.
        public var maxFlight: Double
        /// Only the part of the falling edge below this level locates the takeoff, g.
        public var edgeCapG: Double
        /// Whether only the rising edge's changes from samples below the ±2 g full scale locate the landing
        /// or catch. Above the clip |a| is not the true force, and what rises there is the front end's blur
        /// of an impact's top, not its start; without this the whole rise up to the top counts.
        public var landingBelowClip: Bool
        /// Largest standard deviation of |a| over the flight's floor, g: free fall is flat (a rope's or
        /// a spin's pull is steady too), an arm circling or decelerating dips |a| in a V or a U.
        public var floorSpreadMaxG: Double
        /// Longest rise from `enterG` to `landG` at the end of a flight, s: a landing or a catch is an
        /// impact, an arm swinging down out of a dip is not.
        public var landingRiseMax: Double
        /// Largest standard deviation of |a| over the floor of a flight flagged `low_floor_margin`, g: a
        /// thrown sensor's high floor is its spin's steady pull, an arm's dip to the same level wobbles.
        /// Such a flight is dropped, not flagged.
        public var marginSpreadMaxG: Double

        /// Creates parameters; see each property for its meaning.
        public init(
            enterG: Double, landG: Double, floorMaxG: Double, propulsionG: Double, propulsionWindow: Double,
            minFlight: Double, maxFlight: Double, edgeCapG: Double, floorSpreadMaxG: Double = 10,
            landingRiseMax: Double = 10, marginSpreadMaxG: Double = 10, landingBelowClip: Bool = false
        ) {
            self.enterG = enterG
            self.landG = landG
            self.floorMaxG = floorMaxG
            self.propulsionG = propulsionG
            self.propulsionWindow = propulsionWindow
            self.minFlight = minFlight
            self.maxFlight = maxFlight
            self.edgeCapG = edgeCapG
            self.landingBelowClip = landingBelowClip
            self.floorSpreadMaxG = floorSpreadMaxG
            self.landingRiseMax = landingRiseMax
            self.marginSpreadMaxG = marginSpreadMaxG
        }
    }

    public let parameters: Parameters
    @usableFromInline var lastTime = -Double.infinity
    @usableFromInline var secondLastTime = -Double.infinity
    @usableFromInline var lastMagnitude: Double = 1
    @usableFromInline var lastPropulsion = -Double.infinity
    @usableFromInline var falling = EdgeMoments()
    @usableFromInline var rising = EdgeMoments()
    @usableFromInline var inFlight = false
    @usableFromInline var takeoffFrozen = false
    @usableFromInline var takeoff: Double = 0
    @usableFromInline var flightEntered: Double = 0
    @usableFromInline var floorSum: Double = 0
    @usableFromInline var floorTime: Double = 0
    @usableFromInline var landingSeen = false
    @usableFromInline var lastX: Double = 0
    @usableFromInline var lastY: Double = 0
    @usableFromInline var lastZ: Double = 0
    @usableFromInline var fallingSamples = EdgeSamples()
    @usableFromInline var risingSamples = EdgeSamples()
    /// (count, Σx, Σy, Σz) and Σ|a|² of the flight's floor samples, and of the current rising run's.
    @usableFromInline var floorSums = SIMD4<Double>.zero
    @usableFromInline var floorSquares: Double = 0
    @usableFromInline var pendingSums = SIMD4<Double>.zero
    @usableFromInline var pendingSquares: Double = 0
    @usableFromInline var spacing = SampleSpacing()
    /// Σ|a| of the flight's floor samples and of the current rising run's.
    @usableFromInline var floorMagnitudes: Double = 0
    @usableFromInline var pendingMagnitudes: Double = 0
    /// The last in-flight sample below `enterG` and the one after it (t, |a|): where the landing rise starts.
    @usableFromInline var lowTime: Double = 0
    @usableFromInline var lowMagnitude: Double = 0
    @usableFromInline var afterLowTime: Double = 0
    @usableFromInline var afterLowMagnitude: Double = 0
    @usableFromInline var lowSeen = false
    /// Seconds from `enterG` to `landG` on the landing rise.
    @usableFromInline var landingRise: Double = 0
    /// First sample of the current in-flight run at or above `enterG` (infinity while below it).
    @usableFromInline var supportedSince = Double.infinity
    /// |a|² at and above which |a| reaches `enterG` and `propulsionG` (`squaredLevel(_:)`): the block path
    /// compares |a|² with them and takes no square root between flights.
    @usableFromInline let enterSquared: Double
    @usableFromInline let propulsionSquared: Double

    /// Creates a tracker.
    public init(parameters: Parameters) {
        self.parameters = parameters
        enterSquared = FlightTracker.squaredLevel(parameters.enterG)
        propulsionSquared = FlightTracker.squaredLevel(parameters.propulsionG)
    }

    /// Consumes one sample; returns a completed flight. The block path (`process(_:emit:)`) runs it in
    /// flight and at each sample that may begin one.
    @inlinable mutating func process(_ sample: AccelerationSample) -> FlightEvent? {
        let t = sample.t
        spacing.observe(t)
        let m = sample.magnitude
        defer {
            secondLastTime = lastTime
            lastTime = t
            lastMagnitude = m
            lastX = sample.x
            lastY = sample.y
            lastZ = sample.z
        }
        guard lastTime > -Double.infinity else { return nil }
        let change = m - lastMagnitude
        let current = SIMD4(t, sample.x, sample.y, sample.z)
        if m >= parameters.propulsionG && !inFlight { lastPropulsion = t }
        if !inFlight {
            if change < 0 {
                if m < parameters.edgeCapG { falling.add(change: change, from: lastTime, to: t) }
                if fallingSamples.isEmpty {
                    fallingSamples.append(SIMD4(lastTime, lastX, lastY, lastZ), keepNewest: true)
                }
                fallingSamples.append(current, keepNewest: true)
            } else if !falling.isEmpty || !fallingSamples.isEmpty {
                // Already empty between falling runs, which is most samples: skip the stores.
                falling.reset()
                fallingSamples.removeAll()
            }
            if m < parameters.enterG && t - lastPropulsion <= parameters.propulsionWindow && !falling.isEmpty {
                inFlight = true
                takeoffFrozen = false
                flightEntered = t
                floorSum = 0
                floorTime = 0
                landingSeen = false
                rising.reset()
                risingSamples.removeAll()
                floorSums = .zero
                floorSquares = 0
                pendingSums = .zero
                pendingSquares = 0
                floorMagnitudes = 0
                pendingMagnitudes = 0
                lowTime = t
                lowMagnitude = m
                lowSeen = false
                landingRise = 0
                supportedSince = .infinity
            }
            return nil
        }
        // In flight.
        if !takeoffFrozen {
            if change < 0 {
                falling.add(change: change, from: lastTime, to: t)
                fallingSamples.append(current, keepNewest: true)
            } else {
                takeoffFrozen = true
                takeoff = falling.end
            }
        }
        if !landingSeen {
            floorSum += (m + lastMagnitude) / 2 * (t - lastTime)
            floorTime += t - lastTime
        }
        // The floor vector comes from the flight between its edges: after the falling run into free fall
        // and outside any rising run (held aside until it turns out not to be the landing).
        if takeoffFrozen && !landingSeen && m < parameters.enterG {
            if change > 0 {
                pendingSums += SIMD4(1, sample.x, sample.y, sample.z)
                pendingSquares += m * m
                pendingMagnitudes += m
            } else {
                floorSums += pendingSums + SIMD4(1, sample.x, sample.y, sample.z)
                floorSquares += pendingSquares + m * m
                floorMagnitudes += pendingMagnitudes + m
                pendingSums = .zero
                pendingSquares = 0
                pendingMagnitudes = 0
            }
        }
        if !landingSeen {
            // Out of the free-fall band for longer than any impact's rise without reaching `landG`: the
            // sensor is held (or stood on) again and its impact was lost in a gap or too soft to time, so
            // the flight's end is unknown. Running on to the next impact would report a flight seconds long.
            if m >= parameters.enterG {
                supportedSince = min(supportedSince, t)
                if t - supportedSince >= max(FlightTracker.supportedMax, parameters.landingRiseMax) {
                    abort()
                    return nil
                }
            } else {
                supportedSince = .infinity
            }
            if m < parameters.enterG {
                lowTime = t
                lowMagnitude = m
                lowSeen = false
            } else if !lowSeen {
                lowSeen = true
                afterLowTime = t
                afterLowMagnitude = m
            }
        }
        if change > 0 {
            let previous = SIMD4(lastTime, lastX, lastY, lastZ)
            if !parameters.landingBelowClip || !isClipped(previous) {
                rising.add(change: change, from: lastTime, to: t)
            }
            if risingSamples.isEmpty { risingSamples.append(previous, keepNewest: false) }
            risingSamples.append(current, keepNewest: false)
            if m >= parameters.landG && !landingSeen {
                landingSeen = true
                // Interpolated crossings of `enterG` and `landG`, so the rise is timed finer than a sample.
                let start =
                    lowSeen
                    ? crossing(
                        t0: lowTime, v0: lowMagnitude, t1: afterLowTime, v1: afterLowMagnitude, level: parameters.enterG
                    )
                    : lowTime
                let end = crossing(t0: lastTime, v0: lastMagnitude, t1: t, v1: m, level: parameters.landG)
                landingRise = end - start
            }
        } else if landingSeen {
            return land()
        } else {
            rising.reset()
            risingSamples.removeAll()
            floorSums += pendingSums
            floorSquares += pendingSquares
            floorMagnitudes += pendingMagnitudes
            pendingSums = .zero
            pendingSquares = 0
            pendingMagnitudes = 0
        }
        if t - flightEntered > parameters.maxFlight + 0.5 { abort() }
        return nil
    }

    /// A flight whose mean |a| exceeds this fraction of `floorMaxG` is flagged `low_floor_margin`.
    @usableFromInline static let floorMarginFraction = 0.8

    @usableFromInline mutating func abort() {
        inFlight = false
        takeoffFrozen = false
        landingSeen = false
        falling.reset()
        rising.reset()
        fallingSamples.removeAll()
        risingSamples.removeAll()
    }

    /// The steep part of an edge: r = |a − floor| from this (clear of noise and of the floor's wobble) …
    @usableFromInline static let steepLowG = 0.25
    /// … up to this (below the curved top of a push or a landing), g.
    @usableFromInline static let steepHighG = 2.0
    /// Longest run at or above `enterG` before `landG` while in flight, s: a catch or landing rises through
    /// it within `landingRiseMax` (40 ms); free fall never reads that much for this long.
    @usableFromInline static let supportedMax = 0.1
    /// Longest sample interval across a takeoff or landing edge, s. An edge in a gap is placed at the gap's
    /// middle, wrong by up to half the gap: 0.1 s is 17 cm at a 0.7 s flight (on the development seeds a
    /// release in a 0.33 s gap was 119 ms late, −22 cm); shorter gaps keep the event, flagged `sample_gap`.
    @usableFromInline static let edgeGapMax = 0.2
    /// Least disagreement allowed between the extrapolated edge and the edge moments, s.
    @usableFromInline static let agreementWindow = 0.02

    /// Ends the stream: a flight whose landing rise was still under way is reported.
    public mutating func finish() -> FlightEvent? {
        guard inFlight, landingSeen else {
            abort()
            return nil
        }
        return land()
    }
}

/// Detects jumps (counter-movement, squat, rebound and rope jumps) from any mounting: takeoff and
/// landing times between samples, flight time, and height h = g·t²/8.
public struct JumpDetector: StreamingDetector {
    /// The documented defaults: free fall below 0.75 g with a mean under 0.65 g (arm swing during flight; a
    /// wrist turning a rope at ω ≈ 12 rad/s on a 2–4 cm circle reads ω²r ≈ 0.3–0.6 g throughout the flight),
    /// landing at 1.3 g (soft landings peak near 1.5–2 g), a propulsion of 1.2 g within 1 s, flights of
    /// 0.15–1.3 s (heights 2.8 cm – 2.07 m), and a landing that rises from 0.75 to 1.3 g within 40 ms (an
    /// impact; an arm circling over the top or swung down rises at ~10 g/s, 55 ms or more).
    public static let defaultParameters = FlightTracker.Parameters(
        enterG: 0.75, landG: 1.3, floorMaxG: 0.65, propulsionG: 1.2, propulsionWindow: 1.0,
        minFlight: 0.15, maxFlight: 1.3, edgeCapG: 1.0, landingRiseMax: 0.04
    )

    @usableFromInline var tracker: FlightTracker

    /// Creates a detector with `parameters`.
    public init(parameters: FlightTracker.Parameters = JumpDetector.defaultParameters) {
        tracker = FlightTracker(parameters: parameters)
    }

    /// Consumes a block of samples; appends each jump just after its landing.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        tracker.process(block) { events.append(.jump($0)) }
    }

    /// Ends the stream.
    public mutating func finish() -> [DetectorEvent] {
        tracker.finish().map { [.jump($0)] } ?? []
    }
}

/// Detects throws of the sensor itself (thrown up and caught): release and catch times, flight
/// time and height h = g·t²/8.
public struct ThrowDetector: StreamingDetector {
    /// The documented defaults: free fall below 0.7 g with a mean under 0.65 g (spin of a few rad/s
    /// adds ω²r), a catch at 1.3 g, a throwing push of 1.2 g within 1 s, flights of 0.25–4 s: taps and
    /// small drops (under ~8 cm) never last 0.25 s; a catch rising from 0.7 to 1.3 g within 40 ms; a floor
    /// above 0.52 g (`low_floor_margin`) that wobbles by more than 0.12 g SD is an arm's dip, not a spin; a
    /// catch located by its rise below the clip (a catch is a half-sine of several g that passes the clip
    /// within about a sample: its clipped top made the catch read early behind a delaying front end, and
    /// flights short).
    public static let defaultParameters = FlightTracker.Parameters(
        enterG: 0.7, landG: 1.3, floorMaxG: 0.65, propulsionG: 1.2, propulsionWindow: 1.0,
        minFlight: 0.25, maxFlight: 4.0, edgeCapG: 1.0, landingRiseMax: 0.04, marginSpreadMaxG: 0.12,
        landingBelowClip: true
    )

    @usableFromInline var tracker: FlightTracker

    /// Creates a detector with `parameters`.
    public init(parameters: FlightTracker.Parameters = ThrowDetector.defaultParameters) {
        tracker = FlightTracker(parameters: parameters)
    }

    /// Consumes a block of samples; appends each throw just after its catch.
    @inlinable public mutating func process(
        _ block: UnsafeBufferPointer<AccelerationSample>, into events: inout [DetectorEvent]
    ) {
        tracker.process(block) { events.append(.throw($0)) }
    }

    /// Ends the stream.
    public mutating func finish() -> [DetectorEvent] {
        tracker.finish().map { [.throw($0)] } ?? []
    }
}
