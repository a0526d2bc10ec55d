// SPDX-License-Identifier: GPL-2.0-or-later
import Testing

@testable import VirtualSensor

/// The scripted strokes stay near what real strokes at the wrist show (Docs/DETECTION.md, "Table-tennis
/// drills, fitted to real wrist strokes"): the swing energy, peak and time above 1.5 g per stroke of
/// tt-wrist's development drills (`python3 Validation/stroke_energy.py real MANIFEST`), against the
/// same figures of the script's drills at 50 Hz. The held-out drills are not used.
@Suite("Table-tennis strokes fitted to real strokes")
struct StrokeFitTests {
    /// Real development strokes per group: swing energy p5, p50, p95 (g²·s), peak |a| p50 (g) and time
    /// above 1.5 g p50 (s), all within ±0.3 s of the gyroscope's stroke.
    static let real: [StrokeFigures.Group: (p5: Double, p50: Double, p95: Double, peak: Double, long: Double)] = [
        .block: (0.24, 0.39, 0.62, 2.76, 0.28),
        .flipBackhand: (0.37, 0.67, 0.93, 3.46, 0.34),
        .flipForehand: (0.16, 1.08, 1.31, 3.36, 0.44),
        .topspinBackhand: (0.55, 1.00, 1.47, 3.46, 0.40),
        .topspinForehand: (0.97, 1.59, 2.03, 3.46, 0.56),
    ]

    /// Eight fixed seeds of two minutes of drills: about 800 strokes, every group.
    static let figures = StrokeFigures(seeds: 1...8, duration: 120)

    @Test("each stroke type's swing energy, peak and time above 1.5 g are near the real strokes'")
    func perGroup() {
        for group in StrokeFigures.Group.allCases {
            let strokes = Self.figures.strokes[group] ?? []
            guard let real = Self.real[group], strokes.count >= 40 else {
                Issue.record("\(group): \(strokes.count) strokes, too few to compare")
                continue
            }
            let energy = strokes.map(\.energy)
            let p5 = StrokeFigures.percentile(energy, 5)
            let p50 = StrokeFigures.percentile(energy, 50)
            let p95 = StrokeFigures.percentile(energy, 95)
            let peak = StrokeFigures.percentile(strokes.map(\.peak), 50)
            let long = StrokeFigures.percentile(strokes.map(\.long), 50)
            let seen = "\(group): energy p5/p50/p95 \(p5)/\(p50)/\(p95), peak \(peak), above 1.5 g \(long)"
            #expect(abs(p50 / real.p50 - 1) <= 0.25, "\(seen)")
            // One of the four real forehand flip drills swings five times weaker than the others; the
            // model has no such drill, so its p5 there is 2.4 times the real one.
            #expect(p5 >= real.p5 / 2.5 && p5 <= real.p5 * 2.5, "\(seen)")
            #expect(abs(p95 / real.p95 - 1) <= 0.3, "\(seen)")
            // The model's contact clips all three axes less often than the watch's (Docs/DETECTION.md).
            #expect(abs(peak - real.peak) <= 0.45, "\(seen)")
            #expect(abs(long - real.long) <= 0.08, "\(seen)")
        }
    }

    @Test("weak strokes are as rare as in real drills: 1.9 % of real strokes carry less than 0.15 g²·s")
    func weakShare() {
        let all = Self.figures.all
        let weak = Double(all.filter { $0.energy < 0.15 }.count) / Double(all.count)
        #expect(all.count >= 600)
        #expect(weak >= 0.003 && weak <= 0.05, "\(weak * 100) % of \(all.count) strokes below 0.15 g²·s")
    }
}
