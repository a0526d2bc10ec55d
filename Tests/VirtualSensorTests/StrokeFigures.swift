// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

@testable import VirtualSensor

/// Per-stroke figures of the table-tennis script at 50 Hz, measured as `Validation/stroke_energy.py`
/// measures the real tt-wrist strokes: within ±0.3 s of each labelled contact, the swing energy
/// ∫(|a| − 1 g)₊² dt, the largest |a| and the time |a| is above 1.5 g.
struct StrokeFigures {
    /// The groups of the real figures: blocks pooled (their drills are not labelled by side), flips
    /// and topspins by side.
    enum Group: String, CaseIterable, CustomStringConvertible {
        case block
        case flipBackhand = "flip backhand"
        case flipForehand = "flip forehand"
        case topspinBackhand = "topspin backhand"
        case topspinForehand = "topspin forehand"

        init(_ drill: TableTennisDrill) {
            switch (drill.type, drill.forehand) {
            case (.block, _): self = .block
            case (.flip, false): self = .flipBackhand
            case (.flip, true): self = .flipForehand
            case (.topspin, false): self = .topspinBackhand
            case (.topspin, true): self = .topspinForehand
            }
        }

        var description: String { rawValue }
    }

    struct Stroke {
        var energy: Double
        var peak: Double
        var long: Double
    }

    var strokes: [Group: [Stroke]] = [:]

    static let rate = 50.0
    static let window = 0.3

    /// Drills only (no breaks), `duration` s from each seed.
    init(seeds: ClosedRange<UInt64>, duration: Double) {
        var options = MotionOptions()
        options.distractors = false
        for seed in seeds {
            var generator = MotionGenerator(script: .tableTennis, seed: seed, options: options)
            var magnitudes: [Double] = []
            var contacts: [(Double, Group)] = []
            var labelled = 0
            let count = Int(duration * Self.rate)
            for index in 0..<count {
                let raw = generator.reading(at: Double(index) / Self.rate, interval: 1 / Self.rate)
                magnitudes.append(AccelerationSample(t: 0, raw: raw).magnitude)
                // A stroke's label is added when its segment starts, while `drill` is still its drill.
                while labelled < generator.labels.count {
                    if case .hit(let t, _) = generator.labels[labelled], let drill = generator.drill {
                        contacts.append((t, Group(drill)))
                    }
                    labelled += 1
                }
            }
            for (t, group) in contacts {
                let first = Int(((t - Self.window) * Self.rate).rounded(.up))
                let last = Int(((t + Self.window) * Self.rate).rounded(.down))
                guard first >= 0 && last < magnitudes.count else { continue }
                let part = magnitudes[first...last]
                let energy = part.reduce(0) { $0 + max($1 - 1, 0) * max($1 - 1, 0) } / Self.rate
                let long = Double(part.filter { $0 > 1.5 }.count) / Self.rate
                strokes[group, default: []].append(Stroke(energy: energy, peak: part.max() ?? 0, long: long))
            }
        }
    }

    var all: [Stroke] { Group.allCases.flatMap { strokes[$0] ?? [] } }

    /// The p-th percentile (linear between ranks, as numpy's default).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let rank = p / 100 * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down))
        let high = min(low + 1, sorted.count - 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
    }
}
