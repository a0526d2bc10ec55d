// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor

/// The regression gate on the offline sets (`sportsensor-dev validate --gate`, a step of `make
/// test`): the figures today's detectors reach on tt-wrist and steps-oxford, less a small margin.
/// A change that makes any of them worse fails the gate; one that improves them should raise them.
struct ValidationGate: Sendable {
    /// Hit F1 against the reference strokes (drills).
    var hitF1: Double
    /// Share of drills whose hit count is within 5 % of the reference.
    var drillsWithinFivePercent: Double
    /// Largest |count error| % of the totals per stroke type and per side.
    var typeSideCountErrorPercent: Double
    /// Hits per hour in rest between drills.
    var restHitsPerHour: Double
    /// With the racket hand that matches each drill's frame (drills with a side): the share of matched hits
    /// given a side, and the share of those that are the drill's side.
    var sideCoverage: Double
    var sideGivenAccuracy: Double
    /// With the other racket hand: the largest share of matched hits given the other side (the rest are
    /// flagged `side_unsure` or have none).
    var sideWrongWithWrongHand: Double
    /// Largest |step count error| % of a steps-oxford position (per rate).
    var stepsPositionErrorPercent: Double
    /// |step count error| % of all steps-oxford walks of the split together (per rate).
    var stepsOverallErrorPercent: Double

    /// The totals whose count error is gated: each stroke type, each side.
    static let gatedGroups: [(String?, String?)] = [
        ("block", ""), ("flip", nil), ("topspin", nil), (nil, "forehand"), (nil, "backhand"),
    ]

    /// The thresholds, per split.
    /// Reached on 2026-11-30 by the merged detectors (`make validate-offline`): development F1 0.986, 15 of 16
    /// drills within 5 %, worst type/side total −4.5 % (flips), rest 1855 hits/h (its 2 March recording holds
    /// strokes); held-out F1 0.984 (a stroke's top reaching `min_top_g`), 24 of 24, −2.9 %, 48 hits/h. Steps
    /// (walking bouts with backfill, a peak far weaker than the bout's steps refused): development worst
    /// position −1.6 % (front pocket, 100 Hz), all +0.2 %; held-out worst +2.5 % (purse, 50 Hz), all +0.6 %. Sides
    /// (each drill with its right racket hand; Docs/DETECTION.md, "Side"): development 88.0 % of matched hits
    /// given a side, 97.1 % of those right, 0 wrong with the wrong hand; held-out 59.2 %, 93.7 %, 8.0 % wrong.
    /// The held-out side thresholds also pass 65.2 %, 89.9 %, 5.1 %: one held-out drill gives half its sides
    /// right with either hand (34 of 67 before clipped ties were ranked by energy, 33 after), and which hand
    /// the table calls right for it flips with one hit; the thresholds hold both readings.
    static let thresholds: [String: ValidationGate] = [
        "development": ValidationGate(
            hitF1: 0.98, drillsWithinFivePercent: 0.93, typeSideCountErrorPercent: 5.0, restHitsPerHour: 1870,
            sideCoverage: 0.87, sideGivenAccuracy: 0.96, sideWrongWithWrongHand: 0.01,
            stepsPositionErrorPercent: 2.0, stepsOverallErrorPercent: 0.5),
        "held-out": ValidationGate(
            hitF1: 0.98, drillsWithinFivePercent: 0.99, typeSideCountErrorPercent: 3.5, restHitsPerHour: 55,
            sideCoverage: 0.58, sideGivenAccuracy: 0.89, sideWrongWithWrongHand: 0.085,
            stepsPositionErrorPercent: 3.0, stepsOverallErrorPercent: 1.0),
    ]

    /// What fell below its threshold, one line per figure naming the split and the value; empty
    /// when every figure holds. A set with no recording in the manifest is a failure too.
    static func failures(
        hits: [HitRecordingScore], rows: [ValidationRow], thresholds: [String: ValidationGate] = thresholds
    ) -> [String] {
        var failures: [String] = []
        func f(_ value: Double, _ decimals: Int) -> String { SampleCSV.fixed(value, decimals: decimals) }
        for (split, gate) in thresholds.sorted(by: { $0.key < $1.key }) {
            let drills = hits.total { $0.split == split && $0.stroke != "rest" }.standard
            if drills.drills == 0 {
                failures.append("\(split): no tt-wrist drill in the manifest (convert the offline sets)")
            } else {
                if drills.f1 < gate.hitF1 {
                    failures.append("\(split): hit F1 \(f(drills.f1, 3)) is below \(f(gate.hitF1, 3))")
                }
                let within = drills.drillsWithinFivePercentShare ?? 0
                if within < gate.drillsWithinFivePercent {
                    failures.append(
                        "\(split): drills within 5 % \(f(within, 3)) is below \(f(gate.drillsWithinFivePercent, 3))")
                }
                for (stroke, side) in gatedGroups {
                    let group = hits.total {
                        $0.split == split && $0.stroke != "rest" && (stroke == nil || $0.stroke == stroke)
                            && (side == nil || $0.side == side)
                    }.standard
                    guard let error = group.countErrorPercent, abs(error) > gate.typeSideCountErrorPercent else {
                        continue
                    }
                    failures.append(
                        "\(split): \(stroke ?? "all") \(side.map { $0.isEmpty ? "" : $0 } ?? "all") count error "
                            + "\(f(error, 1)) % is beyond ±\(f(gate.typeSideCountErrorPercent, 1)) %")
                }
                let sides = hits.sides { $0.split == split && !$0.side.isEmpty }
                let coverage = sides.right.sideCoverage ?? 0
                if coverage < gate.sideCoverage {
                    failures.append("\(split): hits with a side \(f(coverage, 3)) is below \(f(gate.sideCoverage, 3))")
                }
                let accuracy = sides.right.sideGivenAccuracy ?? 0
                if accuracy < gate.sideGivenAccuracy {
                    failures.append(
                        "\(split): right sides \(f(accuracy, 3)) is below \(f(gate.sideGivenAccuracy, 3))")
                }
                if let wrong = sides.wrong.sideWrong, wrong > gate.sideWrongWithWrongHand {
                    failures.append(
                        "\(split): wrong sides with the wrong racket hand \(f(wrong, 3)) is above "
                            + "\(f(gate.sideWrongWithWrongHand, 3))")
                }
            }
            let rest = hits.total { $0.split == split && $0.stroke == "rest" }.standard
            if rest.recordings > 0, rest.hitsPerHour > gate.restHitsPerHour {
                failures.append(
                    "\(split): \(f(rest.hitsPerHour, 1)) hits per hour in rest is above \(f(gate.restHitsPerHour, 1))")
            }
            failures += stepFailures(rows: rows.filter { $0.split == split }, split: split, gate: gate)
        }
        return failures
    }

    private static func stepFailures(rows: [ValidationRow], split: String, gate: ValidationGate) -> [String] {
        func f(_ value: Double) -> String { SampleCSV.fixed(value, decimals: 1) }
        let steps = rows.filter { $0.dataset == "steps-oxford" && $0.profile == .steps }
        guard !steps.isEmpty else {
            return ["\(split): no steps-oxford walk in the manifest (convert the offline sets)"]
        }
        var failures: [String] = []
        for row in steps {
            guard let error = row.standard.signedCountErrorPercent, abs(error) > gate.stepsPositionErrorPercent else {
                continue
            }
            failures.append(
                "\(split): steps-oxford \(row.placement) \(Int(row.rate)) Hz step error \(f(error)) % is beyond "
                    + "±\(f(gate.stepsPositionErrorPercent)) %")
        }
        for rate in Set(steps.map(\.rate)).sorted() {
            let pooled = steps.filter { $0.rate == rate }
            let reference = pooled.reduce(0) { $0 + $1.standard.labels }
            let detected = pooled.reduce(0) { $0 + $1.standard.detections }
            guard reference > 0 else { continue }
            let error = 100 * Double(detected - reference) / Double(reference)
            if abs(error) > gate.stepsOverallErrorPercent {
                failures.append(
                    "\(split): steps-oxford \(allPlacements) \(Int(rate)) Hz step error \(f(error)) % is beyond "
                        + "±\(f(gate.stepsOverallErrorPercent)) %")
            }
        }
        return failures
    }
}
