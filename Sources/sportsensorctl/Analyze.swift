// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import ControlProtocol
import Detection
import Foundation
import SDUSensor

/// Reads a recording: a sample CSV (Docs/FORMATS.md) or a btsnoop capture of one sensor, told
/// apart by the file's first bytes. A capture decodes as `sportsensorctl decode` would.
func loadSamples(
    _ path: String, handle: UInt16? = nil, address: BluetoothAddress? = nil
) throws(InputError)
    -> [AccelerationSample]
{
    let data = try RecordingInput.read(path)
    if RecordingInput.isCapture(data) {
        let capture = try RecordingInput.decodeCapture(
            data, path: path, configuration: SDUCaptureDecoder.Configuration(accelerometerHandle: handle, peer: address)
        )
        let samples = try RecordingInput.chooseRecording(capture, path: path, address: address, handle: handle)
            .samples()
        try RecordingInput.checkTimes(samples.lazy.map(\.t), path: path)
        return samples
    }
    let samples: [AccelerationSample]
    do {
        samples = try SampleCSV.parse(String(decoding: data, as: UTF8.self))
    } catch {
        throw InputError(code: .malformedCSV, message: "\(path): \(error.description)", cause: error)
    }
    try RecordingInput.checkTimes(samples.lazy.map(\.t), path: path)
    // Live detection ran on the sensor's counts; the CSV's six decimals only approximate them.
    return samples.map {
        AccelerationSample(
            t: $0.t, x: SampleCSV.restoringCount($0.x), y: SampleCSV.restoringCount($0.y),
            z: SampleCSV.restoringCount($0.z))
    }
}

/// Runs the detector the settings call for over a whole recording; events in time order.
func detectEvents(in samples: [AccelerationSample], settings: DetectionSettings) -> [DetectorEvent] {
    settings.detector.eventsInTimeOrder(in: samples)
}

/// The session summary of a recording.
func summarize(_ samples: [AccelerationSample], events: [DetectorEvent], profile: DetectionProfile) -> SessionSummary {
    SessionSummaryAccumulator.summary(profile: profile, samples: samples, events: events)
}

extension DetectionProfile: ExpressibleByArgument {}
extension DetectionRules: ExpressibleByArgument {}

/// `sportsensorctl analyze`: events or a summary from a recording.
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect hits, jumps, throws or steps in a recording (sample CSV or btsnoop capture).",
        discussion: "Prints one JSON object per event, in time order; --summary prints the profile summary instead."
    )

    /// Output formats for the summary.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json
        case table
    }

    @Option(help: "The profile: table-tennis, jump, throw or steps.")
    var profile: DetectionProfile

    @OptionGroup var detection: DetectionOptions

    @Flag(help: "Print the session summary (one JSON object, Docs/METRICS.md) instead of the events.")
    var summary = false

    @Option(name: .customLong("mass-kg"), help: "The athlete's body mass in kg, for the summary's kcal.")
    var massKg: Double?

    @Option(help: "Summary format: json or table (table implies --summary).")
    var format: Format = .json

    @Flag(help: "JSON output (the default; spelled out as the other commands take it).")
    var json = false

    func validate() throws {
        if json && format == .table {
            throw ValidationError("--json and --format table exclude each other: choose one")
        }
    }

    @Option(help: "For a capture: the accelerometer's ATT value handle, when the capture has no GATT discovery.")
    var handle: String?

    @Option(help: "For a capture: the sensor to analyse, when the capture holds several.")
    var address: String?

    @Argument(help: "The recording: a sample CSV (t,x,y,z) or a btsnoop capture.")
    var file: String

    func run() throws {
        let settings: DetectionSettings
        let samples: [AccelerationSample]
        do {
            if let massKg, !(massKg > 0 && massKg < 500) {
                throw CommandFailure.usage("--mass-kg \(massKg) is not a body mass: give kilograms between 0 and 500")
            }
            settings = try detection.settings(for: profile)
            let handle = try handle.map { value throws(InputError) in try RecordingInput.parseHandle(value) }
            let address = try address.map { value throws(InputError) in try RecordingInput.parseAddress(value) }
            samples = try loadSamples(file, handle: handle, address: address)
        } catch let error as CommandFailure {
            writeStandardError("error: \(error.message)\n")
            throw ExitCode(error.exitCode)
        } catch let error as InputError {
            writeStandardError("error: \(error.message)\n")
            throw ExitCode(error.exitCode)
        }
        let events = detectEvents(in: samples, settings: settings)
        if summary || format == .table {
            let result = summarize(samples, events: events, profile: profile).withBodyMass(
                massKg, note: "no body mass given: pass --mass-kg KG")
            writeStandardOutput((format == .table ? result.table : result.jsonLine) + "\n")
        } else {
            var output = ""
            for event in events { output += EventRecord(event).jsonLine + "\n" }
            writeStandardOutput(output)
        }
    }
}
