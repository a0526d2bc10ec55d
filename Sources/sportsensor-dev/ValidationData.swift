// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import Detection
import VirtualSensor

/// A validation input that cannot be used: what was wrong and how to get a good one.
struct ValidationDataError: CodeAndMessageHashable {
    enum Code: String, NamedCode {
        case missingData = "missing-data"
        case badManifest = "bad-manifest"
        case badLabels = "bad-labels"
        case badSamples = "bad-samples"
        case badReport = "bad-report"
    }

    var code: Code
    var message: String
}

/// One converted recording at one rate, as `Validation/convert.py` lists it in `manifest.csv`.
struct ValidationRecording: Sendable, Equatable {
    var dataset: String
    var recording: String
    var subject: String
    var placement: String
    /// `development` (tune on it) or `held-out` (report only).
    var split: String
    var rate: Double
    /// Paths relative to the manifest's folder.
    var samples: String
    var labels: String
    /// The profiles to run on it. A profile whose event kind has no label in the labels file scores
    /// every detection as false.
    var profiles: [DetectionProfile]
    var duration: Double
    /// A table-tennis drill's stroke type (`topspin`, `flip`, `block`, or `rest` between drills);
    /// empty for other recordings.
    var stroke = ""
    /// A table-tennis drill's side (`forehand` or `backhand`); empty where the drill has none.
    var side = ""

    static let header =
        "dataset,recording,subject,placement,split,rate,samples,labels,score,duration_s,clipped_pct,stroke,side"

    /// The manifest's rows; the header must be exactly ``header``.
    static func parseManifest(_ text: String) throws(ValidationDataError) -> [ValidationRecording] {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        guard !lines.isEmpty, lines.removeFirst() == header else {
            throw ValidationDataError(
                code: .badManifest,
                message: "the manifest's first line is not `\(header)`: regenerate it with `make validate`")
        }
        return try lines.enumerated().map { (index, line) throws(ValidationDataError) in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let number = index + 2
            guard fields.count == 13 else {
                throw ValidationDataError(
                    code: .badManifest, message: "manifest line \(number) has \(fields.count) fields, not 13")
            }
            guard let rate = Double(fields[5]), rate > 0, let duration = Double(fields[9]), duration > 0 else {
                throw ValidationDataError(
                    code: .badManifest, message: "manifest line \(number): rate and duration_s must be positive numbers"
                )
            }
            guard ["development", "held-out"].contains(fields[4]) else {
                throw ValidationDataError(
                    code: .badManifest,
                    message: "manifest line \(number): split is `\(fields[4])`, not development or held-out")
            }
            var profiles: [DetectionProfile] = []
            for name in fields[8].split(separator: ";") {
                guard let profile = DetectionProfile(rawValue: String(name)) else {
                    throw ValidationDataError(
                        code: .badManifest,
                        message: "manifest line \(number): unknown profile `\(name)` (one of "
                            + DetectionProfile.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                }
                profiles.append(profile)
            }
            return ValidationRecording(
                dataset: fields[0], recording: fields[1], subject: fields[2], placement: fields[3], split: fields[4],
                rate: rate, samples: fields[6], labels: fields[7], profiles: profiles, duration: duration,
                stroke: fields[11], side: fields[12])
        }
    }
}

/// A labels file's content: the reference events, and the stroke-like swings the gyroscope saw in a
/// table-tennis rest recording (not events: the kit reports them beside the hits counted there).
struct ValidationLabelFile: Sendable, Equatable {
    var events: [MotionLabel] = []
    var swings: [Double] = []
}

/// Reference labels: `kind,start,end` with kind step, hit or swing (start only), jump or throw
/// (takeoff and landing, release and catch), times in seconds from the recording's first sample.
enum ValidationLabels {
    static func parse(_ text: String, name: String) throws(ValidationDataError) -> ValidationLabelFile {
        var file = ValidationLabelFile()
        for (index, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            if number == 1 {
                guard line == "kind,start,end" else {
                    throw ValidationDataError(
                        code: .badLabels, message: "\(name): the first line is not `kind,start,end`")
                }
                continue
            }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 3, let start = Double(fields[1]), start.isFinite else {
                throw ValidationDataError(
                    code: .badLabels, message: "\(name) line \(number): expected kind,start,end with a numeric start")
            }
            let end = Double(fields[2])
            switch (fields[0], end) {
            case ("step", nil) where fields[2].isEmpty: file.events.append(.step(t: start))
            // The reference has the stroke's time only; its true peak is not known.
            case ("hit", nil) where fields[2].isEmpty: file.events.append(.hit(t: start, intensityG: 0))
            case ("swing", nil) where fields[2].isEmpty: file.swings.append(start)
            case ("jump", .some(let end)) where end > start: file.events.append(.jump(takeoff: start, landing: end))
            case ("throw", .some(let end)) where end > start: file.events.append(.throw(release: start, catch: end))
            default:
                throw ValidationDataError(
                    code: .badLabels,
                    message:
                        "\(name) line \(number): `\(line)` is not a step, hit or swing (no end) or a jump/throw (end after start)"
                )
            }
        }
        return file
    }
}
