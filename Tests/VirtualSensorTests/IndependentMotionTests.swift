// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import SeededRandomness
import Testing

@testable import IndependentMotion
@testable import VirtualSensor

@Suite("Independent motion model")
struct IndependentMotionTests {
    @Test("the same seed gives the same recording; another seed another", arguments: MotionScript.allCases)
    func deterministic(script: MotionScript) {
        let a = IndependentMotionModel.render(script: script, seed: 3, rate: 50, duration: 15)
        let b = IndependentMotionModel.render(script: script, seed: 3, rate: 50, duration: 15)
        let c = IndependentMotionModel.render(script: script, seed: 4, rate: 50, duration: 15)
        #expect(a.samples == b.samples && a.labels == b.labels && a.lostSamples == b.lostSamples)
        #expect(a.samples != c.samples)
        #expect(Double(a.samples.count + a.lostSamples) >= 15 * a.sensorRate - 1)
    }

    @Test("each script labels its events, in time order, inside the recording")
    func labels() {
        let expectations: [(MotionScript, (MotionLabel) -> Bool)] = [
            (.tableTennis, { if case .hit = $0 { true } else { false } }),
            (.jumps, { if case .jump(let a, let b) = $0 { b - a >= 0.2 } else { false } }),
            (.throwing, { if case .throw(let a, let b) = $0 { b - a >= 0.25 } else { false } }),
            (.steps, { if case .step = $0 { true } else { false } }),
        ]
        for (script, isEvent) in expectations {
            let recording = IndependentMotionModel.render(script: script, seed: 8, rate: 100, duration: 60)
            #expect(recording.labels.filter(isEvent).count >= 3, "\(script)")
            // Other labels are the foot contacts of walking between rallies or jumps.
            #expect(recording.labels.allSatisfy { if case .step = $0 { true } else { isEvent($0) } }, "\(script)")
            let times = recording.labels.map(\.time)
            #expect(times == times.sorted(), "\(script)")
            let end = recording.samples.last?.t ?? 0
            #expect(times.allSatisfy { $0 >= 0 && $0 < end }, "\(script)")
        }
    }

    /// Integrates the trunk's vertical acceleration (g) over frames, m/s.
    static func verticalSpeed(_ block: BodyMotionBlock, from: Int, to: Int) -> Double {
        var v = 0.0
        for index in from..<to { v += block.trunk[index].z * metresPerSecondSquaredPerG * bodyFrameInterval }
        return v
    }

    @Test(
        "a jump's label is its free fall: the ground force is zero exactly between takeoff and landing, the push gives g·t/2 and the landing stops it",
        arguments: [BodyMovements.JumpSeries.countermovement, .rebound, .rope])
    func jumpFlights(series: BodyMovements.JumpSeries) throws {
        for seed in UInt64(0)..<6 {
            var random = SplitMix64(seed: seed)
            let block = BodyMovements.jumps(&random, series: series, count: 5, arm: true)
            let flights = block.labels.compactMap { label -> (Double, Double)? in
                if case .jump(let a, let b) = label { return (a, b) }
                return nil
            }
            try #require(!flights.isEmpty)
            var previousLanding = 0
            for (takeoff, landing) in flights {
                let first = block.frame(takeoff)
                let last = block.frame(landing)
                // Free fall (ground force 0, trunk at −1 g) on every frame of the flight, and a
                // ground force on the frames just outside it.
                #expect((first..<last).allSatisfy { abs(block.trunk[$0].z + 1) < 1e-12 })
                #expect(block.trunk[first - 3].z > -0.995)
                #expect(block.trunk[last + 3].z > -0.995)
                // The net impulse since standing (or since the last landing) leaves at g·t/2 upwards.
                let speed = Self.verticalSpeed(block, from: previousLanding, to: first)
                let expected = metresPerSecondSquaredPerG * (landing - takeoff) / 2
                if previousLanding == 0 {
                    #expect(abs(speed - expected) < 0.1, "seed \(seed) takeoff speed \(speed)")
                } else {
                    // Rebound: the contact turns the arrival speed of the previous flight into this one.
                    #expect(speed > 0)
                }
                previousLanding = last
            }
            // The last landing brings the body to rest.
            let after = Self.verticalSpeed(block, from: block.frame(flights[flights.count - 1].1), to: block.count)
            let fall = metresPerSecondSquaredPerG * (flights[flights.count - 1].1 - flights[flights.count - 1].0) / 2
            #expect(abs(after - fall) < 0.1, "seed \(seed): landing impulse \(after) for \(fall)")
        }
    }

    @Test("a thrown sensor reads free fall (only its spin's small centripetal pull) from release to catch")
    func throwFlights() throws {
        var generator = IndependentMotionGenerator(script: .throwing, seed: 12)
        var frames: [Vector3] = []
        while generator.time < 40 { frames.append(generator.nextFrame()) }
        let flights = generator.labels.compactMap { label -> (Double, Double)? in
            if case .throw(let a, let b) = label, b < 39 { return (a, b) }
            return nil
        }
        try #require(flights.count >= 3)
        for (release, caught) in flights {
            let first = Int((release * bodyFrameRate).rounded())
            let last = Int((caught * bodyFrameRate).rounded())
            // Inside the flight: only ω²r (ω ≤ 6 rad/s, r ≤ 1.5 cm: below 0.06 g).
            #expect((first + 1..<last).allSatisfy { frames[$0].length < 0.06 })
            // The free fall measured from the frames (|f| < 0.1 g) spans the label within 10 ms (the release
            // and catch forces ramp through 0.1 g in a few ms).
            var start = first
            while start > 0 && frames[start - 1].length < 0.1 { start -= 1 }
            var end = last
            while end < frames.count - 1 && frames[end].length < 0.1 { end += 1 }
            let measured = Double(end - start) * bodyFrameInterval
            #expect(abs(measured - (caught - release)) < 0.01, "measured \(measured), label \(caught - release)")
        }
    }

    @Test("the front end: rate error 1–2 %, lost notifications leave gaps of whole notifications, hard strokes clip")
    func frontEnd() {
        let recording = IndependentMotionModel.render(script: .tableTennis, seed: 5, rate: 100, duration: 60)
        let error = abs(recording.sensorRate / recording.rate - 1)
        #expect(error >= 0.01 && error <= 0.02)
        #expect(recording.lostSamples % IndependentMotionModel.samplesPerNotification == 0)
        let interval = 1 / recording.sensorRate
        var gaps = 0
        for (a, b) in zip(recording.samples, recording.samples.dropFirst()) {
            let steps = (b.t - a.t) / interval
            #expect(abs(steps - steps.rounded()) < 0.01 && steps.rounded() >= 1)
            if steps.rounded() > 1 { gaps += Int(steps.rounded()) - 1 }
        }
        #expect(gaps == recording.lostSamples)
        #expect(recording.samples.contains { max(abs($0.x), abs($0.y), abs($0.z)) >= 1.999 })
    }

    @Test("the endless source keeps streaming and repeats per seed")
    func source() {
        var a = IndependentMotionSource(script: .jumps, seed: 2, rate: 50)
        var b = IndependentMotionSource(script: .jumps, seed: 2, rate: 50)
        var readings: [RawAcceleration] = []
        for _ in 0..<6000 {
            let reading = a.nextSample()
            #expect(reading == b.nextSample())
            readings.append(reading)
        }
        #expect(Set(readings.map(\.x)).count > 100)
    }
}
