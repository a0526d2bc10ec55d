// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Testing

/// Which flagged events may set a best (`SummaryMetric.excludingFlags`, Docs/METRICS.md "Flagged
/// events and bests"): the summary's bests leave them out, its counts and means do not.
@Suite("Bests and quality flags")
struct BestQualityTests {
    /// A flight of `flightS` seconds starting at `start`.
    static func flight(_ start: Double, _ flightS: Double, _ quality: EventQuality = []) -> FlightEvent {
        FlightEvent(start: start, end: start + flightS, quality: quality)
    }

    /// Whether `value` is the height of a `flightS` flight (start + flight − start is not exact).
    static func isHeight(_ value: Double?, of flightS: Double) -> Bool {
        value.map { abs($0 - FlightEvent.height(flightTime: flightS)) < 1e-9 } == true
    }

    @Test("the highest jump flagged low_floor_margin: the best is the highest unflagged one, counts keep it")
    func flaggedHighestJump() {
        let events: [DetectorEvent] = [
            .jump(Self.flight(1, 0.40)),
            .jump(Self.flight(5, 0.70, .lowFloorMargin)),  // an arm movement taken for a 60 cm jump
            .jump(Self.flight(9, 0.50)),
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .jump, samples: [], events: events)
        #expect(Self.isHeight(summary.bestHeightM, of: 0.50))
        #expect(Self.isHeight(summary.value(of: .bestHeightM), of: 0.50))
        #expect(summary.jumps == 3)
        let mean = [0.40, 0.70, 0.50].map { FlightEvent.height(flightTime: $0) }.reduce(0, +) / 3
        #expect(abs((summary.meanHeightM ?? 0) - mean) < 1e-12)
        #expect(summary.flaggedEvents == 1 && summary.qualityCounts == [.lowFloorMargin: 1])
    }

    @Test(
        "heights: low_floor_margin, rate_too_low and sample_gap keep a flight out; clipped and edge_fallback do not",
        arguments: [
            (QualityFlag.lowFloorMargin, false), (.rateTooLow, false), (.sampleGap, false), (.clipped, true),
            (.edgeFallback, true),
        ])
    func flightFlags(flag: QualityFlag, counts: Bool) {
        let quality = EventQuality(flag)
        let jumps = SessionSummaryAccumulator.summary(
            profile: .jump, samples: [], events: [.jump(Self.flight(1, 0.4)), .jump(Self.flight(5, 0.6, quality))])
        let throwsSummary = SessionSummaryAccumulator.summary(
            profile: .throw, samples: [],
            events: [.throw(Self.flight(1, 0.8)), .throw(Self.flight(5, 1.2, quality))])
        let longest = counts ? 0.6 : 0.4
        #expect(Self.isHeight(jumps.bestHeightM, of: longest))
        #expect(Self.isHeight(throwsSummary.bestThrowHeightM, of: counts ? 1.2 : 0.8))
        #expect(jumps.jumps == 2 && throwsSummary.throws == 2)
        #expect(SummaryMetric.bestHeightM.admits(quality) == counts)
    }

    @Test("every jump flagged: jumps counted, no best height (null, not 0), no leaderboard value")
    func everyJumpFlagged() {
        let events: [DetectorEvent] = [
            .jump(Self.flight(1, 0.5, .sampleGap)), .jump(Self.flight(1.7, 0.5, [.lowFloorMargin, .clipped])),
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .jump, samples: [], events: events)
        #expect(summary.jumps == 2)
        #expect(summary.bestHeightM == nil && summary.bestRsi == nil)
        #expect(summary.value(of: .bestHeightM) == nil)
        #expect(summary.value(of: .jumps) == 2)
    }

    @Test("RSI needs both flights trusted: a flagged landing does not start a contact, a flagged jump ends none")
    func reactiveStrength() {
        // Contacts 0.2 s each; the first pair's earlier flight is flagged, the last pair is clean.
        let events: [DetectorEvent] = [
            .jump(Self.flight(1.0, 0.3, .lowFloorMargin)),
            .jump(Self.flight(1.5, 0.6)),  // after a flagged landing: no RSI
            .jump(Self.flight(2.3, 0.5, .sampleGap)),  // flagged itself: no RSI
            .jump(Self.flight(3.0, 0.4)),  // after a flagged landing: no RSI
            .jump(Self.flight(3.6, 0.4)),  // clean pair: h(0.4) / 0.2
        ]
        let summary = SessionSummaryAccumulator.summary(profile: .jump, samples: [], events: events)
        #expect(summary.bestRsi.map { abs($0 - FlightEvent.height(flightTime: 0.4) / 0.2) < 1e-9 } == true)
        #expect(Self.isHeight(summary.bestHeightM, of: 0.6))
    }

    @Test("hits: a clipped stroke still sets both peaks; rate_too_low sets neither; sample_gap only the peak")
    func hitFlags() {
        func summary(_ quality: EventQuality) -> SessionSummary {
            SessionSummaryAccumulator.summary(
                profile: .tableTennis, samples: [],
                events: [
                    .hit(HitEvent(t: 1, peakG: 1.5, saturated: false, intensityG: 1.5)),
                    .hit(HitEvent(t: 2, peakG: 1.999, saturated: true, intensityG: 3.2, quality: quality)),
                ])
        }
        let clipped = summary(.clipped)
        #expect(clipped.maxPeakG == 1.999 && clipped.maxIntensityG == 3.2)
        let slow = summary([.clipped, .rateTooLow])
        #expect(slow.maxPeakG == 1.5 && slow.maxIntensityG == 1.5)
        #expect(slow.hits == 2 && slow.saturatedHits == 1)
        let gap = summary([.clipped, .sampleGap])
        #expect(gap.maxPeakG == 1.999 && gap.maxIntensityG == 1.5)
    }

    @Test("counts and loads take every event: no flag keeps an event out of them")
    func countsTakeAll() {
        for metric in SummaryMetric.allCases where metric.isCount || metric == .playerloadPerMin {
            #expect(metric.excludingFlags.isEmpty, "\(metric.rawValue)")
            #expect(metric.admits(EventQuality(flags: QualityFlag.allCases)))
        }
        for metric in [SummaryMetric.maxPeakG, .maxIntensityG, .bestHeightM, .bestRsi, .bestThrowHeightM] {
            #expect(!metric.admits(.rateTooLow), "\(metric.rawValue)")
            #expect(metric.admits(.clipped), "\(metric.rawValue)")
        }
    }
}
