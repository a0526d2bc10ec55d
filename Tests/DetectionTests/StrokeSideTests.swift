// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import Testing

@testable import Detection

private typealias Stroke = StrokeSideFixture.Stroke

/// A forehand-like and a backhand-like stroke of the fixture: opposite turns about gravity, opposite pushes.
private func forehand(_ t: Double) -> Stroke { Stroke(t: t, turn: 1, tilt: 1) }
private func backhand(_ t: Double) -> Stroke { Stroke(t: t, turn: -1, tilt: -2) }

/// An estimator fed `samples`, then asked for the strokes at `times` in order.
private func estimates(
    racketHand: Int, samples: [AccelerationSample], times: [Double], delay: Double = 0.7
) -> (StrokeSideEstimator, [StrokeSideEstimator.Estimate]) {
    var estimator = StrokeSideEstimator(racketHand: racketHand)
    var results: [StrokeSideEstimator.Estimate] = []
    var index = 0
    for time in times {
        // The detector asks `delay` after the stroke (its merge window, or two when a held stroke
        // waits for a swing): the samples up to then are in.
        while index < samples.count, samples[index].t <= time + delay {
            estimator.record(samples[index])
            index += 1
        }
        results.append(estimator.estimate(hitAt: time))
    }
    return (estimator, results)
}

private func cues(
    _ strokes: [Stroke], at t: Double, transform: StrokeSideFixture.Matrix = StrokeSideFixture.identity
) -> StrokeSideEstimator.Cues? {
    var estimator = StrokeSideEstimator(racketHand: 1)
    for sample in StrokeSideFixture.samples(strokes, duration: t + 1, transform: transform) { estimator.record(sample) }
    return estimator.cues(at: t)
}

@Suite("StrokeSideEstimator: a hit's side from the sense of its swing, checked against the racket hand")
struct StrokeSideTests {
    @Test("a mirrored recording flips the sense score and keeps the side cue")
    func mirror() throws {
        let plain = try #require(cues([forehand(2)], at: 2))
        let mirrored = try #require(cues([forehand(2)], at: 2, transform: StrokeSideFixture.mirror))
        #expect(abs(plain.score) > 1)
        #expect(abs(mirrored.score + plain.score) < 1e-9 * abs(plain.score))
        #expect(abs(mirrored.cue - plain.cue) < 1e-9)
    }

    @Test("a sensor rotated on the strap keeps both cues")
    func rotation() throws {
        let plain = try #require(cues([backhand(2)], at: 2))
        let rotated = try #require(cues([backhand(2)], at: 2, transform: StrokeSideFixture.rotation))
        #expect(abs(rotated.score - plain.score) < 1e-9 * abs(plain.score))
        #expect(abs(rotated.cue - plain.cue) < 1e-9)
    }

    @Test("no hit has a side until the strokes decide the sense; then each gets the racket hand's reading")
    func senseEstablished() throws {
        let fore = try #require(cues([forehand(2)], at: 2))
        let back = try #require(cues([backhand(2)], at: 2))
        // The fixture's two strokes turn opposite ways and read as the two sides on the side cue.
        #expect((fore.score > 0) != (back.score > 0))
        #expect(fore.cue > 0 && back.cue < 0)
        let hand = fore.score > 0 ? 1 : -1
        let times = (0..<16).map { 2 + 1.5 * Double($0) }
        let strokes = times.enumerated().map { $0.offset % 3 == 2 ? backhand($0.element) : forehand($0.element) }
        let samples = StrokeSideFixture.samples(strokes, duration: times.last! + 1)
        let (estimator, results) = estimates(racketHand: hand, samples: samples, times: times)
        let needed = StrokeSideWeights.votesNeeded
        #expect(results.prefix(needed - 1).allSatisfy { $0 == StrokeSideEstimator.Estimate() })
        for (stroke, result) in zip(strokes, results).dropFirst(needed - 1) {
            #expect(result.side == (stroke.turn > 0 ? .forehand : .backhand) && !result.unsure)
        }
        #expect(estimator.votes == times.count * hand)
    }

    @Test("at 400 Hz a stroke asked two merge windows late (a held stroke's longest wait) still gets its side")
    func lateReportKeepsSide() throws {
        let fore = try #require(cues([forehand(2)], at: 2))
        let hand = fore.score > 0 ? 1 : -1
        let times = (0..<10).map { 2 + 1.5 * Double($0) }
        let samples = StrokeSideFixture.samples(times.map(forehand), rate: 400, duration: times.last! + 2)
        let (estimator, results) = estimates(racketHand: hand, samples: samples, times: times, delay: 1.4)
        #expect(estimator.votes == times.count * hand)
        #expect(results.dropFirst(StrokeSideWeights.votesNeeded - 1).allSatisfy { $0.side == .forehand })
    }

    @Test("strokes that contradict the racket hand get side_unsure and no side, never the swapped side")
    func contradiction() throws {
        let fore = try #require(cues([forehand(2)], at: 2))
        let wrongHand = fore.score > 0 ? -1 : 1
        let times = (0..<10).map { 2 + 1.5 * Double($0) }
        let samples = StrokeSideFixture.samples(times.map(forehand), duration: times.last! + 1)
        let (_, results) = estimates(racketHand: wrongHand, samples: samples, times: times)
        let needed = StrokeSideWeights.votesNeeded
        #expect(results.prefix(needed - 1).allSatisfy { $0 == StrokeSideEstimator.Estimate() })
        #expect(results.dropFirst(needed - 1).allSatisfy { $0 == StrokeSideEstimator.Estimate(unsure: true) })
    }

    @Test("a stroke whose score is under the margin gets no side and no vote, after the sense is settled")
    func abstains() throws {
        var weak = forehand(2)
        weak.size = 0.05
        let small = try #require(cues([weak], at: 2))
        #expect(abs(small.score) < StrokeSideWeights.sideMargin)
        let fore = try #require(cues([forehand(2)], at: 2))
        let times = (0..<8).map { 2 + 1.5 * Double($0) }
        var strokes = times.map(forehand)
        strokes[7].size = 0.05
        let samples = StrokeSideFixture.samples(strokes, duration: times.last! + 1)
        let (estimator, results) = estimates(racketHand: fore.score > 0 ? 1 : -1, samples: samples, times: times)
        #expect(results[6].side == .forehand)
        #expect(results[7] == StrokeSideEstimator.Estimate())
        #expect(abs(estimator.votes) == 7)
    }

    @Test("a hit the kept samples do not reach back 0.6 s before gets no side and no vote")
    func uncovered() {
        let samples = StrokeSideFixture.samples([forehand(0.4)], duration: 2)
        let (estimator, results) = estimates(racketHand: 1, samples: samples, times: [0.4])
        #expect(results == [StrokeSideEstimator.Estimate()] && estimator.votes == 0)
    }

    @Test("without a racket hand nothing is kept or estimated")
    func noHand() {
        let times = (0..<10).map { 2 + 1.5 * Double($0) }
        let samples = StrokeSideFixture.samples(times.map(forehand), duration: times.last! + 1)
        let (estimator, results) = estimates(racketHand: 0, samples: samples, times: times)
        #expect(results.allSatisfy { $0 == StrokeSideEstimator.Estimate() })
        #expect(estimator.cues(at: 5) == nil && estimator.votes == 0)
    }

    @Test("the hit detector's hits are the same with any racket hand; only the side and its flag differ")
    func detectorAnnotates() throws {
        let fore = try #require(cues([forehand(2)], at: 2))
        let times = (0..<12).map { 2 + 1.5 * Double($0) }
        let strokes = times.enumerated().map { $0.offset % 2 == 1 ? backhand($0.element) : forehand($0.element) }
        let samples = StrokeSideFixture.samples(strokes, duration: times.last! + 2)
        func hits(_ hand: Int) -> [HitEvent] {
            var parameters = HitDetector.Parameters()
            parameters.racketHand = hand
            var detector = HitDetector(parameters: parameters)
            var events: [DetectorEvent] = []
            samples.withUnsafeBufferPointer { detector.process($0, into: &events) }
            events += detector.finish()
            return events.compactMap { if case .hit(let hit) = $0 { hit } else { nil } }
        }
        let none = hits(0)
        let right = hits(fore.score > 0 ? 1 : -1)
        let wrong = hits(fore.score > 0 ? -1 : 1)
        #expect(none.count == times.count)
        for variant in [right, wrong] {
            #expect(variant.map(\.t) == none.map(\.t) && variant.map(\.peakG) == none.map(\.peakG))
            #expect(variant.map(\.intensityG) == none.map(\.intensityG))
        }
        #expect(none.allSatisfy { $0.side == nil && !$0.quality.contains(.sideUnsure) })
        #expect(right.contains { $0.side != nil } && !right.contains { $0.quality.contains(.sideUnsure) })
        #expect(wrong.allSatisfy { $0.side == nil } && wrong.contains { $0.quality.contains(.sideUnsure) })
    }

    @Test("racket_hand is a table-tennis setting from -1 to 1")
    func setting() throws {
        var settings = DetectionSettings(profile: .tableTennis)
        try settings.set("racket_hand=-1")
        #expect(settings.parameters.hit.racketHand == -1 && settings.assignments.contains("racket_hand=-1"))
        #expect(throws: DetectionSettingsError.self) { try settings.set("racket_hand=2") }
    }
}
