// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

/// The wrist of a straight arm (0.6 m) circling at ω with ω²R = `pull` g: it reads ω²R towards the
/// shoulder plus gravity, near 0 g over the top when ω²R ≈ 1 g and 2 g at the bottom.
func armCircles(rate: Double, pull: Double, duration: Double) -> [AccelerationSample] {
    let radius = 0.6
    let omega = (pull * 9.80665 / radius).squareRoot()
    return synthesize(rate: rate, duration: duration) { t in
        let phi = omega * t
        // World frame (horizontal, up): gravity's reading is (0, 1); the centripetal pull points at the shoulder.
        return (-pull * MotionMath.sin(phi), 0, 1 + pull * MotionMath.cos(phi))
    }
}

@Suite("Arm movement is not a flight")
struct ArmMovementTests {
    @Test(
        "arm circles at ω²R ≈ 1 g dip to ~0 g over the top but land without an impact: no jump, no throw",
        arguments: [50.0, 100.0, 200.0])
    func circles(rate: Double) {
        for pull in [0.9, 1.0, 1.1, 1.2] {
            let samples = armCircles(rate: rate, pull: pull, duration: 20)
            #expect(JumpDetector().events(in: samples).isEmpty, "pull \(pull) g at \(rate) Hz")
            #expect(ThrowDetector().events(in: samples).isEmpty, "pull \(pull) g at \(rate) Hz")
        }
    }

    @Test("a jump with a soft landing (1.9 g over 60 ms) is still a jump", arguments: [50.0, 100.0, 200.0])
    func softLandingKept(rate: Double) {
        let samples = synthesize(rate: rate, duration: 4) { t in
            (0, 0, jump(t, takeoff: 1.503, flight: 0.45, rise: 0.06, landingPeak: 1.9))
        }
        #expect(flights(JumpDetector().events(in: samples)).count == 1)
    }

    @Test("on the arm-exercise script the impact rule removes at least 90 % of the false jumps and throws")
    func exerciseScript() {
        var without = 0
        var with = 0
        var jumpWide = JumpDetector.defaultParameters
        jumpWide.landingRiseMax = 10
        var throwWide = ThrowDetector.defaultParameters
        throwWide.landingRiseMax = 10
        for seed in UInt64(0)..<5 {
            let samples = MotionGenerator.render(script: .armExercise, seed: seed, rate: 100, duration: 120).samples
            with += JumpDetector().events(in: samples).count + ThrowDetector().events(in: samples).count
            without +=
                JumpDetector(parameters: jumpWide).events(in: samples).count
                + ThrowDetector(parameters: throwWide).events(in: samples).count
        }
        #expect(without >= 20)
        #expect(with * 10 <= without, "\(with) false flights with the rule, \(without) without")
    }
}
