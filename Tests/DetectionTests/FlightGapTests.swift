// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

/// A throw at 50 Hz: released at 1.5 s, in free fall (0.08 g of spin) for 0.84 s, caught with a 3 g impact.
private func caughtThrow(_ t: Double) -> (Double, Double, Double) {
    (0, 0, jump(t, takeoff: 1.5, flight: 0.84, rise: 0.02, landingPeak: 3, floor: 0.08))
}

/// The same throw whose catch is lost in a gap of notifications: free fall until the gap, then the sensor is
/// held in the hand (1.0–1.2 g, never an impact of 1.3 g) until a tap on the table at 3.3 s.
private func heldAfterGap(_ t: Double) -> (Double, Double, Double) {
    if t < 2.5 { return caughtThrow(t) }
    if t < 3.3 { return (0, 0, 1.1 + 0.1 * MotionMath.sin(4 * MotionMath.pi * t)) }
    if t < 3.34 { return (0, 0, 0.4) }
    return (0, 0, 1 + 0.8 * MotionMath.exp(-(t - 3.34) / 0.05))
}

/// Drops the samples strictly between `from` and `to` (lost notifications).
private func withGap(_ samples: [AccelerationSample], from: Double, to: Double) -> [AccelerationSample] {
    samples.filter { $0.t <= from || $0.t >= to }
}

@Suite("Flights across gaps of lost notifications")
struct FlightGapTests {
    @Test("the complete throw is timed: the signal the gap tests cut is a valid throw")
    func control() throws {
        let found = flights(ThrowDetector().events(in: synthesize(rate: 50, duration: 5, caughtThrow)))
        #expect(found.count == 1)
        let flight = try #require(found.first)
        #expect(abs(flight.flightTime - 0.84) < 0.02)
    }

    /// The development seeds' missed catch: the catch fell in a 0.39 s gap, the sensor was then held at
    /// ~1.1 g, and the flight ran on to the next impact (+281 cm). Free fall never reads above 0.7 g for
    /// 0.1 s, so the flight ends there, unmeasured.
    @Test("a catch lost in a gap does not let the flight run on to a later impact")
    func catchInGap() {
        let samples = withGap(synthesize(rate: 50, duration: 5, heldAfterGap), from: 2.3, to: 2.69)
        let found = flights(ThrowDetector().events(in: samples))
        for flight in found { #expect(flight.end < 2.7, "flight \(flight.start)–\(flight.end) runs past the catch") }
        #expect(found.isEmpty, "the catch time is unknown within the gap: no height can be given")
    }

    /// The development seeds' late release: the push's fall lay in a 0.33 s gap, and the release was placed
    /// at the gap's middle, 119 ms late.
    @Test("a release inside a gap of more than 0.2 s is not reported")
    func releaseInLongGap() {
        let samples = withGap(synthesize(rate: 50, duration: 5, caughtThrow), from: 1.4, to: 1.74)
        let found = flights(ThrowDetector().events(in: samples))
        for flight in found { #expect(flight.start < 1.4 || flight.start > 1.74, "release guessed inside the gap") }
        #expect(found.isEmpty)
    }

    @Test("a release across a short gap (0.1 s) is still reported, flagged sample_gap")
    func releaseInShortGap() throws {
        let samples = withGap(synthesize(rate: 50, duration: 5, caughtThrow), from: 1.44, to: 1.54)
        let found = flights(ThrowDetector().events(in: samples))
        #expect(found.count == 1)
        let flight = try #require(found.first)
        #expect(abs(flight.flightTime - 0.84) < 0.05)
        #expect(flight.quality.contains(.sampleGap))
    }
}
