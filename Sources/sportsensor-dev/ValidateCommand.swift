// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Detection
import Foundation
import SDUSensor

/// `sportsensor-dev validate`: the detectors and the baseline rules on real public recordings
/// (converted by `Validation/convert.py`; `make validate` fetches and converts them).
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Score the detectors and the baseline rules on real recordings with reference labels.",
        discussion: """
            Reads the manifest.csv that Validation/convert.py writes (make validate fetches the \
            pinned packages and converts them) and prints one Markdown row per dataset, split, \
            placement, rate and profile. Tune on the development split only; the held-out rows are \
            for reporting. Docs/VALIDATION.md describes the datasets and the scoring.
            """
    )

    @Option(help: "The converted recordings' manifest.")
    var manifest = ".build/validation-data/converted/manifest.csv"

    @Option(help: "Largest time difference between a detected step and a reference step, s.")
    var stepTolerance = 0.2

    @Option(help: "Largest time difference between a detected and a reference takeoff or release, s.")
    var flightTolerance = 0.15

    @Option(help: "Largest time difference between a hit and its reference stroke, s.")
    var hitTolerance = 0.25

    @Flag(
        help:
            "Exit non-zero, naming each figure, when a tt-wrist or steps-oxford figure falls below its threshold (ValidationGate)."
    )
    var gate = false

    @Flag(help: "Print each recording's missed reference events and unmatched detections (standard rules).")
    var details = false

    @Option(help: "Replace the generated table in this Markdown file instead of printing it.")
    var update: String?

    @Option(help: "Score only the recordings of this split (development or held-out), for tuning.")
    var split: String?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set one detector parameter, key=value as the configuration file names it (repeatable; keys a profile does not have are skipped for it). Tune on --split development only.",
            valueName: "key=value"))
    var assignments: [String] = []

    func validate() throws {
        guard stepTolerance > 0, flightTolerance > 0, hitTolerance > 0 else {
            throw ValidationError("--step-tolerance, --flight-tolerance and --hit-tolerance must be positive seconds")
        }
        if update != nil || gate, split != nil || !assignments.isEmpty {
            throw ValidationError(
                "--update and --gate score the defaults on both splits: run them without --split and --set")
        }
    }

    func run() throws {
        let loaded = try LoadedRecording.load(manifest: manifest).filter { split == nil || $0.recording.split == split }
        if let split, loaded.isEmpty {
            throw ValidationError("no recording of the manifest is in split '\(split)': give development or held-out")
        }
        let chosen = try DetectionSettings.tuning(DetectionProfile.allCases, assignments: assignments)
        let rows = scoreValidation(
            loaded, tolerance: ValidationTolerance(step: stepTolerance, flight: flightTolerance),
            details: details ? { print($0) } : nil,
            settings: { chosen[$0] ?? DetectionSettings(profile: $0) })
        let hits = scoreHits(
            loaded, tolerance: hitTolerance,
            settings: chosen[.tableTennis] ?? DetectionSettings(profile: .tableTennis))
        if details { hitDetails(hits).forEach { print($0) } }
        let hitTables = validationHitTables(hits, command: "make validate-offline")
        let table =
            validationTable(withPlacementTotals(rows)) + validationFlagTable(rows) + validationFalseFlightTable(rows)
        if let update {
            var report = try readValidationFile(
                update, what: "report", fix: "--update names an existing Markdown file with the table's marker lines")
            if !hits.isEmpty {
                report = try replacingGeneratedTable(
                    in: report, with: hitTables, marker: "sportsensor-dev validate hits")
            }
            try replacingGeneratedTable(in: report, with: table).write(
                toFile: update, atomically: true, encoding: .utf8)
        } else {
            print(hitTables + (hitTables.isEmpty ? "" : "\n") + table, terminator: "")
        }
        if gate {
            let failures = ValidationGate.failures(hits: hits, rows: rows)
            guard failures.isEmpty else {
                for failure in failures { FileHandle.standardError.write(Data("validate --gate: \(failure)\n".utf8)) }
                throw ExitCode.failure
            }
            print("validate --gate: every figure holds its threshold (ValidationGate)")
        }
    }
}

extension LoadedRecording {
    /// Every recording `manifest` lists, with its samples and labels (paths relative to it).
    static func load(manifest: String) throws(ValidationDataError) -> [LoadedRecording] {
        let folder = (manifest as NSString).deletingLastPathComponent
        let recordings = try ValidationRecording.parseManifest(try readValidationFile(manifest, what: "manifest"))
        return try recordings.map { (recording) throws(ValidationDataError) in
            let samplesPath = (folder as NSString).appendingPathComponent(recording.samples)
            let labelsPath = (folder as NSString).appendingPathComponent(recording.labels)
            let samples: [AccelerationSample]
            do {
                samples = try SampleCSV.parse(try readValidationFile(samplesPath, what: "samples"))
            } catch let error as ValidationDataError {
                throw error
            } catch {
                throw ValidationDataError(
                    code: .badSamples, message: "\(samplesPath) is not a sample CSV (\(error)): rerun `make validate`")
            }
            let labels = try ValidationLabels.parse(
                try readValidationFile(labelsPath, what: "labels"), name: labelsPath)
            return LoadedRecording(recording: recording, samples: samples, labels: labels.events, swings: labels.swings)
        }
    }
}

private func readValidationFile(
    _ path: String, what: String, fix: String = "run `make validate` (it fetches and converts the data)"
) throws(ValidationDataError) -> String {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        throw ValidationDataError(
            code: .missingData,
            message: "cannot read the \(what) file \(path): \(fix)")
    }
    return text
}
