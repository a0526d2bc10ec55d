// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import Testing

/// Every formula of the session summary against numbers worked out by hand (Docs/METRICS.md).
@Suite("Session summary")
struct SessionSummaryTests {
    /// `count` samples at `rate` Hz from `start`, each from `value(t)`.
    static func samples(
        rate: Double, from start: Double = 0, count: Int, _ value: (Double) -> (Double, Double, Double)
    ) -> [AccelerationSample] {
        (0..<count).map { index in
            let t = start + Double(index) / rate
            let (x, y, z) = value(t)
            return AccelerationSample(t: t, x: x, y: y, z: z)
        }
    }

    @Test(
        "PlayerLoad of x = 0.5·cos(πt) over 4 s is the total variation 4 g / 100 at every rate",
        arguments: [25.0, 50, 100, 200, 400])
    func playerLoadAtAnyRate(rate: Double) {
        // Extremes at whole seconds are always sampled and x is monotone between them, so
        // Σ|Δx| is exactly 8 half-swings of 0.5 g = 4 g whatever the rate.
        let samples = Self.samples(rate: rate, count: Int(4 * rate) + 1) { t in (0.5 * cos(Double.pi * t), 0, 1) }
        let summary = SessionSummaryAccumulator.summary(profile: .steps, samples: samples, events: [])
        #expect(abs(summary.playerload - 0.04) < 1e-9)
        #expect(abs(summary.durationS - 4) < 1e-9)
        #expect(abs(summary.recordedS - 4) < 1e-9)
        #expect(abs((summary.playerloadPerMin ?? 0) - 0.6) < 1e-9)
        #expect(summary.gaps == 0)
    }

    @Test("a gap adds no PlayerLoad and no recorded time, and counts once")
    func gap() {
        // 1 s still, 2 s of nothing, then 1 s still with x at 1 g: the step from x 0 to 1 lies
        // across the gap and is not a movement the sensor saw.
        let before = Self.samples(rate: 100, count: 101) { _ in (0, 0, 1) }
        let after = Self.samples(rate: 100, from: 3, count: 101) { _ in (1, 0, 1) }
        let summary = SessionSummaryAccumulator.summary(profile: .jump, samples: before + after, events: [])
        #expect(summary.playerload == 0)
        #expect(summary.gaps == 1)
        #expect(abs(summary.recordedS - 2) < 1e-9)
        #expect(abs(summary.durationS - 4) < 1e-9)
    }

    @Test("ENMO averages max(0, |a| − 1 g) over every sample; clipped samples are counted")
    func enmoAndClipping() {
        let full = 32767.0 / 16384.0
        let samples = [
            AccelerationSample(t: 0, x: 0, y: 0, z: 1),  // |a| 1 → 0
            AccelerationSample(t: 0.01, x: 0, y: 0, z: 2),  // clipped (−2 g reads exactly 2), |a| 2 → 1
            AccelerationSample(t: 0.02, x: 0, y: full, z: full),  // two axes clipped, |a| 2.82834 → 1.82834
            AccelerationSample(t: 0.03, x: 0, y: 0, z: 0.5),  // below 1 g → 0
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: samples, events: [])
        // (0 + 1 + 1.828341 + 0) / 4 × 1000
        #expect(abs((summary.enmoMg ?? 0) - 707.0852) < 1e-3)
        #expect(summary.clippedSamples == 2)
        #expect(summary.samples == 4)
    }

    @Test("MAD and intensity bands over 5-s epochs at 25 Hz")
    func madAndBands() {
        // Epoch 0 (125 samples): |a| alternates 1.0 and 1.2 g, 63 and 62 of them: mean 1.0992,
        // MAD (63 × 0.0992 + 62 × 0.1008) / 125 = 0.0999936 g, ENMO 62 × 0.2 / 125 = 99.2 mg
        // (light: 44.8 ≤ 99.2 < 100.6). Epoch 1 (125 samples): still, MAD 0, sedentary.
        let samples = Self.samples(rate: 25, count: 250) { t in
            let index = Int((t * 25).rounded())
            return (0, 0, index < 125 && index % 2 == 1 ? 1.2 : 1.0)
        }
        let summary = SessionSummaryAccumulator.summary(profile: .steps, samples: samples, events: [])
        #expect(abs((summary.madMg ?? 0) - 99.9936 / 2) < 1e-6)
        #expect(abs((summary.enmoMg ?? 0) - 49.6) < 1e-9)
        // Epoch 0 covers the 124 intervals after its first sample, epoch 1 the 125 that end in it.
        #expect(abs(summary.lightS - 4.96) < 1e-9)
        #expect(abs(summary.sedentaryS - 5) < 1e-9)
        #expect(summary.moderateS == 0 && summary.vigorousS == 0)
        #expect(abs(summary.activeS - 4.96) < 1e-9)
    }

    @Test("bands follow Hildebrand's cut-points")
    func bands() {
        #expect(ActivityIntensity.Band(enmoMg: 44.7) == .sedentary)
        #expect(ActivityIntensity.Band(enmoMg: 44.8) == .light)
        #expect(ActivityIntensity.Band(enmoMg: 100.6) == .moderate)
        #expect(ActivityIntensity.Band(enmoMg: 428.8) == .vigorous)
    }

    @Test("rope skipping at 120/min for 10 s: 12.3 MET (Compendium 15550) over active time, ACSM kcal")
    func ropeSkippingKcal() {
        // |a| alternates 1 and 2 g: ENMO 500 mg in both epochs (vigorous). Ten jumps per epoch.
        let samples = Self.samples(rate: 100, count: 1000) { t in
            (0, 0, Int((t * 100).rounded()) % 2 == 0 ? 1 : 2)
        }
        let jumps = (0..<20).map { index in
            DetectorEvent.jump(FlightEvent(start: 0.1 + Double(index) * 0.5, end: 0.3 + Double(index) * 0.5))
        }
        let summary = SessionSummaryAccumulator.summary(profile: .jump, samples: samples, events: jumps)
        #expect(abs(summary.vigorousS - 9.99) < 1e-9)
        // 12.3 MET × 9.99 s / 60 = 2.04795 MET·min; × 3.5 × 70 kg / 200 = 2.508739 kcal.
        #expect(abs(summary.metMin - 2.04795) < 1e-9)
        let withMass = summary.withBodyMass(70)
        #expect(abs((withMass.kcal ?? 0) - 2.5087387) < 1e-6)
        #expect(withMass.kcalNote == nil)
        #expect(summary.jumps == 20)
    }

    @Test("standing still: no active time and 0 kcal; no body mass: null kcal and why")
    func standingStill() {
        let samples = Self.samples(rate: 100, count: 6001) { _ in (0.01, -0.02, 0.999) }
        let summary = SessionSummaryAccumulator.summary(profile: .jump, samples: samples, events: [])
        #expect(summary.activeS == 0)
        #expect(abs(summary.sedentaryS - 60) < 1e-9)
        #expect(summary.withBodyMass(80).kcal == 0)
        let unknown = summary.withBodyMass(nil)
        #expect(unknown.kcal == nil)
        #expect(unknown.kcalNote?.contains("--mass-kg") == true)
        #expect(unknown.jsonLine.contains(#""kcal":null"#))
    }

    @Test("MET by what was done: cadence bands, strokes, throws, and the band's floor without events")
    func intensity() {
        func met(_ profile: DetectionProfile, _ events: Int, band: ActivityIntensity.Band = .moderate) -> Double {
            ActivityIntensity.of(profile: profile, events: events, seconds: 5, band: band).met
        }
        #expect(met(.steps, 6) == 3.0)  // 72 spm: 17170
        #expect(met(.steps, 9) == 3.5)  // 108 spm: 17190
        #expect(met(.steps, 10) == 4.3)  // 120 spm: 17200
        #expect(met(.steps, 11) == 5.0)  // 132 spm: 17220
        #expect(met(.steps, 13) == 7.0)  // 156 spm: 12020
        #expect(met(.steps, 2) == 3.0)  // 24 spm: not walking, the moderate band's floor
        #expect(met(.tableTennis, 3) == 4.0)  // 15660
        #expect(met(.throw, 1) == 2.5)  // 15235
        #expect(met(.jump, 8) == 8.8)  // 96/min: 15552
        #expect(met(.jump, 9) == 11.8)  // 108/min: 15551
        #expect(met(.jump, 3) == 3.0)  // 36/min: not skipping, band floor
        #expect(met(.jump, 0, band: .vigorous) == 6)
        #expect(met(.jump, 12, band: .sedentary) == 0)
    }

    @Test("hits: count, rate, peaks, clipped strokes")
    func hits() {
        let samples = [AccelerationSample(t: 0, x: 0, y: 0, z: 1), AccelerationSample(t: 60, x: 0, y: 0, z: 1)]
        let events: [DetectorEvent] = [
            .hit(HitEvent(t: 1, peakG: 1.5, saturated: false, intensityG: 1.5)),
            .hit(HitEvent(t: 2, peakG: 2.5, saturated: true, intensityG: 3.1)),
            .hit(HitEvent(t: 3, peakG: 1.0, saturated: false, intensityG: 1.0)),
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: samples, events: events)
        #expect(summary.hits == 3)
        #expect(summary.hitsPerMin == 3)
        #expect(summary.maxPeakG == 2.5)
        #expect(abs((summary.meanPeakG ?? 0) - 5.0 / 3) < 1e-12)
        #expect(summary.lastPeakG == 1.0)
        #expect(summary.saturatedHits == 1)
        #expect(summary.maxIntensityG == 3.1)
        #expect(summary.jumps == nil && summary.steps == nil && summary.throws == nil)
    }

    @Test("hits per side: counts and peaks as the overall ones take them; null when no stroke had a side")
    func sides() throws {
        let samples = [AccelerationSample(t: 0, x: 0, y: 0, z: 1), AccelerationSample(t: 60, x: 0, y: 0, z: 1)]
        let events: [DetectorEvent] = [
            .hit(HitEvent(t: 1, peakG: 1.5, saturated: false, intensityG: 1.5, side: .forehand)),
            .hit(HitEvent(t: 2, peakG: 2.0, saturated: true, intensityG: 3.1, quality: .clipped, side: .forehand)),
            // Too slow a rate: counted, but it sets no peak of its side.
            .hit(HitEvent(t: 3, peakG: 2.5, saturated: false, intensityG: 2.5, quality: .rateTooLow, side: .backhand)),
            .hit(HitEvent(t: 4, peakG: 1.2, saturated: false, intensityG: 1.2, side: .backhand)),
            .hit(HitEvent(t: 5, peakG: 2.8, saturated: false, intensityG: 2.8)),
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: samples, events: events)
        #expect(summary.hits == 5)
        #expect(summary.forehandHits == 2 && summary.backhandHits == 2)
        #expect(summary.forehandMaxPeakG == 2.0 && summary.forehandMaxIntensityG == 3.1)
        #expect(summary.backhandMaxPeakG == 1.2 && summary.backhandMaxIntensityG == 1.2)
        let line = summary.jsonLine
        #expect(
            line.contains(
                #""forehand_hits":2,"backhand_hits":2,"forehand_max_peak_g":2.000,"backhand_max_peak_g":1.200,"#
                    + #""forehand_max_intensity_g":3.100,"backhand_max_intensity_g":1.200"#))
        #expect(try JSONDecoder().decode(SessionSummary.self, from: Data(line.utf8)) == summary)

        let oneSide = SessionSummaryAccumulator.summary(
            profile: .tableTennis, samples: samples, events: [events[0]])
        #expect(oneSide.forehandHits == 1 && oneSide.backhandHits == 0 && oneSide.backhandMaxPeakG == nil)
        let noSide = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: samples, events: [events[4]])
        #expect(noSide.forehandHits == nil && noSide.backhandHits == nil && noSide.forehandMaxPeakG == nil)
        #expect(noSide.jsonLine.contains(#""forehand_hits":null,"backhand_hits":null"#))
    }

    @Test("RSI of repeated jumps: height over the contact before it, contacts over 0.5 s left out")
    func reactiveStrength() {
        let events: [DetectorEvent] = [
            .jump(FlightEvent(start: 1.0, end: 1.4)),
            .jump(FlightEvent(start: 1.6, end: 2.0)),  // contact 0.2 s, h = g·0.4²/8 = 0.196133 m
            .jump(FlightEvent(start: 3.0, end: 3.5)),  // contact 1.0 s: not a repeated jump
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .jump, samples: [], events: events)
        #expect(abs((summary.bestRsi ?? 0) - 0.980665) < 1e-9)
        #expect(abs((summary.bestHeightM ?? 0) - FlightEvent.height(flightTime: 0.5)) < 1e-12)
        #expect(summary.jumps == 3)
    }

    @Test("cadence over stepping time, pauses over 2 s left out; throws' best height")
    func cadenceAndThrows() {
        let steps = [0, 0.5, 1.0, 1.5, 10.0, 10.5].map { DetectorEvent.step(StepEvent(t: $0, cadence: 0)) }
        let stepping = SessionSummaryAccumulator.summary(profile: .steps, samples: [], events: steps)
        #expect(stepping.steps == 6)
        #expect(stepping.cadenceSpm == 120)
        let thrown = SessionSummaryAccumulator.summary(
            profile: .throw, samples: [],
            events: [.throw(FlightEvent(start: 1, end: 1.6)), .throw(FlightEvent(start: 3, end: 3.4))])
        #expect(thrown.throws == 2)
        #expect(abs((thrown.bestThrowHeightM ?? 0) - FlightEvent.height(flightTime: 0.6)) < 1e-12)
    }

    @Test("fed one sample at a time with events in between, or all at once: the same summary")
    func streamingEqualsBatch() {
        let samples = Self.samples(rate: 50, count: 1500) { t in (0.3 * sin(7 * t), 0.1, 1 + 0.4 * cos(3 * t)) }
        let events = (0..<40).map {
            DetectorEvent.jump(FlightEvent(start: Double($0) * 0.7, end: Double($0) * 0.7 + 0.3))
        }
        var streaming = SessionSummaryAccumulator(profile: .jump)
        var pending = events[...]
        for sample in samples {
            streaming.add(sample)
            while let next = pending.first, next.time <= sample.t {
                streaming.add(next)
                pending = pending.dropFirst()
            }
        }
        for event in pending { streaming.add(event) }
        #expect(
            streaming.summary() == SessionSummaryAccumulator.summary(profile: .jump, samples: samples, events: events))
    }

    @Test("JSON: every key, null where not applicable, and it decodes to the same summary")
    func json() throws {
        let samples = Self.samples(rate: 100, count: 200) { _ in (0, 0, 1) }
        let summary = SessionSummaryAccumulator.summary(profile: .jump, samples: samples, events: [])
            .withBodyMass(nil)
        let line = summary.jsonLine
        for key in [
            "duration_s", "active_s", "playerload", "playerload_per_min", "enmo_mg", "mad_mg", "light_s", "moderate_s",
            "vigorous_s", "kcal", "hits", "hits_per_min", "max_peak_g", "mean_peak_g", "last_peak_g", "saturated_hits",
            "forehand_hits", "backhand_hits", "forehand_max_peak_g", "backhand_max_peak_g", "forehand_max_intensity_g",
            "backhand_max_intensity_g", "jumps", "best_height_m", "mean_height_m", "best_rsi", "throws",
            "best_throw_height_m", "steps",
            "cadence_spm",
        ] {
            #expect(line.contains("\"\(key)\":"), "missing \(key)")
        }
        #expect(line.contains(#""hits":null"#))
        #expect(line.contains(#""jumps":0"#))
        let decoded = try JSONDecoder().decode(SessionSummary.self, from: Data(line.utf8))
        #expect(decoded.jsonLine == line)
        let encoded = try JSONEncoder().encode(decoded)
        #expect(try JSONDecoder().decode(SessionSummary.self, from: encoded).jsonLine == line)
    }

    @Test("quality flags: flagged events and each flag counted, written as quality_* keys, read back the same")
    func qualityCounts() throws {
        let samples = Self.samples(rate: 100, count: 400) { _ in (0, 0, 1) }
        let events: [DetectorEvent] = [
            .hit(HitEvent(t: 0.5, peakG: 2.0, saturated: true, intensityG: 2.6, quality: [.clipped])),
            .hit(HitEvent(t: 1.5, peakG: 1.2, saturated: false, intensityG: 1.2, quality: [.clipped, .sampleGap])),
            .hit(HitEvent(t: 2.5, peakG: 1.1, saturated: false, intensityG: 1.1)),
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: samples, events: events)
        #expect(summary.hits == 3)
        #expect(summary.flaggedEvents == 2)
        #expect(summary.qualityCounts == [.clipped: 2, .sampleGap: 1])
        let line = summary.jsonLine
        #expect(line.contains(#""flagged_events":2,"quality_clipped":2,"quality_edge_fallback":0"#))
        #expect(line.contains(#""quality_sample_gap":1"#))
        let decoded = try JSONDecoder().decode(SessionSummary.self, from: Data(line.utf8))
        #expect(decoded.qualityCounts == summary.qualityCounts)
        #expect(decoded.flaggedEvents == 2)
        let clean = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: samples, events: [events[2]])
        #expect(clean.flaggedEvents == 0 && clean.qualityCounts.isEmpty)
    }

    @Test("a last time of 1e300 (or an event there) gives a summary, never an overflow trap")
    func hugeTimeDoesNotTrap() {
        let samples = [
            AccelerationSample(t: 0, x: 0, y: 0, z: 1), AccelerationSample(t: 0.01, x: 0, y: 0, z: 1),
            AccelerationSample(t: 1e300, x: 0, y: 0, z: 1),
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .steps, samples: samples, events: [])
        #expect(summary.durationS == 1e300)
        #expect(Int(saturating: 1e300) == .max)
        #expect(Int(saturating: -.infinity) == .min)
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: -2.7) == -2)
    }
}
