// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

/// A throw through a causal front end: the contact force falls linearly (10 g/s) to zero at `release`; free
/// fall; a catch that reaches 3.3 g 8 ms after `catchTime`, then rises slowly to 4 g over 80 ms (its slow
/// top) and settles to 1 g. The force, along `up`, is passed at 1 kHz through two first-order low-passes
/// at 0.35 × `rate` (as the independent model's front end), sampled at `rate` from `phase` of an interval,
/// clipped at the full scale and quantised. The front end delays both edges alike, so the true flight time
/// is `catchTime − release`. Above 3.1 g the readings clip axis by axis, and the clipped |a| creeps up from
/// 3.1 to 3.46 g over the slow top.
private func filteredThrow(rate: Double, phase: Double, release: Double, catchTime: Double) -> [AccelerationSample] {
    let up = (0.48, -0.6, 0.64)
    let fine = 1000.0
    let alpha = 1 - MotionMath.exp(-2 * MotionMath.pi * 0.35 * rate / fine)
    var first = 1.0
    var second = 1.0
    var samples: [AccelerationSample] = []
    var next = phase / rate
    for index in 0..<Int(4 * fine) {
        let t = Double(index) / fine
        let force: Double
        switch t - catchTime {
        case ..<(release - catchTime - 0.6): force = 1
        case ..<(release - catchTime - 0.25): force = 1 + 1.5 * (t - (release - 0.6)) / 0.35
        case ..<(release - catchTime): force = 10 * (release - t)
        case ..<0: force = 0
        case ..<0.008: force = 3.3 * (t - catchTime) / 0.008
        case ..<0.088: force = 3.3 + 0.7 * (t - catchTime - 0.008) / 0.08
        case ..<0.18: force = 4 - 3 * (t - catchTime - 0.088) / 0.092
        default: force = 1
        }
        first += alpha * (force - first)
        second += alpha * (first - second)
        guard t >= next else { continue }
        next += 1 / rate
        func reading(_ axis: Double) -> Double {
            (min(max(second * axis, -2), SDUProfile.fullScaleG) * 16384).rounded() / 16384
        }
        samples.append(AccelerationSample(t: t, x: reading(up.0), y: reading(up.1), z: reading(up.2)))
    }
    return samples
}

@Suite("A catch located by its rise below the clip")
struct CatchClipTests {
    /// Flight-time errors in ms over eight sampling phases, the catch's moments with and without its clipped top.
    private func errors(rate: Double, belowClip: Bool) throws -> [Double] {
        var parameters = ThrowDetector.defaultParameters
        parameters.landingBelowClip = belowClip
        return try stride(from: 0.0, to: 1.0, by: 0.125).map { phase in
            let samples = filteredThrow(rate: rate, phase: phase, release: 1.5, catchTime: 2.3)
            let found = flights(ThrowDetector(parameters: parameters).events(in: samples))
            #expect(found.count == 1, "rate \(rate) phase \(phase)")
            let flight = try #require(found.first)
            return (flight.flightTime - 0.8) * 1000
        }
    }

    /// The catch reaches the clip within a sample, so no line is drawn and its moments place it. Taken up
    /// to the top, the slow clipped rise widens them and puts the catch 13–14 ms early at 100 Hz (14–19 ms
    /// at 50 Hz); below the clip what is left is the front end's blur of a step (3–6 / 7–15 ms).
    @Test(
        "a catch's slow top above the clip does not pull it early (within 6 ms at 100 Hz, 15 ms at 50 Hz)",
        arguments: zip([100.0, 50], [6.0, 15]))
    func slowTopAboveClip(rate: Double, boundMs: Double) throws {
        #expect(ThrowDetector.defaultParameters.landingBelowClip)
        #expect(!JumpDetector.defaultParameters.landingBelowClip)
        let below = try errors(rate: rate, belowClip: true)
        let whole = try errors(rate: rate, belowClip: false)
        for error in below { #expect(abs(error) < boundMs, "rate \(rate): flight off by \(error) ms") }
        let mean = { (values: [Double]) in values.reduce(0, +) / Double(values.count) }
        #expect(mean(below) - mean(whole) > 4, "rate \(rate): below the clip \(below), whole rise \(whole)")
    }
}
