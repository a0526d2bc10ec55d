// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Moments of the sample-to-sample changes of |a| along one monotone edge, from which the edge's
/// start or end is located between samples.
///
/// Each change Δ is placed at the midpoint of its two samples and weighted by |Δ|. Modelling the edge
/// as a ramp of duration R blurred by the sensor's own averaging over one sample interval dt, the
/// weighted mean is the ramp's centre and the weighted variance is (R² + 2·dt²)/12, so the ramp starts
/// at mean − R/2 and ends at mean + R/2. A step (R = 0) is located exactly at its centre whatever the
/// sampling phase, which a threshold crossing cannot do.
@usableFromInline
struct EdgeMoments: Sendable {
    @usableFromInline var weight: Double = 0
    @usableFromInline var first: Double = 0
    @usableFromInline var second: Double = 0
    @usableFromInline var interval: Double = 0
    @usableFromInline var firstTime: Double = 0
    @usableFromInline var lastTime: Double = 0

    @inlinable init() {}

    @inlinable mutating func reset() {
        weight = 0
        first = 0
        second = 0
    }

    @inlinable mutating func add(change: Double, from t0: Double, to t1: Double) {
        let w = abs(change)
        let midpoint = (t0 + t1) / 2
        if weight == 0 {
            firstTime = t0
            first = 0
            second = 0
        }
        let offset = midpoint - firstTime
        weight += w
        first += w * offset
        second += w * offset * offset
        interval = t1 - t0
        lastTime = t1
    }

    @inlinable var isEmpty: Bool { weight == 0 }

    /// (centre, half the ramp duration) in seconds.
    @inlinable var centreAndHalfWidth: (Double, Double) {
        guard weight > 0 else { return (lastTime, 0) }
        let mean = first / weight
        let variance = max(second / weight - mean * mean, 0)
        let ramp2 = max(12 * variance - 2 * interval * interval, 0)
        let span = lastTime - firstTime
        let half = min(ramp2.squareRoot() / 2, span / 2)
        return (firstTime + mean, half)
    }

    /// The time the edge ends (for a falling edge: when the signal reaches its floor).
    @inlinable var end: Double {
        let (centre, half) = centreAndHalfWidth
        return centre + half
    }

    /// The time the edge starts (for a rising edge: when the signal leaves its floor).
    @inlinable var start: Double {
        let (centre, half) = centreAndHalfWidth
        return centre - half
    }
}

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

        /// Creates parameters; see each property for its meaning.
        public init(
            enterG: Double, landG: Double, floorMaxG: Double, propulsionG: Double, propulsionWindow: Double,
            minFlight: Double, maxFlight: Double, edgeCapG: Double
        ) {
            self.enterG = enterG
            self.landG = landG
            self.floorMaxG = floorMaxG
            self.propulsionG = propulsionG
            self.propulsionWindow = propulsionWindow
            self.minFlight = minFlight
            self.maxFlight = maxFlight
            self.edgeCapG = edgeCapG
        }
    }

    public let parameters: Parameters
    @usableFromInline var lastTime = -Double.infinity
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

    /// Creates a tracker.
    public init(parameters: Parameters) {
        self.parameters = parameters
    }

    /// Consumes one sample; returns a completed flight.
    @inlinable public mutating func process(_ sample: AccelerationSample) -> FlightEvent? {
        let t = sample.t
        let m = sample.magnitude
        defer {
            lastTime = t
            lastMagnitude = m
        }
        guard lastTime > -Double.infinity else { return nil }
        let change = m - lastMagnitude
        if m >= parameters.propulsionG && !inFlight { lastPropulsion = t }
        if !inFlight {
            if change < 0 {
                if m < parameters.edgeCapG { falling.add(change: change, from: lastTime, to: t) }
            } else {
                falling.reset()
            }
            if m < parameters.enterG && t - lastPropulsion <= parameters.propulsionWindow && !falling.isEmpty {
                inFlight = true
                takeoffFrozen = false
                flightEntered = t
                floorSum = 0
                floorTime = 0
                landingSeen = false
                rising.reset()
            }
            return nil
        }
        // In flight.
        if !takeoffFrozen {
            if change < 0 {
                falling.add(change: change, from: lastTime, to: t)
            } else {
                takeoffFrozen = true
                takeoff = falling.end
            }
        }
        if !landingSeen {
            floorSum += (m + lastMagnitude) / 2 * (t - lastTime)
            floorTime += t - lastTime
        }
        if change > 0 {
            rising.add(change: change, from: lastTime, to: t)
            if m >= parameters.landG { landingSeen = true }
        } else if landingSeen {
            return land()
        } else {
            rising.reset()
        }
        if t - flightEntered > parameters.maxFlight + 0.5 { abort() }
        return nil
    }

    @usableFromInline mutating func land() -> FlightEvent? {
        if !takeoffFrozen { takeoff = falling.end }
        let landing = rising.start
        abort()
        lastPropulsion = lastTime
        let flight = landing - takeoff
        guard flight >= parameters.minFlight, flight <= parameters.maxFlight else { return nil }
        guard floorTime > 0, floorSum / floorTime <= parameters.floorMaxG else { return nil }
        return FlightEvent(start: takeoff, end: landing)
    }

    @usableFromInline mutating func abort() {
        inFlight = false
        takeoffFrozen = false
        landingSeen = false
        falling.reset()
        rising.reset()
    }

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
    /// 0.15–1.3 s (heights 2.8 cm – 2.07 m).
    public static let defaultParameters = FlightTracker.Parameters(
        enterG: 0.75, landG: 1.3, floorMaxG: 0.65, propulsionG: 1.2, propulsionWindow: 1.0,
        minFlight: 0.15, maxFlight: 1.3, edgeCapG: 1.0
    )

    @usableFromInline var tracker: FlightTracker

    /// Creates a detector with `parameters`.
    public init(parameters: FlightTracker.Parameters = JumpDetector.defaultParameters) {
        tracker = FlightTracker(parameters: parameters)
    }

    /// Consumes one sample; returns a jump just after its landing.
    @inlinable public mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        tracker.process(sample).map { .jump($0) }
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
    /// small drops (under ~8 cm) never last 0.25 s.
    public static let defaultParameters = FlightTracker.Parameters(
        enterG: 0.7, landG: 1.3, floorMaxG: 0.65, propulsionG: 1.2, propulsionWindow: 1.0,
        minFlight: 0.25, maxFlight: 4.0, edgeCapG: 1.0
    )

    @usableFromInline var tracker: FlightTracker

    /// Creates a detector with `parameters`.
    public init(parameters: FlightTracker.Parameters = ThrowDetector.defaultParameters) {
        tracker = FlightTracker(parameters: parameters)
    }

    /// Consumes one sample; returns a throw just after its catch.
    @inlinable public mutating func process(_ sample: AccelerationSample) -> DetectorEvent? {
        tracker.process(sample).map { .throw($0) }
    }

    /// Ends the stream.
    public mutating func finish() -> [DetectorEvent] {
        tracker.finish().map { [.throw($0)] } ?? []
    }
}
