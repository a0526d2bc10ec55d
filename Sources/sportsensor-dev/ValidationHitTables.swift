// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

private func f(_ value: Double, _ decimals: Int) -> String { SampleCSV.fixed(value, decimals: decimals) }
private func percent(_ value: Double?) -> String { value.map { f($0, 1) } ?? "–" }
private let splits = ["development", "held-out"]

/// The table-tennis tables of Docs/VALIDATION.md: hits per split, counts per stroke type and
/// side, rest, and the side's confusion matrix. `command` is the line that produced them.
func validationHitTables(_ scores: [HitRecordingScore], command: String) -> String {
    guard !scores.isEmpty else { return "" }
    return hitSplitTable(scores, command: command) + hitCountTable(scores) + hitRestTable(scores)
        + hitSideTable(scores)
}

private func hitSplitTable(_ scores: [HitRecordingScore], command: String) -> String {
    func cells(_ score: HitScore) -> String {
        "\(f(score.precision, 3)) | \(f(score.recall, 3)) | \(f(score.f1, 3)) | \(percent(score.countErrorPercent)) | "
            + "\(score.drillsWithinFivePercent) of \(score.drills) |"
    }
    var text = """
        Hits on real strokes (tt-wrist drills, 50 Hz; `\(command)`):

        | split | drills | min | strokes | hits | P | R | F1 | count err % | drills within 5 % | \
        baseline hits | P | R | F1 | count err % | within 5 % |
        | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |

        """
    for split in splits {
        let (standard, baseline) = scores.total { $0.split == split && $0.stroke != "rest" }
        guard standard.recordings > 0 else { continue }
        text += "| \(split) | \(standard.drills) | \(f(standard.hours * 60, 1)) | \(standard.references) | "
        text += "\(standard.detections) | " + cells(standard) + " \(baseline.detections) | " + cells(baseline) + "\n"
    }
    return text
}

private func hitCountTable(_ scores: [HitRecordingScore]) -> String {
    var text = """

        Hit counts per stroke type and side (drills pooled; count err % = (hits − strokes) / strokes):

        | split | stroke | side | drills | strokes | hits | count err % | baseline hits | count err % |
        | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |

        """
    for split in splits {
        for (stroke, side) in hitCountGroups {
            let (standard, baseline) = scores.total {
                $0.split == split && $0.stroke != "rest" && (stroke == nil || $0.stroke == stroke)
                    && (side == nil || $0.side == side)
            }
            guard standard.drills > 0 else { continue }
            text += "| \(split) | \(stroke ?? "all") | \(side.map { $0.isEmpty ? "–" : $0 } ?? "all") | "
            text += "\(standard.drills) | \(standard.references) | \(standard.detections) | "
            text += "\(percent(standard.countErrorPercent)) | \(baseline.detections) | "
            text += "\(percent(baseline.countErrorPercent)) |\n"
        }
    }
    return text
}

/// (stroke, side) filters of the count table, nil meaning any: per type, per type and side, per side.
let hitCountGroups: [(String?, String?)] = [
    ("block", ""), ("flip", nil), ("flip", "forehand"), ("flip", "backhand"), ("topspin", nil),
    ("topspin", "forehand"), ("topspin", "backhand"), (nil, "forehand"), (nil, "backhand"),
]

private func hitRestTable(_ scores: [HitRecordingScore]) -> String {
    var text = """

        Hits while the player rests between drills, next to the stroke-like swings the gyroscope sees there:

        | split | rec. | min | gyroscope swings | per h | hits | per h | baseline hits | per h |
        | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |

        """
    for split in splits {
        let (standard, baseline) = scores.total { $0.split == split && $0.stroke == "rest" }
        guard standard.recordings > 0 else { continue }
        text += "| \(split) | \(standard.recordings) | \(f(standard.hours * 60, 1)) | \(standard.swings) | "
        text += "\(f(standard.swingsPerHour, 1)) | \(standard.detections) | \(f(standard.hitsPerHour, 1)) | "
        text += "\(baseline.detections) | \(f(baseline.hitsPerHour, 1)) |\n"
    }
    return text
}

private func hitSideTable(_ scores: [HitRecordingScore]) -> String {
    var text = """

        The side of the matched hits in drills with a side (standard rules; the seed rules give none; with \
        `racket_hand` unset no hit has a side): each drill run with the racket hand that matches its frame \
        (right: the one that gives more right sides, as a fixed frame and the athlete's hand would) and with the \
        other (wrong). Given: share with a side; right: share of those that are the drill's side; unsure: share \
        flagged `side_unsure` (no side); then drill's side → hit's side:

        | split | racket hand | stroke | matched hits | given % | right % | unsure % | forehand → forehand | \
        → backhand | → none | backhand → forehand | → backhand | → none |
        | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |

        """
    for split in splits {
        for stroke in ["flip", "topspin", nil] {
            let sides = scores.sides {
                $0.split == split && !$0.side.isEmpty && (stroke == nil || $0.stroke == stroke)
            }
            for (hand, score) in [("right", sides.right), ("wrong", sides.wrong)] where score.sideScored > 0 {
                let cells = ["forehand", "backhand"].flatMap { reference in
                    ["forehand", "backhand", "none"].map { "\(score.confusion[reference]?[$0] ?? 0)" }
                }
                text += "| \(split) | \(hand) | \(stroke ?? "all") | \(score.sideScored) | "
                text += "\(percent(score.sideCoverage.map { $0 * 100 })) | "
                text += "\(percent(score.sideGivenAccuracy.map { $0 * 100 })) | "
                text += "\(percent(score.sideUnsureShare.map { $0 * 100 })) | \(cells.joined(separator: " | ")) |\n"
            }
        }
    }
    return text
}

/// Per drill, for `--details`: strokes, hits and count error of both rule sets.
func hitDetails(_ scores: [HitRecordingScore]) -> [String] {
    scores.map { score in
        let recording = score.recording
        let what =
            recording.stroke == "rest" ? "swings \(score.standard.swings)" : "strokes \(score.standard.references)"
        return "\(recording.dataset)/\(recording.recording) \(recording.split) \(recording.stroke) "
            + "\(recording.side.isEmpty ? "–" : recording.side): \(what), hits \(score.standard.detections) "
            + "(\(percent(score.standard.countErrorPercent)) %), matched \(score.standard.matched); baseline hits "
            + "\(score.baseline.detections) (\(percent(score.baseline.countErrorPercent)) %)"
            + (recording.side.isEmpty
                ? ""
                : "; sides of \(score.handRight.sideScored) matched hits, racket hand right: given "
                    + "\(score.handRight.sideGiven), right \(score.handRight.sideCorrect), unsure "
                    + "\(score.handRight.sideUnsure); wrong: given \(score.handWrong.sideGiven), right "
                    + "\(score.handWrong.sideCorrect), unsure \(score.handWrong.sideUnsure)")
    }
}
