// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing

/// A session of hours keeps a bounded number of epochs, and folding the old ones changes no figure
/// (Docs/METRICS.md, "Conventions": epochs).
@Suite("Session summary over hours")
struct LongSessionSummaryTests {
    /// The ENMO of epoch `k`, g: sedentary, light, moderate and vigorous in turn.
    static let enmoG = [0.0, 0.07, 0.2, 0.6]
    /// Hits in epoch `k`: none in every fifth, else one to three.
    static func hits(inEpoch k: Int) -> Int { k % 5 == 0 ? 0 : k % 3 + 1 }

    /// Two hours at 10 Hz with a constant |a| per epoch, and the epochs' hits 1 s apart from 0.5 s in.
    static let rate = 10.0
    static let epochs = 2 * 720
    static let samples: [AccelerationSample] = (0..<(epochs * 50)).map { index in
        let t = Double(index) / rate
        return AccelerationSample(t: t, x: 0, y: 0, z: 1 + enmoG[Int(t / 5) % 4])
    }
    static let events: [DetectorEvent] = (0..<epochs).flatMap { k in
        (0..<hits(inEpoch: k)).map { n in
            DetectorEvent.hit(HitEvent(t: Double(k) * 5 + 0.5 + Double(n), peakG: 2, saturated: false, intensityG: 2))
        }
    }

    /// The session streamed as a live one is: each event added `delay` s after its time.
    static func live(delay: Double) -> (summary: SessionSummary, mostHeld: Int) {
        var accumulator = SessionSummaryAccumulator(profile: .tableTennis)
        var next = 0
        var mostHeld = 0
        for sample in samples {
            accumulator.add(sample)
            while next < events.count, events[next].time + delay <= sample.t {
                accumulator.add(events[next])
                next += 1
            }
            mostHeld = max(mostHeld, accumulator.heldEpochs)
        }
        for event in events[next...] { accumulator.add(event) }
        return (accumulator.summary(), mostHeld)
    }

    @Test("two hours keep at most 13 epochs besides the open one; events 50 s late count as in the batch")
    func boundedAndExact() {
        let batch = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: Self.samples, events: Self.events)
        let (summary, mostHeld) = Self.live(delay: 50)
        #expect(mostHeld == 13)
        #expect(summary == batch)
        // The folded sums against every epoch worked out on its own: 360 epochs per band, the
        // first one 4.9 s (its first sample starts no interval).
        #expect(summary.hits == Self.events.count)
        #expect(abs(summary.sedentaryS - 1799.9) < 1e-6)
        for seconds in [summary.lightS, summary.moderateS, summary.vigorousS] { #expect(abs(seconds - 1800) < 1e-6) }
        var metMin = 0.0
        for k in 0..<Self.epochs {
            let seconds = k == 0 ? 4.9 : 5
            let band = ActivityIntensity.Band(enmoMg: Self.enmoG[k % 4] * 1000)
            let intensity = ActivityIntensity.of(
                profile: .tableTennis, events: Self.hits(inEpoch: k), seconds: seconds, band: band)
            metMin += intensity.met * seconds / 60
        }
        #expect(abs(summary.metMin - metMin) < 1e-6)
        #expect(abs(summary.madMg ?? 1) < 1e-9)
    }

    @Test("hits timed inside a 30-s gap of samples change nothing once their epochs are folded")
    func hitsInAGap() {
        let samples = Self.samples.filter { $0.t < 100 || $0.t >= 130 }
        let inGap = [110.5, 115.5, 120.5].map {
            DetectorEvent.hit(HitEvent(t: $0, peakG: 2, saturated: false, intensityG: 2))
        }
        let events = (Self.events + inGap).sorted { $0.time < $1.time }
        var live = SessionSummaryAccumulator(profile: .tableTennis)
        var next = 0
        for sample in samples {
            live.add(sample)
            while next < events.count, events[next].time + 50 <= sample.t {
                live.add(events[next])
                next += 1
            }
        }
        for event in events[next...] { live.add(event) }
        let batch = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: samples, events: events)
        #expect(live.summary() == batch)
        #expect(batch.hits == Self.events.count + 3)
    }

    @Test("an event added more than lateEventS after its time counts, but not in its folded epoch's MET")
    func tooLateEvent() {
        let batch = SessionSummaryAccumulator.summary(profile: .tableTennis, samples: Self.samples, events: Self.events)
        let (summary, _) = Self.live(delay: SessionSummaryAccumulator.lateEventS + 10)
        #expect(summary.hits == batch.hits)
        #expect(summary.maxPeakG == batch.maxPeakG)
        #expect(summary.lightS == batch.lightS)
        // An active epoch folded before its hits came falls back from table tennis's 4 MET to its
        // band's (light 1.5, moderate 3): only the last epochs, still held then, keep theirs.
        #expect(summary.metMin < batch.metMin)
    }
}
