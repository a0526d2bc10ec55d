// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Testing

@testable import sportsensor_dev

private func hit(_ t: Double, _ side: StrokeSide? = nil, unsure: Bool = false) -> HitEvent {
    HitEvent(t: t, peakG: 3, saturated: false, intensityG: 3, quality: unsure ? .sideUnsure : [], side: side)
}

/// A drill whose hits all have the drill's side with the right racket hand, and `swapped` of them the
/// other side with the wrong one (the rest `side_unsure`).
private func drill(
    _ name: String, split: String, stroke: String, side: String, references: Int, hits: Int, swapped: Int = 0
) -> HitRecordingScore {
    let recording = ValidationRecording(
        dataset: "tt-wrist", recording: name, subject: "P1", placement: "wrist", split: split, rate: 50,
        samples: "", labels: "", profiles: [.tableTennis], duration: 60, stroke: stroke, side: side)
    let times = (0..<references).map { Double($0) * 1.2 + 1 }
    let found = (0..<hits).map { hit(Double($0) * 1.2 + 1.05, StrokeSide(rawValue: side)) }
    let score = HitScore(
        references: times, hits: found, side: StrokeSide(rawValue: side), hours: 60.0 / 3600, tolerance: 0.25)
    let other: StrokeSide? = side == "forehand" ? .backhand : .forehand
    let wrong = (0..<hits).map { hit(Double($0) * 1.2 + 1.05, $0 < swapped ? other : nil, unsure: $0 >= swapped) }
    let none = found.map { hit($0.t) }
    func scored(_ hits: [HitEvent]) -> HitScore {
        HitScore(
            references: times, hits: hits, side: StrokeSide(rawValue: side), hours: 60.0 / 3600, tolerance: 0.25)
    }
    return HitRecordingScore(
        recording: recording, standard: scored(none), baseline: scored(none), handRight: score,
        handWrong: scored(wrong))
}

@Suite("sportsensor-dev validate: hits against reference strokes, rest, side and the gate")
struct ValidationHitScoringTests {
    @Test("each stroke takes its nearest hit within the tolerance; P, R, F1, count error, the side's confusion")
    func drillScore() {
        let score = HitScore(
            references: [1, 2, 3, 4], hits: [hit(1.1, .forehand), hit(2.3), hit(3.0, .backhand), hit(3.1), hit(4.2)],
            side: .forehand, hours: 0.01, tolerance: 0.25)
        // 2.3 is 0.3 s from its stroke: unmatched; 3.0 beats 3.1 for the stroke at 3.
        #expect(score.references == 4 && score.detections == 5 && score.matched == 3)
        #expect(abs(score.precision - 0.6) < 1e-12 && abs(score.recall - 0.75) < 1e-12)
        #expect(abs(score.f1 - 2 * 0.6 * 0.75 / 1.35) < 1e-12)
        #expect(score.countErrorPercent == 25)
        #expect(score.drills == 1 && score.drillsWithinFivePercent == 0)
        #expect(score.confusion == ["forehand": ["forehand": 1, "backhand": 1, "none": 1]])
        #expect(score.sideScored == 3 && score.sideCorrect == 1 && score.sideGiven == 2)
        #expect(score.sideCoverage == 2.0 / 3 && score.sideGivenAccuracy == 0.5 && score.sideWrong == 1.0 / 3)
    }

    @Test("a matched hit flagged side_unsure counts as one without a side and as unsure")
    func unsureSide() {
        let score = HitScore(
            references: [1, 2], hits: [hit(1, unsure: true), hit(2, .forehand)], side: .forehand, hours: 0.01,
            tolerance: 0.25)
        #expect(score.confusion == ["forehand": ["forehand": 1, "none": 1]] && score.sideUnsure == 1)
        #expect(score.sideUnsureShare == 0.5 && score.sideGivenAccuracy == 1 && score.sideWrong == 0)
        #expect((score + score).sideUnsure == 2)
    }

    @Test("a drill counts within 5 % at exactly 5 %; a drill without a side has no confusion")
    func withinFivePercent() {
        let refs = (0..<20).map { Double($0) }
        let exactly = HitScore(
            references: refs, hits: (0..<21).map { hit(Double($0)) }, side: nil, hours: 0.01, tolerance: 0.25)
        #expect(exactly.drillsWithinFivePercent == 1 && exactly.confusion.isEmpty && exactly.sideAccuracy == nil)
        let over = HitScore(
            references: refs, hits: (0..<22).map { hit(Double($0)) }, side: nil, hours: 0.01, tolerance: 0.25)
        #expect(over.drillsWithinFivePercent == 0)
    }

    @Test("rest: hits and gyroscope swings per hour; sums add every field and merge the confusion")
    func restAndSums() {
        let rest = HitScore(
            references: [], swings: [1, 5, 9], hits: [hit(2), hit(7)], side: nil, hours: 0.5, tolerance: 0.25)
        #expect(rest.drills == 0 && rest.hitsPerHour == 4 && rest.swingsPerHour == 6 && rest.countErrorPercent == nil)
        let a = HitScore(references: [1], hits: [hit(1, .forehand)], side: .forehand, hours: 0.25, tolerance: 0.25)
        let b = HitScore(references: [1], hits: [hit(1, .backhand)], side: .forehand, hours: 0.25, tolerance: 0.25)
        let sum = a + b + rest
        #expect(sum.recordings == 3 && sum.hours == 1 && sum.references == 2 && sum.detections == 4)
        #expect(sum.swings == 3 && sum.drills == 2)
        #expect(sum.confusion == ["forehand": ["forehand": 1, "backhand": 1]] && sum.sideAccuracy == 0.5)
    }

    @Test("the tables: one row per split, counts per type and side, rest, and the side's confusion matrix")
    func tables() {
        let scores = [
            drill("a", split: "held-out", stroke: "topspin", side: "forehand", references: 20, hits: 21),
            drill("b", split: "held-out", stroke: "topspin", side: "backhand", references: 10, hits: 8),
            drill("c", split: "held-out", stroke: "block", side: "", references: 10, hits: 10),
        ]
        let text = validationHitTables(scores, command: "make validate-offline")
        // 38 of 40 strokes matched (two backhand strokes missed), 39 hits.
        #expect(text.contains("| held-out | 3 | 3.0 | 40 | 39 | 0.974 | 0.950 | 0.962 | -2.5 | 2 of 3 |"), "\(text)")
        #expect(text.contains("| held-out | topspin | backhand | 1 | 10 | 8 | -20.0 | 8 | -20.0 |"))
        #expect(text.contains("| held-out | block | – | 1 | 10 | 10 | 0.0 |"))
        #expect(text.contains("| held-out | right | topspin | 28 | 100.0 | 100.0 | 0.0 | 20 | 0 | 0 | 0 | 8 | 0 |"))
        #expect(text.contains("| held-out | wrong | topspin | 28 | 0.0 | – | 100.0 | 0 | 0 | 20 | 0 | 0 | 8 |"))
        #expect(!text.contains("| development |"))
    }

    @Test("the gate passes when every figure holds and names each figure that does not")
    func gate() {
        let scores = ["development", "held-out"].flatMap { split in
            [
                drill("f-\(split)", split: split, stroke: "flip", side: "forehand", references: 20, hits: 20),
                drill("b-\(split)", split: split, stroke: "flip", side: "backhand", references: 20, hits: 20),
                drill("k-\(split)", split: split, stroke: "block", side: "", references: 20, hits: 20),
                drill("t-\(split)", split: split, stroke: "topspin", side: "forehand", references: 20, hits: 20),
            ]
        }
        var steps = ValidationRow(
            dataset: "steps-oxford", split: "held-out", placement: "hand", rate: 100, profile: .steps)
        steps.standard.labels = 100
        steps.standard.detections = 104
        var development = steps
        development.split = "development"
        let strict = ValidationGate(
            hitF1: 0.99, drillsWithinFivePercent: 1, typeSideCountErrorPercent: 5, restHitsPerHour: 60,
            sideCoverage: 0.9, sideGivenAccuracy: 0.95, sideWrongWithWrongHand: 0.05, stepsPositionErrorPercent: 5,
            stepsOverallErrorPercent: 5)
        let thresholds = ["development": strict, "held-out": strict]
        #expect(ValidationGate.failures(hits: scores, rows: [steps, development], thresholds: thresholds).isEmpty)

        var worse = scores
        worse[4] = drill(
            "f-held-out", split: "held-out", stroke: "flip", side: "forehand", references: 20, hits: 24, swapped: 6)
        let failures = ValidationGate.failures(hits: worse, rows: [steps], thresholds: thresholds)
        #expect(failures.contains("held-out: hit F1 0.976 is below 0.990"), "\(failures)")
        #expect(failures.contains("held-out: drills within 5 % 0.750 is below 1.000"))
        #expect(failures.contains("held-out: flip all count error 10.0 % is beyond ±5.0 %"))
        #expect(failures.contains("held-out: all forehand count error 10.0 % is beyond ±5.0 %"))
        #expect(failures.contains("held-out: wrong sides with the wrong racket hand 0.100 is above 0.050"))
        #expect(failures.contains("development: no steps-oxford walk in the manifest (convert the offline sets)"))
        #expect(!failures.contains { $0.hasPrefix("development: hit") })
    }
}
