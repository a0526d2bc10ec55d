// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

@Suite("Event quality flags")
struct EventQualityTests {
    /// A jump with gravity on z and a landing rising over `rise` seconds, at `rate` Hz.
    static func jumpRecording(
        rate: Double, rise: Double = 0.06, floor: Double = 0, landingPeak: Double = 1.9
    )
        -> [AccelerationSample]
    {
        synthesize(rate: rate, duration: 4) { t in
            (0, 0, jump(t, takeoff: 1.503, flight: 0.45, rise: rise, landingPeak: landingPeak, floor: floor))
        }
    }

    @Test("a clean jump at 100 Hz carries no flag; at 25 Hz it is rate_too_low")
    func rate() throws {
        let clean = try #require(flights(JumpDetector().events(in: Self.jumpRecording(rate: 100))).first)
        #expect(clean.quality.isEmpty)
        let slow = try #require(flights(JumpDetector().events(in: Self.jumpRecording(rate: 25))).first)
        #expect(slow.quality.contains(.rateTooLow))
        #expect(EventRecord(.jump(slow)).quality?.contains("rate_too_low") == true)
    }

    @Test("samples lost at the landing make a sample_gap; lost a second later they do not")
    func gap() throws {
        let samples = Self.jumpRecording(rate: 100)
        let atLanding = samples.filter { !($0.t > 1.90 && $0.t < 1.94) }
        let flagged = try #require(flights(JumpDetector().events(in: atLanding)).first)
        #expect(flagged.quality.contains(.sampleGap))
        let later = samples.filter { !($0.t > 3.0 && $0.t < 3.04) }
        let clean = try #require(flights(JumpDetector().events(in: later)).first)
        #expect(!clean.quality.contains(.sampleGap))
    }

    @Test("a landing within one sample interval is located from the edge moments: edge_fallback")
    func fallback() throws {
        let hard = Self.jumpRecording(rate: 100, rise: 0.001, landingPeak: 1.95)
        let flight = try #require(flights(JumpDetector().events(in: hard)).first)
        #expect(flight.quality.contains(.edgeFallback))
    }

    @Test("a flight whose floor nearly reaches floor_max_g is low_floor_margin")
    func floorMargin() throws {
        let high = Self.jumpRecording(rate: 100, floor: 0.6)
        let flight = try #require(flights(JumpDetector().events(in: high)).first)
        #expect(flight.quality.contains(.lowFloorMargin))
        let low = Self.jumpRecording(rate: 100, floor: 0.3)
        #expect(try #require(flights(JumpDetector().events(in: low)).first).quality.isEmpty)
    }

    @Test("a stroke that clipped at ±2 g is flagged clipped")
    func clippedStroke() throws {
        let samples = synthesize(rate: 100, duration: 3) { t in stroke(t, centre: 1.5, peak: 3.5) }
        let hit = try #require(hits(HitDetector().events(in: samples)).first)
        #expect(hit.saturated && hit.quality.contains(.clipped))
    }

    @Test("steps at 10 Hz are rate_too_low, at 100 Hz they carry no flag")
    func stepRate() {
        for (rate, flagged) in [(100.0, false), (10.0, true)] {
            let samples = synthesize(rate: rate, duration: 12) { t in
                (0, 0, 1 + 0.3 * MotionMath.cos(2 * MotionMath.pi * 1.8 * t))
            }
            let steps = StepDetector().events(in: samples)
            #expect(steps.count > 10, "\(rate) Hz")
            #expect(steps.allSatisfy { $0.quality.contains(.rateTooLow) == flagged }, "\(rate) Hz")
        }
    }
}
