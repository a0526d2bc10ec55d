// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import VirtualSensor

/// A converted recording with its samples and reference labels loaded.
struct LoadedRecording: Sendable {
    var recording: ValidationRecording
    var samples: [AccelerationSample]
    var labels: [MotionLabel]
    /// A table-tennis rest recording's stroke-like gyroscope swings, s (not events).
    var swings: [Double] = []
}

/// The scores of one profile, standard and baseline rules, over the recordings of one dataset,
/// split, placement and rate: one row of Docs/VALIDATION.md.
struct ValidationRow: Sendable {
    var dataset: String
    var split: String
    var placement: String
    var rate: Double
    var profile: DetectionProfile
    var recordings = 0
    var hours = 0.0
    /// Jump and throw reference events in the row's recordings, whatever the profile: a row
    /// without any is movement in which every flight is false (`validationFalseFlightTable`).
    var flightLabels = 0
    var standard = EvaluationScore()
    var baseline = EvaluationScore()
}

/// Largest time difference between a detection and its label: steps and flights.
struct ValidationTolerance: Sendable {
    var step = 0.2
    var flight = 0.15

    func seconds(for kind: EventKind) -> Double { kind == .step ? step : flight }
}

/// Runs every recording's profiles with the standard and the baseline rules and scores them with
/// the evaluation's `EvaluationScore`, grouped into rows in the order the rows first appear.
/// With `details`, each recording's missed reference events and unmatched detections go to `report`.
func scoreValidation(
    _ recordings: [LoadedRecording], tolerance: ValidationTolerance, details: ((String) -> Void)? = nil,
    settings: (DetectionProfile) -> DetectionSettings = { DetectionSettings(profile: $0) }
) -> [ValidationRow] {
    var rows: [ValidationRow] = []
    // Table-tennis drills and rest have their own tables (`scoreHits`).
    for loaded in recordings where loaded.recording.stroke.isEmpty {
        let recording = loaded.recording
        let flightLabels = loaded.labels.count {
            switch $0 {
            case .jump, .throw: true
            case .hit, .step: false
            }
        }
        for profile in recording.profiles {
            let index =
                rows.firstIndex {
                    $0.dataset == recording.dataset && $0.split == recording.split
                        && $0.placement == recording.placement && $0.rate == recording.rate && $0.profile == profile
                }
                ?? {
                    rows.append(
                        ValidationRow(
                            dataset: recording.dataset, split: recording.split, placement: recording.placement,
                            rate: recording.rate, profile: profile))
                    return rows.count - 1
                }()
            let seconds = tolerance.seconds(for: profile.eventKind)
            rows[index].recordings += 1
            rows[index].hours += recording.duration / 3600
            rows[index].flightLabels += flightLabels
            let (missed, extra) = rows[index].standard.add(
                events: settings(profile).detector.eventsInTimeOrder(in: loaded.samples),
                labels: loaded.labels, kind: profile.eventKind, tolerance: seconds)
            if let details, !missed.isEmpty || !extra.isEmpty {
                details("\(recording.dataset)/\(recording.recording) \(Int(recording.rate)) Hz \(profile.rawValue):")
                for label in missed { details("  missed \(label)") }
                for event in extra { details("  extra  \(event)") }
            }
            rows[index].baseline.add(
                events: DetectionSettings(profile: profile, rules: .baseline).detector.eventsInTimeOrder(
                    in: loaded.samples),
                labels: loaded.labels, kind: profile.eventKind, tolerance: seconds)
        }
    }
    return rows
}

/// Name of the row that pools a dataset's placements.
let allPlacements = "all placements"

/// `rows` with, for each dataset, split, rate and profile scored at more than one placement, one row
/// pooling them (placement ``allPlacements``): the count error of the whole set. The totals follow the
/// last row of their dataset and split.
func withPlacementTotals(_ rows: [ValidationRow]) -> [ValidationRow] {
    func group(_ row: ValidationRow) -> [String] {
        [row.dataset, row.split, "\(row.rate)", row.profile.rawValue]
    }
    var result: [ValidationRow] = []
    for (index, row) in rows.enumerated() {
        result.append(row)
        guard !rows[(index + 1)...].contains(where: { $0.dataset == row.dataset && $0.split == row.split }) else {
            continue
        }
        var seen: [[String]] = []
        for first in rows where first.dataset == row.dataset && first.split == row.split && !seen.contains(group(first))
        {
            seen.append(group(first))
            let members = rows.filter { group($0) == group(first) }
            guard Set(members.map(\.placement)).count > 1 else { continue }
            var total = ValidationRow(
                dataset: first.dataset, split: first.split, placement: allPlacements, rate: first.rate,
                profile: first.profile)
            for member in members {
                total.recordings += member.recordings
                total.hours += member.hours
                total.flightLabels += member.flightLabels
                total.standard.absorb(member.standard)
                total.baseline.absorb(member.baseline)
            }
            result.append(total)
        }
    }
    return result
}

extension EvaluationScore {
    /// Adds `other`'s counts to these, as if its recordings had been scored here.
    mutating func absorb(_ other: EvaluationScore) {
        truePositives += other.truePositives
        detections += other.detections
        labels += other.labels
        heightErrorSumCm += other.heightErrorSumCm
        heightErrorMaxCm = max(heightErrorMaxCm, other.heightErrorMaxCm)
        heightCount += other.heightCount
        heightErrorsCm += other.heightErrorsCm
        stepCountTruth += other.stepCountTruth
        stepCountDetected += other.stepCountDetected
        recordingCountErrorSum += other.recordingCountErrorSum
        recordings += other.recordings
        falseEvents += other.falseEvents
        eventFreeHours += other.eventFreeHours
        for (flag, tally) in other.flagged {
            flagged[flag, default: FlagTally()].detections += tally.detections
            flagged[flag, default: FlagTally()].matched += tally.matched
            flagged[flag, default: FlagTally()].heightErrorsCm += tally.heightErrorsCm
        }
        unflagged.detections += other.unflagged.detections
        unflagged.matched += other.unflagged.matched
        unflagged.heightErrorsCm += other.unflagged.heightErrorsCm
    }
}

/// Bland–Altman agreement of paired differences: mean and mean ± 1.96 SD (sample SD).
struct Agreement: Sendable, Equatable {
    var bias: Double
    var lower: Double
    var upper: Double

    init?(differences: [Double]) {
        guard differences.count >= 2 else { return nil }
        let n = Double(differences.count)
        let mean = differences.reduce(0, +) / n
        let sd = (differences.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)).squareRoot()
        bias = mean
        lower = mean - 1.96 * sd
        upper = mean + 1.96 * sd
    }
}

extension EvaluationScore {
    /// (detected − reference) / reference events, %: signed, so an undercount reads negative.
    var signedCountErrorPercent: Double? {
        labels > 0 ? 100 * Double(detections - labels) / Double(labels) : nil
    }

    /// Detections that matched no reference event.
    var falseDetections: Int { detections - truePositives }
}

/// The validation rows as the Markdown table of Docs/VALIDATION.md.
func validationTable(_ rows: [ValidationRow]) -> String {
    func f(_ value: Double, _ decimals: Int) -> String { SampleCSV.fixed(value, decimals: decimals) }
    func cells(_ score: EvaluationScore, hours: Double) -> String {
        let scored = score.labels > 0
        var text = scored ? "\(f(score.precision, 3)) | \(f(score.recall, 3)) | \(f(score.f1, 3)) | " : "– | – | – | "
        text += score.signedCountErrorPercent.map { "\(f($0, 1)) | " } ?? "– | "
        if let agreement = Agreement(differences: score.heightErrorsCm) {
            text += "\(f(agreement.bias, 2)) (\(f(agreement.lower, 2)) to \(f(agreement.upper, 2))) | "
        } else if let only = score.heightErrorsCm.first {
            text += "\(f(only, 2)) (n = 1) | "
        } else {
            text += "– | "
        }
        text += "\(score.falseDetections) (\(f(Double(score.falseDetections) / hours, 1))) |"
        return text
    }
    var text = """
        | dataset | split | placement | Hz | profile | rec. | min | ref. events | P | R | F1 | count err % | \
        height bias (95 % LoA) cm | false (per h) | baseline P | R | F1 | count err % | height bias (95 % LoA) cm | \
        false (per h) |
        | --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | \
        ---: | ---: | ---: | ---: |

        """
    for row in rows {
        text += "| \(row.dataset) | \(row.split) | \(row.placement) | \(Int(row.rate)) | \(row.profile.rawValue) | "
        text += "\(row.recordings) | \(f(row.hours * 60, 1)) | \(row.standard.labels) | "
        text += cells(row.standard, hours: row.hours) + " " + cells(row.baseline, hours: row.hours) + "\n"
    }
    return text
}

/// Per quality flag, over every row's standard-rule detections: the flagged detections, how many
/// matched a reference event, and the flagged flights' height error (bias, mean |error|, largest).
func validationFlagTable(_ rows: [ValidationRow]) -> String {
    func f(_ value: Double, _ decimals: Int) -> String { SampleCSV.fixed(value, decimals: decimals) }
    var text = """

        Quality flags on the detections above (standard rules, every split, rate and profile):

        | flag | profile | detections | matched | flights with a height | height bias cm | mean \\|error\\| cm | largest \\|error\\| cm |
        | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |

        """
    for flag in [nil] + QualityFlag.allCases.map(Optional.some) {
        for profile in DetectionProfile.allCases {
            var tally = FlagTally()
            for row in rows where row.profile == profile {
                guard let one = flag.map({ row.standard.flagged[$0] }) ?? row.standard.unflagged else { continue }
                tally.detections += one.detections
                tally.matched += one.matched
                tally.heightErrorsCm += one.heightErrorsCm
            }
            guard tally.detections > 0 else { continue }
            let errors = tally.heightErrorsCm
            let n = Double(errors.count)
            text +=
                "| \(flag.map { "`\($0.rawValue)`" } ?? "(none)") | \(profile.rawValue) | \(tally.detections) | \(tally.matched) | \(errors.count) | "
            text +=
                errors.isEmpty
                ? "– | – | – |\n"
                : "\(f(errors.reduce(0, +) / n, 2)) | \(f(errors.map(abs).reduce(0, +) / n, 2)) | "
                    + "\(f(errors.map(abs).max() ?? 0, 2)) |\n"
        }
    }
    return text
}

/// `report` with the text between the `<!-- marker: begin -->` and `<!-- marker: end -->` lines
/// replaced by `table`.
func replacingGeneratedTable(
    in report: String, with table: String, marker: String = "sportsensor-dev validate"
) throws(ValidationDataError) -> String {
    let begin = "<!-- \(marker): begin -->"
    let end = "<!-- \(marker): end -->"
    guard let start = report.range(of: begin), let stop = report.range(of: end), start.upperBound <= stop.lowerBound
    else {
        throw ValidationDataError(
            code: .badReport,
            message: "the report has no `\(begin)` line followed by `\(end)`: add both where the table goes")
    }
    return String(report[..<start.upperBound]) + "\n" + table + String(report[stop.lowerBound...])
}
