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

/// Samples per block handed to the detector (a batch of a file, as `sportsensor-dev bench` streams them).
let blockSamples = 1024

/// Streams `count` samples through `detector`, cycling over `raw` with continuing timestamps, in blocks
/// of `blockSamples`: Int16 triplet → `AccelerationSample` in g → events. Returns the number of events.
@inline(never)
func stream(_ raw: [RawAcceleration], count: Int, through detector: inout ProfileDetector, from start: Int) -> Int {
    var events: [DetectorEvent] = []
    var found = 0
    var index = start
    let interval = 1 / rate
    var block = [AccelerationSample](repeating: AccelerationSample(t: 0, x: 0, y: 0, z: 0), count: blockSamples)
    raw.withUnsafeBufferPointer { buffer in
        block.withUnsafeMutableBufferPointer { converted in
            var left = count
            var offset = 0
            while left > 0 {
                let chunk = min(left, blockSamples, buffer.count - offset)
                for k in 0..<chunk {
                    converted[k] = AccelerationSample(t: Double(index) * interval, raw: buffer[offset + k])
                    index += 1
                }
                events.removeAll(keepingCapacity: true)
                detector.process(UnsafeBufferPointer(rebasing: converted[0..<chunk]), into: &events)
                found += events.count
                offset = (offset + chunk) % buffer.count
                left -= chunk
            }
        }
    }
    return found
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
