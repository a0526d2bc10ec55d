// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import SDUSensor
import Testing
import VirtualSensor

/// The shapes real wrist strokes have (tt-wrist, Docs/DETECTION.md): a swing through contact
/// followed 0.3–0.7 s later by a recovery lobe, and rest between drills.
@Suite("HitDetector on real stroke shapes")
struct StrokeLobeTests {
    /// A 0.3 s stroke along x at `centre` with a recovery lobe of `recovery` g along y `lag` seconds
    /// later, 0.3 s wide (a topspin's arm coming back up), gravity on z.
    static func strokeWithRecovery(
        _ t: Double, centre: Double, peak: Double = 2.0, recovery: Double = 1.6, lag: Double = 0.55
    ) -> (Double, Double, Double) {
        (peak * bump(t, centre: centre, width: 0.3), recovery * bump(t, centre: centre + lag, width: 0.3), 1)
    }

    @Test("a stroke with a recovery lobe 0.55 s after contact counts once, at contact", arguments: [50.0, 100.0])
    func lateRecoveryLobe(rate: Double) throws {
        let samples = synthesize(rate: rate, duration: 4) { Self.strokeWithRecovery($0, centre: 1.5) }
        let found = hits(HitDetector().events(in: samples))
        #expect(found.count == 1)
        let hit = try #require(found.first)
        #expect(abs(hit.t - 1.5) < 0.5 / rate + 0.001)
    }

    @Test("strokes 0.8 s apart with recovery lobes between them count one each")
    func rallyWithRecoveries() {
        let centres = [1.0, 1.8, 2.6, 3.4, 4.2]
        let samples = synthesize(rate: 50, duration: 6) { t in
            var sum = (0.0, 0.0, 1.0)
            for centre in centres {
                let part = Self.strokeWithRecovery(t, centre: centre, lag: 0.45)
                sum = (sum.0 + part.0, sum.1 + part.1, 1)
            }
            return sum
        }
        let times = hits(HitDetector().events(in: samples)).map(\.t)
        #expect(times.count == centres.count)
        for (time, centre) in zip(times, centres) { #expect(abs(time - centre) < 0.011) }
    }

    @Test("a weaker lobe just before the stroke does not time it; the stronger one does")
    func strongestLobeTimes() throws {
        let samples = synthesize(rate: 50, duration: 4) { t in
            (1.9 * bump(t, centre: 2.0, width: 0.3) - 1.5 * bump(t, centre: 1.6, width: 0.3), 0, 1)
        }
        let found = hits(HitDetector().events(in: samples))
        #expect(found.count == 1)
        #expect(abs(try #require(found.first).t - 2.0) < 0.011)
    }

    @Test(
        "a clipped swing is timed at the middle of its clipped run, not where the most axes clip",
        arguments: [50.0, 100.0, 200.0])
    func clippedRunMiddle(rate: Double) throws {
        // The arc's centripetal pull clips x from 1.8 to 2.2 s (peak speed at 2.0); the tangential push
        // of the rising swing clips y too, but only around 1.85 s, where |a| is therefore largest.
        let samples = synthesize(rate: rate, duration: 4) { t in
            (3 * bump(t, centre: 2.0, width: 0.6), 2.5 * bump(t, centre: 1.85, width: 0.12), 1)
        }
        let found = hits(HitDetector().events(in: samples))
        #expect(found.count == 1)
        let hit = try #require(found.first)
        #expect(hit.saturated)
        #expect(abs(hit.t - 2.0) < 1 / rate + 0.001)
    }

    @Test(
        "a back-swing lobe, then a swing still going on when its window ends: one hit, at the swing",
        arguments: [50.0, 100.0])
    func swingOutlastsWindow(rate: Double) throws {
        // The back-swing (1.9 g on y, enough swing energy to count alone) is over 0.1 s before the
        // swing starts; the swing (2.6 g on x, its top 0.65 s after the back-swing's) lasts 0.8 s, so
        // its hump is still open when the back-swing's window ends. (At 200 Hz this swing's 0.4 s
        // clipped plateau is timed 0.1 s late whether or not a back-swing comes first.)
        let samples = synthesize(rate: rate, duration: 5) { t in
            (2.6 * bump(t, centre: 2.0, width: 0.8), 1.9 * bump(t, centre: 1.35, width: 0.3), 1)
        }
        let found = hits(HitDetector().events(in: samples))
        #expect(found.count == 1, "\(found)")
        let hit = try #require(found.first)
        #expect(abs(hit.t - 2.0) < 1 / rate + 0.001, "\(found)")
        #expect(hit.saturated)
    }

    @Test(
        "two lobes that clip all three axes: the one with more swing energy times the stroke, not the first",
        arguments: [50.0, 100.0, 200.0])
    func clippedTieGoesToEnergy(rate: Double) throws {
        // A short back-swing and, 0.4 s later, a longer swing both clip x, y and z, so both tops read
        // the same |a| (three axes at full scale); the swing carries more energy and is the stroke. (Its
        // hump ends inside the back-swing's window: a hump still going on then is held by |a| alone.)
        let samples = synthesize(rate: rate, duration: 5) { t in
            let lobes = 3 * bump(t, centre: 1.6, width: 0.16) + 3 * bump(t, centre: 2.0, width: 0.4)
            return (lobes, lobes, 1 + lobes)
        }
        let found = hits(HitDetector().events(in: samples))
        #expect(found.count == 1, "\(found)")
        let hit = try #require(found.first)
        #expect(abs(hit.t - 2.0) < 1 / rate + 0.001, "\(found)")
        #expect(abs(hit.peakG - SDUProfile.fullScaleG * 3.0.squareRoot()) < 0.001)
    }

    @Test("rest: a slowly turning wrist with a gentle arm swing counts nothing")
    func restCountsNothing() {
        let samples = synthesize(rate: 50, duration: 60) { t in
            // The forearm turns 0.1 turns/s (gravity moves through every axis) while the arm swings
            // ±0.5 g at 1.2 Hz, as between drills.
            let angle = 2 * MotionMath.pi * 0.1 * t
            let swing = 0.5 * MotionMath.sin(2 * MotionMath.pi * 1.2 * t)
            return (swing, MotionMath.sin(angle), MotionMath.cos(angle))
        }
        #expect(HitDetector().events(in: samples).isEmpty)
    }

    @Test(
        "a flick of the hand past min_peak_g for 0.1 s is no stroke; with min_swing_energy 0 it is",
        arguments: [50.0, 100.0])
    func flickIsNoStroke(rate: Double) {
        // Between drills: a ball picked up, a flick of the wrist. |a| reaches 2.2 g (clipped on x) but
        // for 0.1 s only, ∫(|a| − 1)² dt ≈ 0.06 g²·s; a real stroke stays past 1.5 g for 0.2 s or more.
        let samples = synthesize(rate: rate, duration: 4) { t in (2.5 * bump(t, centre: 2.0, width: 0.1), 0, 1) }
        #expect(HitDetector().events(in: samples).isEmpty)
        var parameters = HitDetector.Parameters()
        parameters.minSwingEnergy = 0
        #expect(hits(HitDetector(parameters: parameters).events(in: samples)).count == 1)
    }

    @Test(
        "a long push whose top stays under min_top_g is no stroke; with min_top_g 0 it is; a swing past it counts",
        arguments: [50.0, 100.0])
    func weakTopIsNoStroke(rate: Double) {
        // Between drills: standing up after picking a ball from the floor. |a| rises to 1.85 g over 0.6 s,
        // ∫(|a| − 1)² dt ≈ 0.17 g²·s: as much swing energy as a soft stroke, but a real stroke's contact
        // drives the wrist to 2.6 g and more.
        let push = synthesize(rate: rate, duration: 4) { t in (1.55 * bump(t, centre: 2.0, width: 0.6), 0, 1) }
        #expect(HitDetector().events(in: push).isEmpty)
        var parameters = HitDetector.Parameters()
        parameters.minTopG = 0
        #expect(hits(HitDetector(parameters: parameters).events(in: push)).count == 1)
        let swing = synthesize(rate: rate, duration: 4) { t in (1.9 * bump(t, centre: 2.0, width: 0.6), 0, 1) }
        #expect(hits(HitDetector().events(in: swing)).count == 1)
    }

    @Test("a rejected flick just before a stroke does not hold the stroke back")
    func flickBeforeStroke() throws {
        let samples = synthesize(rate: 50, duration: 5) { t in
            (2.5 * bump(t, centre: 1.5, width: 0.1) + 2.5 * bump(t, centre: 2.6, width: 0.3), 0, 1)
        }
        let found = hits(HitDetector().events(in: samples))
        #expect(found.count == 1)
        #expect(abs(try #require(found.first).t - 2.6) < 0.011)
    }

    @Test("the merge window is a parameter: at 0.4 s the recovery lobe counts again")
    func mergeWindowParameter() {
        var parameters = HitDetector.Parameters()
        parameters.mergeWindow = 0.4
        // A recovery lobe as strong as a stroke (a snapped-back topspin arm), so that only the window holds it.
        let samples = synthesize(rate: 50, duration: 4) { Self.strokeWithRecovery($0, centre: 1.5, recovery: 1.9) }
        #expect(hits(HitDetector(parameters: parameters).events(in: samples)).count == 2)
    }
}
