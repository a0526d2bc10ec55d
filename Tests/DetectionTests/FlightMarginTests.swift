// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

/// `margin_spread_max_g`: a flight whose floor is near `floor_max_g` (flagged `low_floor_margin`)
/// must be steady, as a spinning sensor's pull is; an arm's dip to the same level wobbles.
@Suite("Flights with a high floor")
struct FlightMarginTests {
    /// Rest, a 1.6 g push, 0.4 s whose |a| is `floor(τ)` (τ from the start of the flight), a 1.8 g
    /// catch rising within 20 ms, rest: all along z.
    func highFloorFlight(rate: Double, floor: @escaping (Double) -> Double) -> [AccelerationSample] {
        synthesize(rate: rate, duration: 3) { t in
            let start = 1.28
            let end = 1.68
            let z: Double
            switch t {
            case ..<1.0: z = 1
            case ..<1.25: z = 1.6
            case ..<start: z = 1.6 + (floor(0) - 1.6) * (t - 1.25) / 0.03
            case ..<end: z = floor(t - start)
            case ..<(end + 0.02): z = floor(end - start) + (1.8 - floor(end - start)) * (t - end) / 0.02
            case ..<1.9: z = 1.8
            case ..<2.0: z = 1.8 - 0.8 * (t - 1.9) / 0.1
            default: z = 1
            }
            return (0, 0, z)
        }
    }

    func throwsFound(_ parameters: FlightTracker.Parameters, _ samples: [AccelerationSample]) -> [FlightEvent] {
        ThrowDetector(parameters: parameters).events(in: samples).compactMap { event -> FlightEvent? in
            if case .throw(let flight) = event { return flight }
            return nil
        }
    }

    @Test(
        "a throw whose spin holds a steady 0.56 g floor is kept, flagged low_floor_margin",
        arguments: [50.0, 100.0, 200.0])
    func steadyFloorKept(rate: Double) {
        let samples = highFloorFlight(rate: rate) { _ in 0.56 }
        let found = throwsFound(ThrowDetector.defaultParameters, samples)
        #expect(found.count == 1, "\(found.count) throws at \(rate) Hz")
        #expect(found.first?.quality.contains(.lowFloorMargin) == true)
    }

    @Test(
        "a floor of 0.55 g wobbling ±0.22 g at 6 Hz is not a throw; without the rule it was one",
        arguments: [50.0, 100.0, 200.0])
    func wobblingFloorDropped(rate: Double) {
        // enter_g 0.8 so the wobble stays inside the flight; the rest are the throw defaults.
        var parameters = ThrowDetector.defaultParameters
        parameters.enterG = 0.8
        let samples = highFloorFlight(rate: rate) { tau in 0.55 + 0.22 * MotionMath.sin(2 * MotionMath.pi * 6 * tau) }
        #expect(throwsFound(parameters, samples).isEmpty, "at \(rate) Hz")
        parameters.marginSpreadMaxG = 10
        let without = throwsFound(parameters, samples)
        #expect(without.count == 1, "without the rule: \(without.count) at \(rate) Hz")
        #expect(without.first?.quality.contains(.lowFloorMargin) == true)
    }

    @Test("the rule is the throw profile's only: jumps keep it off, and margin_spread_max_g is a key of both")
    func defaults() throws {
        #expect(ThrowDetector.defaultParameters.marginSpreadMaxG == 0.12)
        #expect(JumpDetector.defaultParameters.marginSpreadMaxG == 10)
        var settings = DetectionSettings(profile: .jump)
        try settings.set("margin_spread_max_g=0.2")
        #expect(settings.parameters.jump.marginSpreadMaxG == 0.2)
        #expect(DetectionParameterKeys.keys(for: .throw).contains("margin_spread_max_g"))
    }
}
