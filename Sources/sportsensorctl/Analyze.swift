// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Detection
import Foundation
import SDUSensor

/// An error loading or analysing a recording.
struct AnalyzeError: Error, CustomStringConvertible {
    /// What went wrong.
    struct Code: Hashable, Sendable {
        let name: String
        /// The file could not be read.
        static let unreadable = Code(name: "unreadable")
        /// The sample CSV is malformed (the message names the line).
        static let malformedCSV = Code(name: "malformedCSV")
        /// The file is a btsnoop capture, which this build cannot decode yet.
        static let unsupportedCapture = Code(name: "unsupportedCapture")
    }

    var code: Code
    var message: String
    var cause: (any Error)?

    var description: String { message }
}

/// Reads a recording: a sample CSV (Docs/FORMATS.md). Dispatches on the file's first bytes so that
/// btsnoop captures ("btsnoop\0") can be decoded here once the capture decoder lands.
func loadSamples(_ path: String) throws -> [AccelerationSample] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw AnalyzeError(code: .unreadable, message: "\(path): cannot read the file; check the path and permissions")
    }
    let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    if data.count >= magic.count && Array(data.prefix(magic.count)) == magic {
        throw AnalyzeError(
            code: .unsupportedCapture,
            message: "\(path): btsnoop captures are not decoded by this build yet; convert it to a sample CSV first")
    }
    let text = String(decoding: data, as: UTF8.self)
    do {
        return try SampleCSV.parse(text)
    } catch {
        throw AnalyzeError(code: .malformedCSV, message: "\(path): \(error.description)", cause: error)
    }
}

/// Runs a profile's detector over a whole recording; events in time order.
func detectEvents(
    in samples: [AccelerationSample], profile: DetectionProfile, rules: DetectionRules = .standard
) -> [DetectorEvent] {
    let events = ProfileDetector(profile: profile, rules: rules).events(in: samples)
    return events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
}

/// The profile summary of a recording.
func summarize(_ samples: [AccelerationSample], events: [DetectorEvent], profile: DetectionProfile) -> ProfileSummary {
    var summary = ProfileSummary(profile: profile)
    if let first = samples.first { summary.observe(time: first.t) }
    if let last = samples.last { summary.observe(time: last.t) }
    for event in events { summary.add(event) }
    return summary
}

extension DetectionProfile: ExpressibleByArgument {}
extension DetectionRules: ExpressibleByArgument {}

/// `sportsensorctl analyze`: events or a summary from a recording.
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect hits, jumps, throws or steps in a recording (sample CSV).",
        discussion: "Prints one JSON object per event, in time order; --summary prints the profile summary instead."
    )

    /// Output formats for the summary.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json
        case table
    }

    @Option(help: "The profile: table-tennis, jump, throw or steps.")
    var profile: DetectionProfile

    @Option(help: "standard (this project's detectors) or baseline (the rules existing apps use).")
    var rules: DetectionRules = .standard

    @Flag(help: "Print the profile summary instead of the events.")
    var summary = false

    @Option(help: "Summary format: json or table (table implies --summary).")
    var format: Format = .json

    @Argument(help: "The recording: a sample CSV (t,x,y,z).")
    var file: String

    func run() throws {
        let samples: [AccelerationSample]
        do {
            samples = try loadSamples(file)
        } catch let error as AnalyzeError {
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            throw ExitCode(2)
        }
        let events = detectEvents(in: samples, profile: profile, rules: rules)
        if summary || format == .table {
            let result = summarize(samples, events: events, profile: profile)
            print(format == .table ? EventJSON.table(result) : EventJSON.summary(result))
        } else {
            var output = ""
            for event in events { output += EventJSON.line(event) + "\n" }
            print(output, terminator: "")
        }
    }
}
