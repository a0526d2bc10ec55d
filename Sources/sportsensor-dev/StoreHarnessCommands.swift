// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Detection
import Foundation
import SDUSensor
import SeededRandomness
import SessionStore
import StoreFormats
import VirtualSensor

/// Hidden: records into a session forever, printing a line after each committed flush, so the
/// crash-recovery test can kill it with SIGKILL mid-recording.
struct StoreCrashHelper: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-crash-helper",
        abstract: "Record synthetic samples forever (test support for crash recovery).",
        shouldDisplay: false
    )

    @Option(help: "The state directory holding the session database.")
    var stateDir: String

    @Option(help: "Samples recorded between two events (and two flushes).")
    var samplesPerEvent: Int = 50

    func run() async throws {
        let store = try SessionStore.open(at: StateDirectory(path: stateDir))
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .steps)))
        let recorder = try await store.recorder(for: session)
        emit("session \(session.idText)")
        var index: Int64 = 0
        var events = 0
        while true {
            var samples: [IndexedSample] = []
            for _ in 0..<samplesPerEvent {
                let wobble = Int16(truncatingIfNeeded: (index &* 37) % 200) - 100
                samples.append(
                    IndexedSample(
                        index: index, t: Double(index) / 100,
                        raw: RawAcceleration(x: wobble, y: -16384 + wobble, z: wobble / 2)))
                index += 1
            }
            recorder.record(samples: samples)
            recorder.record(event: EventRecord(type: "step", t: Double(index - 1) / 100, cadenceSpm: 100))
            events += 1
            try await recorder.flush()
            emit("committed events=\(events) samples=\(index)")
        }
    }
}

/// Writes a line to standard output unbuffered, so a reader sees it before the process dies.
private func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Hidden: measures the store's sustained recording rate and bytes per sample.
struct StoreBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-store",
        abstract: "Measure the session store's sustained recording rate and size on disk.",
        shouldDisplay: false
    )

    @Option(help: "Directory for the benchmark database (a fresh temporary one by default).")
    var stateDir: String?

    @Option(help: "Samples to record.")
    var samples: Int = 5_000_000

    @Option(help: "Samples a producer call hands over (one BLE notification carries 3).")
    var batch: Int = 300

    @Option(help: "One event every this many samples.")
    var samplesPerEvent: Int = 100

    @Option(
        help: """
            Record a profile's motion script (table-tennis, jump, throw, steps) at 100 Hz instead of the \
            synthetic training signal, to measure bytes per sample for that profile's recordings.
            """)
    var motion: MotionScript?

    @Option(
        help: "With --motion: the sensor noise's standard deviation in g (the script draws 0.003–0.02 when absent).")
    var noise: Double?

    @Option(help: "With --motion: the seed of the recording.")
    var seed: UInt64 = 2026

    @Flag(help: "With --motion: skip the flac, xz and zstd figures on the same samples.")
    var noPeers = false

    @Option(
        help: """
            Measure disk bytes written per stored sample instead: this many virtual sensors recording at 100 Hz \
            (/proc/self/io write_bytes; the state directory must be on a real disk, /var/tmp by default).
            """)
    var sensors: Int?

    @Option(help: "With --sensors: minutes of recording (simulated time unless --realtime).")
    var minutes: Double = 10

    @Flag(help: "With --sensors: take as long as the recording would (the kernel's writeback then runs as live).")
    var realtime = false

    @Option(help: "With --sensors: the recorder's flush interval in milliseconds (the daemon's default if absent).")
    var flushIntervalMs: Int?

    @Option(help: "With --sensors: samples per stored chunk (the daemon's default if absent).")
    var chunkLength: Int?

    func run() async throws {
        if let sensors {
            try await measureWear(sensors: sensors)
            return
        }
        let directory =
            stateDir ?? FileManager.default.temporaryDirectory.path + "/sportsensord-bench-" + UUID().uuidString
        defer { if stateDir == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let store = try SessionStore.open(at: StateDirectory(path: directory))
        let signal =
            motion.map { BenchmarkSignal(script: $0, count: samples, noise: noise, seed: seed) }
            ?? BenchmarkSignal(count: samples)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .tableTennis)))
        let recorder = try await store.recorder(for: session)
        // A motion script is recorded as the daemon records a sensor at 100 Hz: one flush, one
        // segment record, per second of samples. The synthetic signal measures the sustained rate,
        // flushed by the recorder's own loop.
        let runner = Task { if motion == nil { await recorder.run() } }
        let batch = motion == nil ? batch : 100
        let clock = ContinuousClock()
        let started = clock.now
        var offset = 0
        var events = 0
        while offset < signal.samples.count {
            let end = min(offset + batch, signal.samples.count)
            recorder.record(samples: signal.samples[offset..<end])
            // A motion script's figure is the samples' cost alone: no events in its records.
            for _ in 0..<(motion == nil ? (end - offset) / max(samplesPerEvent, 1) : 0) {
                recorder.record(event: EventRecord(type: "hit", t: signal.samples[offset].t, peakG: 1.5))
                events += 1
            }
            offset = end
            if motion != nil { try await recorder.flush() }
            // Hand over at a steady pace: yield so the writer can run, as a live pipeline would.
            if offset % (batch * 64) == 0 { await Task.yield() }
            // Never let the producer run ahead of the bound: that would measure dropping, not storing.
            while recorder.statistics.bufferedSamples > 500_000 { try await Task.sleep(for: .milliseconds(1)) }
        }
        try await recorder.finish(reason: .stopped)
        let elapsed = clock.now - started
        await runner.value
        let seconds = elapsed.inSeconds
        let statistics = recorder.statistics
        let storage = try await store.sampleStorage(of: session.id)
        try await store.checkpoint()
        // The database and its chunk files: recorded samples live in the latter.
        let fileBytes =
            ((try? FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int) ?? 0)
            + Int(store.segmentFileUsage().bytes)
        print("samples recorded:      \(statistics.samplesWritten) (dropped \(statistics.droppedSamples))")
        print("events recorded:       \(statistics.eventsWritten) (dropped \(statistics.droppedEvents))")
        print("elapsed:               \(String(format: "%.3f", seconds)) s")
        print("samples/s sustained:   \(Int(Double(statistics.samplesWritten) / seconds))")
        print("events/s sustained:    \(Int(Double(statistics.eventsWritten) / seconds))")
        print("flushes:               \(statistics.flushes), max latency \(statistics.maxFlushLatency)")
        print(
            "chunk bytes/sample:    \(String(format: "%.3f", Double(storage.bytes) / Double(max(storage.samples, 1))))")
        print("file bytes/sample:     \(String(format: "%.3f", Double(fileBytes) / Double(max(storage.samples, 1))))")
        guard motion != nil, !noPeers else { return }
        let stored = Double(storage.bytes) / Double(max(storage.samples, 1))
        for peer in try CompressionPeers.measure(signal.samples.map(\.raw), directory: directory) {
            let perSample = Double(peer.bytes) / Double(max(signal.samples.count, 1))
            print(
                "peer \(peer.name):".padding(toLength: 23, withPad: " ", startingAt: 0)
                    + "\(String(format: "%.3f", perSample)) bytes/sample (store ÷ peer \(String(format: "%.3f", stored / perSample)))"
            )
        }
    }
}

extension StoreBenchmark {
    func measureWear(sensors: Int) async throws {
        guard sensors > 0, minutes > 0 else { throw ValidationError("--sensors and --minutes must be positive") }
        let directory = stateDir ?? "/var/tmp/sportsensord-bench-" + UUID().uuidString
        defer { if stateDir == nil { try? FileManager.default.removeItem(atPath: directory) } }
        var configuration = SessionRecorder<ContinuousClock>.Configuration()
        if let flushIntervalMs { configuration.flushInterval = .milliseconds(flushIntervalMs) }
        if let chunkLength { configuration.chunkLength = max(1, chunkLength) }
        let benchmark = StoreWearBenchmark(
            sensors: sensors, minutes: minutes, directory: directory, realtime: realtime, configuration: configuration)
        let result = try await benchmark.run()
        print("state directory:       \(directory)")
        print(
            "sensors, minutes:      \(sensors) × 100 Hz, \(minutes) min (\(realtime ? "real time" : "simulated time"))")
        print("flush interval:        \(configuration.flushInterval), chunks of \(configuration.chunkLength)")
        print("samples, events:       \(result.samples), \(result.events)")
        print("flushes:               \(result.flushes) (wall \(String(format: "%.1f", result.wallSeconds)) s)")
        print("write_bytes:           \(result.writeBytes) (cancelled \(result.cancelledBytes))")
        print("written bytes/sample:  \(result.perSample(result.writeBytes))")
        print(
            "store growth/sample:   \(result.perSample(result.fileBytes)) (chunks \(result.perSample(result.chunkBytes)))"
        )
        print(
            "written / growth:      \(String(format: "%.2f", Double(result.writeBytes) / Double(max(result.fileBytes, 1))))×"
        )
        if result.writeBytes == 0 {
            throw HarnessError(
                .unsupported,
                "write_bytes did not move: \(directory) is on a file system that does not account writes (tmpfs, "
                    + "overlay): give --state-dir on a real disk")
        }
    }
}

/// The benchmark's input: a training session at 100 Hz (bouts of arm motion with impacts
/// alternating with pauses), the same model as the codec tests.
struct BenchmarkSignal {
    var samples: [IndexedSample] = []

    /// `count` samples of a motion script at 100 Hz, as a virtual sensor would stream them.
    init(script: MotionScript, count: Int, noise: Double?, seed: UInt64) {
        var options = MotionOptions()
        options.noise = noise
        let recording = MotionGenerator.render(
            script: script, seed: seed, rate: 100, duration: Double(count) / 100, options: options)
        samples = recording.raw.prefix(count).enumerated().map { index, raw in
            IndexedSample(index: Int64(index), t: StoreTime.microseconds(Double(index) / 100), raw: raw)
        }
    }

    init(count: Int) {
        var random = SplitMix64(seed: 0x5EED)
        func unit() -> Double { random.unit() }
        func noise() -> Double { (-2 * log(max(unit(), 1e-300))).squareRoot() * cos(2 * Double.pi * unit()) * 3 }
        func clip(_ value: Double) -> Int16 { Int16(max(-32768, min(32767, value.rounded()))) }
        let frequencies = [0.5, 1.1, 2.3, 4.2, 8.0]
        let amplitudes = [0.8, 0.5, 0.25, 0.08, 0.02]
        let phases = (0..<15).map { _ in unit() * 2 * Double.pi }
        samples.reserveCapacity(count)
        var boutEnd = 8 + unit() * 7
        var active = true
        var impact = 1.0
        var impactStart = -10.0
        var impactAxis = 0
        for n in 0..<count {
            let t = Double(n) / 100
            if t >= boutEnd {
                active.toggle()
                boutEnd = t + (active ? 8 + unit() * 7 : 5 + unit() * 7)
            }
            var axes = [0.0, -1.0, 0.0]
            if active {
                if t >= impact {
                    impactStart = t
                    impactAxis = Int(unit() * 3) % 3
                    impact = t + 1.5 + unit() * 1.5
                }
                for axis in 0..<3 {
                    for k in 0..<5 {
                        axes[axis] += amplitudes[k] * sin(2 * Double.pi * frequencies[k] * t + phases[axis * 5 + k])
                    }
                }
                let since = t - impactStart
                if since < 0.15 { axes[impactAxis] += 3 * exp(-since / 0.03) * cos(2 * Double.pi * 40 * since) }
            } else {
                let sway = 0.05 * sin(2 * Double.pi * 0.3 * t)
                axes = [0.1 + sway, -0.99 + sway / 2, 0.05]
            }
            samples.append(
                IndexedSample(
                    index: Int64(n), t: t,
                    raw: RawAcceleration(
                        x: clip(axes[0] * 16384 + noise()), y: clip(axes[1] * 16384 + noise()),
                        z: clip(axes[2] * 16384 + noise()))))
        }
    }
}
