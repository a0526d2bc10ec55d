// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor

/// Hits of one rule set on table-tennis recordings (a drill's reference strokes, or rest between
/// drills), summed over any group of them.
struct HitScore: Sendable, Equatable {
    var recordings = 0
    var hours = 0.0
    var references = 0
    var detections = 0
    var matched = 0
    /// Drills (recordings with reference strokes), and those counted within 5 % of the reference.
    var drills = 0
    var drillsWithinFivePercent = 0
    /// The stroke-like swings the gyroscope saw in rest recordings.
    var swings = 0
    /// Matched hits of drills with a side: the drill's side → the hit's side (`none` when the hit
    /// has none) → count.
    var confusion: [String: [String: Int]] = [:]
    /// Of those, the hits without a side because the strokes contradicted the racket hand (`side_unsure`).
    var sideUnsure = 0

    var precision: Double { detections > 0 ? Double(matched) / Double(detections) : 0 }
    var recall: Double { references > 0 ? Double(matched) / Double(references) : 0 }
    var f1: Double { precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0 }
    /// (hits − reference strokes) / reference strokes, %: an undercount reads negative.
    var countErrorPercent: Double? {
        references > 0 ? 100 * Double(detections - references) / Double(references) : nil
    }
    var drillsWithinFivePercentShare: Double? {
        drills > 0 ? Double(drillsWithinFivePercent) / Double(drills) : nil
    }
    var hitsPerHour: Double { hours > 0 ? Double(detections) / hours : 0 }
    var swingsPerHour: Double { hours > 0 ? Double(swings) / hours : 0 }
    /// Matched hits of drills with a side, and those whose side is the drill's.
    var sideScored: Int { confusion.values.reduce(0) { $0 + $1.values.reduce(0, +) } }
    var sideCorrect: Int { confusion.reduce(0) { $0 + ($1.value[$1.key] ?? 0) } }
    var sideAccuracy: Double? { sideScored > 0 ? Double(sideCorrect) / Double(sideScored) : nil }
    /// Matched hits of drills with a side that got one.
    var sideGiven: Int { confusion.values.reduce(0) { $0 + $1.filter { $0.key != "none" }.values.reduce(0, +) } }
    /// The share of matched hits with a side, and the share of those that are right.
    var sideCoverage: Double? { sideScored > 0 ? Double(sideGiven) / Double(sideScored) : nil }
    var sideGivenAccuracy: Double? { sideGiven > 0 ? Double(sideCorrect) / Double(sideGiven) : nil }
    /// The share of matched hits given the other side than the drill's.
    var sideWrong: Double? { sideScored > 0 ? Double(sideGiven - sideCorrect) / Double(sideScored) : nil }
    var sideUnsureShare: Double? { sideScored > 0 ? Double(sideUnsure) / Double(sideScored) : nil }

    /// One recording: its reference stroke times and rest swings, the detector's hits, the drill's
    /// side (nil: the drill has none) and its length.
    init(
        references: [Double], swings: [Double] = [], hits: [HitEvent], side: StrokeSide?, hours: Double,
        tolerance: Double
    ) {
        let times = references.sorted()
        let found = hits.sorted { $0.t < $1.t }
        recordings = 1
        self.hours = hours
        self.references = times.count
        self.swings = swings.count
        detections = found.count
        let matches = nearestMatches(references: times, detections: found.map(\.t), tolerance: tolerance)
        matched = matches.count { $0 != nil }
        if !times.isEmpty {
            drills = 1
            drillsWithinFivePercent = abs(found.count - times.count) * 20 <= times.count ? 1 : 0
        }
        if let side {
            for case let index? in matches {
                confusion[side.rawValue, default: [:]][found[index].side?.rawValue ?? "none", default: 0] += 1
                if found[index].quality.contains(.sideUnsure) { sideUnsure += 1 }
            }
        }
    }

    init() {}

    static func + (lhs: HitScore, rhs: HitScore) -> HitScore {
        var sum = lhs
        sum.recordings += rhs.recordings
        sum.hours += rhs.hours
        sum.references += rhs.references
        sum.detections += rhs.detections
        sum.matched += rhs.matched
        sum.drills += rhs.drills
        sum.drillsWithinFivePercent += rhs.drillsWithinFivePercent
        sum.swings += rhs.swings
        sum.confusion.merge(rhs.confusion) { $0.merging($1, uniquingKeysWith: +) }
        sum.sideUnsure += rhs.sideUnsure
        return sum
    }
}

/// A table-tennis recording's hits with the standard and the baseline rules, and, in a drill with a side,
/// the standard rules' sides with the racket hand set both ways (`racket_hand` 1 and −1).
struct HitRecordingScore: Sendable {
    var recording: ValidationRecording
    var standard: HitScore
    var baseline: HitScore
    /// The racket hand that gives the drill's frame its right sense (the one with more right sides less
    /// wrong ones: it reads the label, as a sensor with a fixed frame and the athlete's hand would know it),
    /// and the other.
    var handRight = HitScore()
    var handWrong = HitScore()
}

/// Scores every table-tennis recording (those with a `stroke`) with the table-tennis profile's
/// standard rules (`settings`) and the seed rules; `tolerance` is the largest time difference
/// between a hit and its reference stroke, s.
func scoreHits(
    _ recordings: [LoadedRecording], tolerance: Double,
    settings: DetectionSettings = DetectionSettings(profile: .tableTennis)
) -> [HitRecordingScore] {
    recordings.filter { !$0.recording.stroke.isEmpty }.map { loaded in
        let references = loaded.labels.filter { $0.kind == .hit }.map(\.time)
        let side = StrokeSide(rawValue: loaded.recording.side)
        func score(_ detector: DetectionSettings) -> HitScore {
            let hits = detector.detector.eventsInTimeOrder(in: loaded.samples).compactMap { event -> HitEvent? in
                if case .hit(let hit) = event { hit } else { nil }
            }
            return HitScore(
                references: references, swings: loaded.swings, hits: hits, side: side,
                hours: loaded.recording.duration / 3600, tolerance: tolerance)
        }
        var result = HitRecordingScore(
            recording: loaded.recording, standard: score(settings),
            baseline: score(DetectionSettings(profile: .tableTennis, rules: .baseline)))
        if side != nil {
            let hands = [1, -1].map { hand in
                var handed = settings
                handed.parameters.hit.racketHand = hand
                return score(handed)
            }
            // Right sides less wrong ones: with the right hand the strokes give the drill's side or are
            // flagged; with the wrong one they are flagged or give the other side.
            let net = hands.map { 2 * $0.sideCorrect - $0.sideGiven }
            let rightFirst = net[0] >= net[1]
            result.handRight = hands[rightFirst ? 0 : 1]
            result.handWrong = hands[rightFirst ? 1 : 0]
        }
        return result
    }
}

extension Array where Element == HitRecordingScore {
    /// The standard and baseline scores summed over the recordings that pass `include`.
    func total(_ include: (ValidationRecording) -> Bool) -> (standard: HitScore, baseline: HitScore) {
        filter { include($0.recording) }.reduce((HitScore(), HitScore())) {
            ($0.0 + $1.standard, $0.1 + $1.baseline)
        }
    }

    /// The sides with the racket hand right and wrong, summed over the recordings that pass `include`.
    func sides(_ include: (ValidationRecording) -> Bool) -> (right: HitScore, wrong: HitScore) {
        filter { include($0.recording) }.reduce((HitScore(), HitScore())) {
            ($0.0 + $1.handRight, $0.1 + $1.handWrong)
        }
    }
}
