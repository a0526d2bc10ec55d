// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Foundation
import SDUSensor

/// `sportsensorctl decode`: a btsnoop capture of an SDU session → the sample interchange CSV.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode an SDU sensor's samples from a btsnoop capture into the sample CSV (t,x,y,z).",
        discussion: """
            CAPTURE is a btsnoop file: `btmon -w` (Linux), Android's Bluetooth HCI snoop log, or an \
            hcidump/HCI capture. The accelerometer's value handle comes from the GATT discovery in \
            the capture; pass --handle when the capture started after the sensor connected. t is \
            in seconds since the first decoded sample, from the capture's timestamps with the \
            sample period fitted over the whole capture; x, y, z are in g (Docs/FORMATS.md).
            """
    )

    @Option(help: "The accelerometer's ATT value handle (0x0015 or 21), for captures without GATT discovery.")
    var handle: String?

    @Option(help: "Decode only the sensor with this address, when the capture holds several.")
    var address: String?

    @Flag(help: "Print counts (samples, malformed, lost, ignored PDUs) to standard error.")
    var stats = false

    @Argument(help: "The capture file.")
    var capture: String

    func run() throws {
        do {
            try decode()
        } catch {
            writeStandardError("error: \(error.message)\n")
            throw ExitCode(error.exitCode)
        }
    }

    private func decode() throws(InputError) {
        let handle = try handle.map { value throws(InputError) in try RecordingInput.parseHandle(value) }
        let address = try address.map { value throws(InputError) in try RecordingInput.parseAddress(value) }
        let data = try RecordingInput.read(capture)
        guard RecordingInput.isCapture(data) else {
            throw InputError(
                code: .malformedCapture,
                message: "\(capture): not a btsnoop capture (it does not start with \"btsnoop\"); "
                    + "record one with `btmon -w FILE` or take Android's Bluetooth HCI snoop log")
        }
        let decoded = try RecordingInput.decodeCapture(
            data, path: capture,
            configuration: SDUCaptureDecoder.Configuration(accelerometerHandle: handle, peer: address))
        if let stopped = decoded.stoppedEarly {
            writeStandardError(
                "warning: \(capture): the capture ends early (\(stopped.message)); decoded every record before it\n")
        }
        let recording = try RecordingInput.chooseRecording(decoded, path: capture, address: address, handle: handle)
        var output = SampleCSV.header + "\n"
        output.reserveCapacity(recording.readings.count * 40)
        for sample in recording.samples() { output += SampleCSV.line(sample) + "\n" }
        writeStandardOutput(output)
        if stats { writeStandardError(Self.statistics(recording, decoded)) }
    }

    /// The `--stats` report: one `name: value` line each, for people and for `grep`.
    static func statistics(
        _ recording: SDUCaptureDecoder.SensorRecording, _ capture: RecordingInput.DecodedCapture
    )
        -> String
    {
        let s = recording.statistics
        let rate = recording.period.map { SampleCSV.fixed(1 / $0, decimals: 3) + " Hz" } ?? "unknown (one notification)"
        let lines = [
            ("sensor", recording.name),
            ("datalink", "\(capture.datalink.rawValue)"),
            ("value handle", "0x" + RecordingInput.hex4(recording.valueHandle)),
            ("samples", "\(recording.readings.count)"),
            ("notifications", "\(s.notifications)"),
            ("malformed notifications", "\(s.malformedNotifications)"),
            ("counter", "\(s.counterMode)"),
            ("lost samples (counter)", "\(s.lostSamples) in \(s.gaps) gap(s)"),
            ("duplicate notifications", "\(s.duplicateNotifications)"),
            ("counter resyncs", "\(s.resyncs)"),
            ("sample rate", rate),
            ("ignored ATT PDUs", "\(capture.result.ignoredPDUs)"),
            ("dropped L2CAP fragments", "\(capture.result.extraction.droppedFragments)"),
        ]
        return lines.map { "\($0.0): \($0.1)\n" }.joined()
    }
}
