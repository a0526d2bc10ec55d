// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Detection
import Foundation
import SDUSensor
import VirtualSensor

/// What `measureThroughput` measured: samples/s over all passes and in the fastest pass, and events.
struct Throughput {
    var samplesPerSecond: Double
    var bestPassSamplesPerSecond: Double
    var events: Int
}

/// Streams raw Int16 triplets through a profile's detector in blocks of `block` samples (and, with
/// `summarizing`, the session summary's accumulator, as a live session does): each block is converted
/// into one reused buffer of `AccelerationSample`s, as a file reader or a notification decoder fills it.
func measureThroughput(
    profile: DetectionProfile, raw: [RawAcceleration], rate: Double, passes: Int, block: Int,
    summarizing: Bool = false
) -> Throughput {
    let clock = ContinuousClock()
    var events = 0
    let interval = 1 / rate
    var total = Duration.zero
    var best: Duration?
    var samples = [AccelerationSample](repeating: AccelerationSample(t: 0, x: 0, y: 0, z: 0), count: block)
    var found: [DetectorEvent] = []
    found.reserveCapacity(block)
    for pass in 0..<passes {
        let start = clock.now
        var detector = ProfileDetector(profile: profile)
        var summary = SessionSummaryAccumulator(profile: profile)
        let offset = Double(pass * raw.count) * interval
        raw.withUnsafeBufferPointer { buffer in
            samples.withUnsafeMutableBufferPointer { converted in
                var first = 0
                while first < buffer.count {
                    let count = min(block, buffer.count - first)
                    for index in 0..<count {
                        let sample = AccelerationSample(
                            t: offset + Double(first + index) * interval, raw: buffer[first + index])
                        converted[index] = sample
                        if summarizing { summary.add(sample) }
                    }
                    found.removeAll(keepingCapacity: true)
                    detector.process(UnsafeBufferPointer(rebasing: converted[0..<count]), into: &found)
                    events += found.count
                    if summarizing { for event in found { summary.add(event) } }
                    first += count
                }
            }
        }
        events += detector.finish().count
        // Asked for, so the work is not optimised away, and checked: every sample was summarised.
        if summarizing { precondition(summary.summary().samples == raw.count, "the summary missed samples") }
        let elapsed = start.duration(to: clock.now)
        total += elapsed
        best = min(best ?? elapsed, elapsed)
    }
    return Throughput(
        samplesPerSecond: Double(raw.count * passes) / total.inSeconds,
        bestPassSamplesPerSecond: Double(raw.count) / (best ?? total).inSeconds, events: events)
}

/// `sportsensor-dev bench`: detector throughput on one core, side by side with the session summary
/// and with the numpy + scipy batch peer (`scripts/detection-peer.py`) over the same samples.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure each profile's detector throughput (samples/s on one core); build with -c release.",
        discussion: """
            The peer columns run scripts/detection-peer.py (numpy + scipy, Debian's python3-numpy and \
            python3-scipy: `make deps`) over the same Int16 samples in the same run, best of --peer-repeats, \
            against the detector's best pass: once as Debian ships it, once with glibc's malloc keeping \
            freed arrays (no page faults per array: numpy's arithmetic alone).
            """
    )

    @Option(help: "Profiles to measure (repeatable); all when omitted.")
    var profile: [DetectionProfile] = []

    @Option(help: "Seconds of synthetic recording per pass.")
    var seconds = 600.0

    @Option(help: "Sample rates to measure, Hz (repeatable); 100 and 400 when omitted.")
    var rate: [Double] = []

    @Option(help: "Samples per block handed to the detector (a batch of a file; 3 is one notification).")
    var blockSamples = 1024

    @Option(help: "Passes over the recording.")
    var passes = 20

    @Flag(help: "Skip the numpy + scipy batch peer (no Python needed).")
    var noPeer = false

    @Option(help: "The Python with numpy and scipy that runs the peer.")
    var peerPython = DetectionPeer.defaultPython

    @Option(help: "The peer script.")
    var peerScript = DetectionPeer.defaultScript

    @Option(help: "Timed repeats of the peer's compute (the best counts); --passes when omitted.")
    var peerRepeats: Int?

    @Option(help: "Keep the peer's input here (PROFILE.s16, Int16 x, y, z triplets); a temporary directory if omitted.")
    var peerSamples: String?

    static func millions(_ samplesPerSecond: Double) -> String {
        SampleCSV.fixed(samplesPerSecond / 1e6, decimals: 1) + " M"
    }

    func validate() throws {
        guard seconds > 0, passes > 0, (peerRepeats ?? 1) > 0, blockSamples > 0, rate.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--seconds, --passes, --peer-repeats, --block-samples and --rate must be above 0")
        }
    }

    func run() throws {
        let peer = noPeer ? nil : DetectionPeer(python: peerPython, script: peerScript)
        try peer?.check()
        let directory =
            peerSamples.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "sportsensor-bench-\(ProcessInfo.processInfo.globallyUniqueString)")
        if peer != nil { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        defer { if peer != nil && peerSamples == nil { try? FileManager.default.removeItem(at: directory) } }
        var header = "| profile | rate | samples | events | samples/s | with the session summary | ratio |"
        var rule = "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
        if peer != nil {
            header +=
                " events per pass, detector / peer | best pass | peer, best repeat | peer, warm allocator | "
                + "detector ÷ peer | detector ÷ warm peer |"
            rule += " ---: | ---: | ---: | ---: | ---: | ---: |"
        }
        print(header)
        print(rule)
        for profile in profile.isEmpty ? DetectionProfile.allCases : profile {
            for rate in rate.isEmpty ? [100, 400] : rate {
                try measure(profile: profile, rate: rate, peer: peer, directory: directory)
            }
        }
    }

    /// One row of the table: `profile` at `rate`.
    func measure(profile: DetectionProfile, rate: Double, peer: DetectionPeer?, directory: URL) throws {
        let recording = MotionGenerator.render(
            script: MotionScript(rawValue: profile.rawValue)!, seed: 42, rate: rate, duration: seconds)
        let block = blockSamples
        _ = measureThroughput(profile: profile, raw: recording.raw, rate: rate, passes: 1, block: block)
        let detector = measureThroughput(
            profile: profile, raw: recording.raw, rate: rate, passes: passes, block: block)
        // Side by side, so the ratio holds whatever else the machine does.
        let summarized = measureThroughput(
            profile: profile, raw: recording.raw, rate: rate, passes: passes, block: block, summarizing: true)
        let millions = SampleCSV.fixed(detector.samplesPerSecond / 1e6, decimals: 1)
        let withSummary = SampleCSV.fixed(summarized.samplesPerSecond / 1e6, decimals: 1)
        let ratio = SampleCSV.fixed(summarized.samplesPerSecond / detector.samplesPerSecond, decimals: 2)
        var line =
            "| \(profile.rawValue) | \(Int(rate)) Hz | \(recording.raw.count * passes) | \(detector.events) | \(millions) M | "
            + "\(withSummary) M | \(ratio) |"
        if let peer {
            let file = directory.appendingPathComponent("\(profile.rawValue)-\(Int(rate)).s16").path
            try DetectionPeer.write(recording.raw, to: file)
            let repeats = peerRepeats ?? passes
            let result = try peer.run(profile: profile, samplesFile: file, rate: rate, repeats: repeats)
            let warm = try peer.run(
                profile: profile, samplesFile: file, rate: rate, repeats: repeats,
                environment: DetectionPeer.warmAllocator)
            // Best against best: the peer's figures are its fastest repeats.
            let best = detector.bestPassSamplesPerSecond
            line +=
                " \(detector.events / passes) / \(result.events) | \(Self.millions(best)) | "
                + "\(Self.millions(result.samplesPerSecond)) | \(Self.millions(warm.samplesPerSecond)) | "
                + "\(SampleCSV.fixed(best / result.samplesPerSecond, decimals: 2))× | "
                + "\(SampleCSV.fixed(best / warm.samplesPerSecond, decimals: 2))× |"
        }
        print(line)
    }
}
