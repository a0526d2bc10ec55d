// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import ControlProtocol
import Detection
import Foundation
import SDUSensor
import SessionStore
import StoreFormats

/// `sportsensorctl import`: a sample CSV or a btsnoop capture becomes a stored session.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store a recording (sample CSV or btsnoop capture) as a session with its detected events.",
        discussion: """
            Decodes FILE as `analyze` does, runs the profile's detector over the samples as the \
            store keeps them (raw counts, times to the microsecond) and stores samples, events and \
            the detection settings in one transaction. Prints the new session's id. Works while the \
            daemon runs.
            """
    )

    @OptionGroup var state: StateDirectoryOptions

    @Option(help: "The profile: table-tennis, jump, throw or steps.")
    var profile: String

    @OptionGroup var detection: DetectionOptions

    @Option(help: "The athlete's name (added when new).")
    var athlete: String?

    @Option(help: "The sensor's address (a capture names its own).")
    var sensor: String?

    @Option(help: "Wall-clock start, ISO 8601 (default: the capture's first record, else now).")
    var started: String?

    @Option(help: "For a capture: the accelerometer's ATT value handle, when the capture has no GATT discovery.")
    var handle: String?

    @Option(help: "For a capture: the sensor to import, when the capture holds several.")
    var address: String?

    @Argument(help: "The recording: a sample CSV (t,x,y,z) or a btsnoop capture.")
    var file: String

    @OptionGroup var daemon: DaemonSocketOption

    func validate() throws {
        if let athlete, let problem = NameRules.problem(with: athlete) {
            throw ValidationError("--athlete: the athlete name \(problem)")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try detection.settings(for: try StoreArguments.profile(profile))
            let handle = try handle.map { value throws(InputError) in try RecordingInput.parseHandle(value) }
            let address = try address.map { value throws(InputError) in try RecordingInput.parseAddress(value) }
            let sensor = try sensor.map { value throws(CommandFailure) in try StoreArguments.address(value) }
            let started = try started.map { value throws(CommandFailure) in
                try StoreArguments.date(value, option: "--started")
            }
            let decoded = try SessionImport.read(file, handle: handle, address: address)
            if decoded.roundedSamples > 0 {
                writeStandardError(
                    "warning: \(file): \(decoded.roundedSamples) sample(s) were not whole sensor counts "
                        + "(1/16384 g) and were rounded to the nearest count\n")
            }
            let id: String
            let addedAthlete: Bool
            if let endpoint = await StoreWriter.daemon(socket: daemon.socket, serving: state.directory) {
                let request = SessionImport.request(
                    decoded.recording, settings: settings, athlete: athlete, sensor: sensor, startedAt: started)
                let result = try await ControlClient.with(endpoint) { client in
                    try await client.send(
                        ControlRoute.importSession.request(), json: request, as: ImportResult.self, timeout: 3600)
                }
                (id, addedAthlete) = (result.session.id, result.addedAthlete)
            } else {
                let imported = try await state.openStore().importRecording(
                    decoded.recording, settings: settings, athlete: athlete, sensor: sensor, startedAt: started)
                (id, addedAthlete) = (imported.session.idText, imported.addedAthlete)
            }
            if addedAthlete, let athlete {
                writeStandardError("note: added the athlete \(athlete)\n")
            }
            StoreFormat.write(id + "\n")
        }
    }
}

/// Reading a recording into storable samples and storing it: the core of `import`, without I/O
/// to the terminal.
enum SessionImport {
    /// A decoded recording, and how many CSV samples were not whole counts.
    struct Decoded {
        var recording: SessionStore.Recording
        var roundedSamples = 0
    }

    /// Reads a sample CSV or a btsnoop capture (told apart by the first bytes).
    static func read(
        _ path: String, handle: UInt16? = nil, address: BluetoothAddress? = nil
    ) throws(InputError)
        -> Decoded
    {
        let data = try RecordingInput.read(path)
        if RecordingInput.isCapture(data) {
            let capture = try RecordingInput.decodeCapture(
                data, path: path,
                configuration: SDUCaptureDecoder.Configuration(accelerometerHandle: handle, peer: address))
            let recording = try RecordingInput.chooseRecording(capture, path: path, address: address, handle: handle)
            try RecordingInput.checkTimes(recording.samples().lazy.map(\.t), path: path)
            let samples = zip(recording.indices, recording.samples()).map { index, sample in
                IndexedSample(index: index, t: StoreTime.microseconds(sample.t), raw: counts(of: sample))
            }
            let statistics = recording.statistics
            return Decoded(
                recording: SessionStore.Recording(
                    samples: samples, sensor: recording.peer,
                    counts: SessionCounts(
                        received: Int64(samples.count), lost: Int64(statistics.lostSamples),
                        malformed: Int64(statistics.malformedNotifications),
                        sampleRate: RecordingInput.plausibleRate(recording.period.map { 1 / $0 })),
                    captureStart: firstRecordTime(data)))
        }
        let parsed: [AccelerationSample]
        do {
            parsed = try SampleCSV.parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw InputError(code: .malformedCSV, message: "\(path): \(error.description)", cause: error)
        }
        try RecordingInput.checkTimes(parsed.lazy.map(\.t), path: path)
        var samples: [IndexedSample] = []
        samples.reserveCapacity(parsed.count)
        var rounded = 0
        for (position, sample) in parsed.enumerated() {
            var whole = true
            func count(_ g: Double, _ axis: String) throws(InputError) -> Int16 {
                let exact = g * 16384
                let value = exact.rounded()
                guard value >= Double(Int16.min), value <= Double(Int16.max) else {
                    throw InputError(
                        code: .malformedCSV,
                        message: "\(path): sample \(position + 1) (t = \(sample.t) s) has \(axis) = \(g) g, beyond the "
                            + "sensor's ±2 g: the store keeps the sensor's raw counts (16384 per g), so values must "
                            + "lie within -2 to 1.99994 g")
                }
                if SampleCSV.wholeCount(g) == nil { whole = false }
                return Int16(value)
            }
            let raw = RawAcceleration(
                x: try count(sample.x, "x"), y: try count(sample.y, "y"), z: try count(sample.z, "z"))
            if !whole { rounded += 1 }
            samples.append(IndexedSample(index: Int64(position), t: StoreTime.microseconds(sample.t), raw: raw))
        }
        var rate: Double?
        if let first = samples.first, let last = samples.last, last.t > first.t {
            rate = RecordingInput.plausibleRate(Double(samples.count - 1) / (last.t - first.t))
        }
        return Decoded(
            recording: SessionStore.Recording(
                samples: samples, sensor: nil, counts: SessionCounts(received: Int64(samples.count), sampleRate: rate),
                captureStart: nil),
            roundedSamples: rounded)
    }

    /// The recording as `POST /v1/sessions/import` takes it.
    static func request(
        _ recording: SessionStore.Recording, settings: DetectionSettings, athlete: String?, sensor: BluetoothAddress?,
        startedAt: Date?
    ) -> ImportRequest {
        ImportRequest(
            profile: settings.profile.rawValue, rules: settings.rules.rawValue, set: settings.assignments,
            athlete: athlete, sensor: (sensor ?? recording.sensor).map { "\($0)" },
            sensorAddressType: (sensor ?? recording.sensor).map { "\($0.kind)" }, startedAt: startedAt,
            captureStart: recording.captureStart, lostSamples: recording.counts.lost,
            malformedNotifications: recording.counts.malformed, sampleRate: recording.counts.sampleRate,
            samples: ImportSamples(
                recording.samples.map { ImportSample(index: $0.index, t: $0.t, x: $0.raw.x, y: $0.raw.y, z: $0.raw.z) }
            ))
    }

    /// The raw counts of a sample decoded from counts (exact: count / 16384 × 16384).
    static func counts(of sample: AccelerationSample) -> RawAcceleration {
        RawAcceleration(
            x: Int16((sample.x * 16384).rounded()), y: Int16((sample.y * 16384).rounded()),
            z: Int16((sample.z * 16384).rounded()))
    }

    /// The timestamp of a capture's first record, when it is a plausible wall-clock time.
    static func firstRecordTime(_ data: Data) -> Date? {
        let first: HCIRecord? = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard var reader = try? BTSnoopReader(bytes: bytes) else { return nil }
            return try? reader.next()
        }
        guard let first else { return nil }
        let date = Date(timeIntervalSince1970: Double(first.timestamp) / 1_000_000)
        // Before 2000 or in the future: a capture without a real clock.
        guard date.timeIntervalSince1970 > 946_684_800, date <= Date().addingTimeInterval(86_400) else { return nil }
        return date
    }
}
