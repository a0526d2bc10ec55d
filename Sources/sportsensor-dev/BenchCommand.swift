// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Detection
import SDUSensor
import VirtualSensor

/// Streams raw Int16 triplets through a profile's detector and returns (samples/s, events).
func measureThroughput(profile: DetectionProfile, raw: [RawAcceleration], rate: Double, passes: Int) -> (Double, Int) {
    let clock = ContinuousClock()
    var events = 0
    let interval = 1 / rate
    let start = clock.now
    for pass in 0..<passes {
        var detector = ProfileDetector(profile: profile)
        let offset = Double(pass * raw.count) * interval
        raw.withUnsafeBufferPointer { buffer in
            for index in 0..<buffer.count {
                let sample = AccelerationSample(t: offset + Double(index) * interval, raw: buffer[index])
                if detector.process(sample) != nil { events += 1 }
            }
        }
        events += detector.finish().count
    }
    let elapsed = start.duration(to: clock.now)
    let seconds = elapsed.inSeconds
    return (Double(raw.count * passes) / seconds, events)
}

/// `sportsensor-dev bench`: detector throughput on one core.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure each profile's detector throughput (samples/s on one core); build with -c release."
    )

    @Option(help: "Profiles to measure (repeatable); all when omitted.")
    var profile: [DetectionProfile] = []

    @Option(help: "Seconds of synthetic recording per pass (at 100 Hz).")
    var seconds = 600.0

    @Option(help: "Passes over the recording.")
    var passes = 20

    func run() {
        let rate = 100.0
        print("| profile | samples | events | samples/s |")
        print("| --- | ---: | ---: | ---: |")
        for profile in profile.isEmpty ? DetectionProfile.allCases : profile {
            let recording = MotionGenerator.render(
                script: MotionScript(rawValue: profile.rawValue)!, seed: 42, rate: rate, duration: seconds)
            _ = measureThroughput(profile: profile, raw: recording.raw, rate: rate, passes: 1)
            let (throughput, events) = measureThroughput(
                profile: profile, raw: recording.raw, rate: rate, passes: passes)
            let millions = SampleCSV.fixed(throughput / 1e6, decimals: 1)
            print("| \(profile.rawValue) | \(recording.raw.count * passes) | \(events) | \(millions) M |")
        }
    }
}
