// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Detection
import Foundation
import SDUSensor
import SessionStore
import StoreFormats
import VirtualSensor

/// `bench-store --sensors N`: disk bytes written per stored sample while N virtual sensors record
/// at 100 Hz, measured from the process's `/proc/self/io` `write_bytes` (bytes the process caused
/// to be sent to the block device: WAL, checkpoints and every other file the store writes).
///
/// Time is simulated so ten minutes of recording do not take ten minutes, but every recorder is
/// driven as the daemon drives it: each `flushInterval` of recording time the samples and events
/// of that interval are handed over and the recorder flushes once, and once a second the
/// session's counters are updated (`SessionPipeline.tick`). `realtime` sleeps out each interval,
/// so the kernel's writeback timing is the daemon's too.
struct StoreWearBenchmark {
    var sensors: Int
    var minutes: Double
    var directory: String
    var realtime: Bool
    var configuration: SessionRecorder<ContinuousClock>.Configuration

    struct Sensor {
        var samples: [IndexedSample]
        var events: [EventRecord]
        var recorder: SessionRecorder<ContinuousClock>
        var nextSample = 0
        var nextEvent = 0
    }

    /// What a run measured.
    struct Result {
        var samples: Int64
        var events: Int64
        var writeBytes: Int64
        var cancelledBytes: Int64
        var fileBytes: Int64
        var chunkBytes: Int64
        var flushes: Int
        var wallSeconds: Double

        func perSample(_ bytes: Int64) -> String {
            String(format: "%.2f", Double(bytes) / Double(max(samples, 1)))
        }
    }

    /// The virtual sensors' signals: the motion scripts in turn (table tennis, jump, throw, steps),
    /// one seed per sensor, with the events each profile's detector finds in them.
    static func signal(sensor: Int, count: Int) -> (samples: [IndexedSample], events: [EventRecord]) {
        let scripts: [MotionScript] = [.tableTennis, .jumps, .throwing, .steps]
        let script = scripts[sensor % scripts.count]
        let recording = MotionGenerator.render(
            script: script, seed: 2026 + UInt64(sensor), rate: 100, duration: Double(count) / 100)
        let samples = recording.raw.prefix(count).enumerated().map { index, raw in
            IndexedSample(index: Int64(index), t: StoreTime.microseconds(Double(index) / 100), raw: raw)
        }
        let profile = DetectionProfile(rawValue: script.rawValue) ?? .tableTennis
        let events = DetectionSettings(profile: profile).detector.eventsInTimeOrder(in: samples.map(\.acceleration))
        return (samples, events.map(EventRecord.init))
    }

    func run() async throws -> Result {
        let store = try SessionStore.open(at: StateDirectory(path: directory))
        let count = Int(minutes * 60 * 100)
        var fleet: [Sensor] = []
        for index in 0..<sensors {
            let (samples, events) = Self.signal(sensor: index, count: count)
            let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .tableTennis)))
            let recorder = try await store.recorder(for: session, configuration: configuration)
            fleet.append(Sensor(samples: samples, events: events, recorder: recorder))
        }
        try await store.checkpoint()
        let sizeBefore = Self.storeBytes(directory)
        let before = try ProcessIO.current()
        let clock = ContinuousClock()
        let started = clock.now
        let interval = configuration.flushInterval.inSeconds
        let ticks = Int((Double(count) / 100 / interval).rounded(.up))
        var nextCounts = 1.0
        for tick in 1...ticks {
            let until = Double(tick) * interval
            let countsDue = until >= nextCounts
            if countsDue { nextCounts += 1 }
            for index in fleet.indices {
                fleet[index].handOver(until: until, countsDue: countsDue)
                try await fleet[index].recorder.flush()
            }
            if realtime {
                try await clock.sleep(until: started.advanced(by: .seconds(until)), tolerance: .milliseconds(5))
            }
        }
        for sensor in fleet { try await sensor.recorder.finish(reason: .stopped) }
        // What the WAL holds is counted once more when it reaches the database file.
        try await store.checkpoint()
        let after = try ProcessIO.current()
        let wall = (clock.now - started).inSeconds
        var result = Result(
            samples: 0, events: 0, writeBytes: after.writeBytes - before.writeBytes,
            cancelledBytes: after.cancelledWriteBytes - before.cancelledWriteBytes,
            fileBytes: Self.storeBytes(directory) - sizeBefore, chunkBytes: 0, flushes: 0, wallSeconds: wall)
        for sensor in fleet {
            let statistics = sensor.recorder.statistics
            result.samples += statistics.samplesWritten
            result.events += statistics.eventsWritten
            result.flushes += statistics.flushes
            result.chunkBytes += try await store.sampleStorage(of: sensor.recorder.session.id).bytes
        }
        try store.close()
        return result
    }

    /// Bytes of every file in the state directory.
    static func storeBytes(_ directory: String) -> Int64 {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return 0 }
        var total: Int64 = 0
        for case let name as String in enumerator {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            if attributes?[.type] as? FileAttributeType == .typeRegular, !name.hasSuffix(".lock"),
                !name.hasSuffix("-shm")
            {
                total += Int64((attributes?[.size] as? Int) ?? 0)
            }
        }
        return total
    }
}

extension StoreWearBenchmark.Sensor {
    /// Hands the recorder what the sensor produced up to `until` (s), in notifications of 3 samples.
    mutating func handOver(until: Double, countsDue: Bool) {
        var end = nextSample
        while end < samples.count, samples[end].t < until { end += 1 }
        var start = nextSample
        while start < end {
            let next = min(start + 3, end)
            recorder.record(samples: samples[start..<next])
            start = next
        }
        nextSample = end
        while nextEvent < events.count, events[nextEvent].t < until {
            recorder.record(event: events[nextEvent])
            nextEvent += 1
        }
        if countsDue { recorder.update(counts: SessionCounts(received: Int64(nextSample), sampleRate: 100)) }
    }
}

/// This process's storage counters (`/proc/self/io`).
struct ProcessIO {
    /// Bytes the process caused to be sent to a block device (pages it dirtied).
    var writeBytes: Int64
    /// Bytes it dirtied that were truncated or deleted before they were written.
    var cancelledWriteBytes: Int64

    static func current() throws -> ProcessIO {
        let text = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
        var values: [Substring: Int64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":")
            if parts.count == 2 { values[parts[0]] = Int64(parts[1].trimmingCharacters(in: .whitespaces)) }
        }
        guard let written = values["write_bytes"] else {
            throw HarnessError(
                .unsupported,
                "/proc/self/io has no write_bytes: this kernel does not account I/O per task (CONFIG_TASK_IO_ACCOUNTING)"
            )
        }
        return ProcessIO(writeBytes: written, cancelledWriteBytes: values["cancelled_write_bytes"] ?? 0)
    }
}
