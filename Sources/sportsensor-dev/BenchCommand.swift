// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Detection
import SDUSensor
import VirtualSensor

/// Streams raw Int16 triplets through a profile's detector (and, with `summarizing`, the session
/// summary's accumulator, as a live session does) and returns (samples/s, events).
func measureThroughput(
    profile: DetectionProfile, raw: [RawAcceleration], rate: Double, passes: Int, summarizing: Bool = false
) -> (Double, Int) {
    let clock = ContinuousClock()
    var events = 0
    let interval = 1 / rate
    let start = clock.now
    for pass in 0..<passes {
        var detector = ProfileDetector(profile: profile)
        var summary = SessionSummaryAccumulator(profile: profile)
        let offset = Double(pass * raw.count) * interval
        raw.withUnsafeBufferPointer { buffer in
            for index in 0..<buffer.count {
                let sample = AccelerationSample(t: offset + Double(index) * interval, raw: buffer[index])
                if summarizing { summary.add(sample) }
                if let event = detector.process(sample) {
                    events += 1
                    if summarizing { summary.add(event) }
                }
            }
        }
        events += detector.finish().count
        // Asked for, so the work is not optimised away, and checked: every sample was summarised.
        if summarizing { precondition(summary.summary().samples == raw.count, "the summary missed samples") }
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
        print("| profile | samples | events | samples/s | with the session summary | ratio |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for profile in profile.isEmpty ? DetectionProfile.allCases : profile {
            let recording = MotionGenerator.render(
                script: MotionScript(rawValue: profile.rawValue)!, seed: 42, rate: rate, duration: seconds)
            _ = measureThroughput(profile: profile, raw: recording.raw, rate: rate, passes: 1)
            let (throughput, events) = measureThroughput(
                profile: profile, raw: recording.raw, rate: rate, passes: passes)
            // Side by side, so the ratio holds whatever else the machine does.
            let (summarized, _) = measureThroughput(
                profile: profile, raw: recording.raw, rate: rate, passes: passes, summarizing: true)
            let millions = SampleCSV.fixed(throughput / 1e6, decimals: 1)
            let withSummary = SampleCSV.fixed(summarized / 1e6, decimals: 1)
            let ratio = SampleCSV.fixed(summarized / throughput, decimals: 2)
            print(
                "| \(profile.rawValue) | \(recording.raw.count * passes) | \(events) | \(millions) M | \(withSummary) M | "
                    + "\(ratio) |")
        }
    }
}
