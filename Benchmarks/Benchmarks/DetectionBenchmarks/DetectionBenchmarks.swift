// SPDX-License-Identifier: GPL-2.0-or-later
import Benchmark
import Detection
import SDUSensor
import VirtualSensor

/// The rate the recordings are rendered at, Hz.
let rate = 100.0

/// One profile's recording as the sensor sends it: raw Int16 triplets (600 s at 100 Hz, distractors
/// included), rendered before any measurement.
func rawRecording(for profile: DetectionProfile) -> [RawAcceleration] {
    let script: MotionScript =
        switch profile {
        case .tableTennis: .tableTennis
        case .jump: .jumps
        case .throw: .throwing
        case .steps: .steps
        }
    return MotionGenerator.render(script: script, seed: 42, rate: rate, duration: 600).raw
}

/// Streams `count` samples through `detector`, cycling over `raw` with continuing timestamps:
/// Int16 triplet → `AccelerationSample` in g → events. Returns the number of events.
@inline(never)
func stream(_ raw: [RawAcceleration], count: Int, through detector: inout ProfileDetector, from start: Int) -> Int {
    var events = 0
    var index = start
    let interval = 1 / rate
    raw.withUnsafeBufferPointer { buffer in
        var left = count
        while left > 0 {
            let chunk = min(left, buffer.count)
            for offset in 0..<chunk {
                let sample = AccelerationSample(t: Double(index) * interval, raw: buffer[offset])
                if detector.process(sample) != nil { events += 1 }
                index += 1
            }
            left -= chunk
        }
    }
    return events
}

let benchmarks: @Sendable () -> Void = {
    // One scaled iteration is one sample, so throughput reads as samples/s (×10⁶ with `.mega`) and
    // mallocCountTotal per iteration ÷ 10⁶ is mallocs per sample.
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        scalingFactor: .mega,
        maxDuration: .seconds(3),
        maxIterations: 30
    )
    for profile in DetectionProfile.allCases {
        Benchmark("\(profile.rawValue) Int16 → events") { benchmark, raw in
            var detector = ProfileDetector(profile: profile)
            var start = 0
            benchmark.startMeasurement()
            let samples = benchmark.scaledIterations.count
            let events = stream(raw, count: samples, through: &detector, from: start)
            start += samples
            benchmark.stopMeasurement()
            blackHole(events)
            blackHole(start)
        } setup: {
            rawRecording(for: profile)
        }
    }
}
