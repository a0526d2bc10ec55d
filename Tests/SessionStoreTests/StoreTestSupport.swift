// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import GatewayTesting
import SDUSensor

@testable import SessionStore
@testable import StoreFormats

/// A fresh temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/sessionstore-tests-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    var stateDirectory: StateDirectory { StateDirectory(path: path) }
    var databasePath: String { stateDirectory.databasePath }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

extension SeededRandom {
    /// Standard normal (Box–Muller): the store tests' noise, whose figures (bytes per sample, codec
    /// choices) were measured on this draw, not on the motion scripts' sum of uniforms.
    mutating func boxMullerGaussian() -> Double {
        let u = max(unit(), 1e-300)
        return (-2 * Foundation.log(u)).squareRoot() * Foundation.cos(2 * Double.pi * unit())
    }
}

/// Synthetic accelerometer signals at 100 Hz, in counts (16384 per g), clipped to Int16.
enum SyntheticMotion {
    static let rate = 100.0

    static func clip(_ value: Double) -> Int16 {
        Int16(max(-32768, min(32767, value.rounded())))
    }

    /// Amplitudes (g) of the 0.5, 1.1, 2.3, 4.2 and 8 Hz components of arm motion in training:
    /// falling with frequency as wrist motion does, 1.65 g in all.
    static let trainingAmplitudes = [0.8, 0.5, 0.25, 0.08, 0.02]
    /// A harsher spectrum with more high-frequency energy (1.58 g in all), as a stress case.
    static let vigorousAmplitudes = [0.6, 0.45, 0.3, 0.15, 0.08]

    /// Continuous motion: per axis a sum of sinusoids from 0.5 to 8 Hz with random phases and the
    /// given amplitudes, gravity on one axis, Gaussian noise of 3 counts, and every 1.5–3 s an
    /// impact: a 3 g decaying 40 Hz oscillation that clips at full scale.
    static func training(
        count: Int, seed: UInt64, firstIndex: Int64 = 0, amplitudes: [Double] = trainingAmplitudes
    ) -> [IndexedSample] {
        var random = SeededRandom(seed: seed)
        let frequencies = [0.5, 1.1, 2.3, 4.2, 8.0]
        var phases: [[Double]] = []
        for _ in 0..<3 { phases.append(frequencies.map { _ in random.unit() * 2 * Double.pi }) }
        let gravity = [0.0, -1.0, 0.0]
        var nextImpact = 1.0 + random.unit() * 2
        var impactStart = -10.0
        var impactAxis = 0
        var samples: [IndexedSample] = []
        samples.reserveCapacity(count)
        for n in 0..<count {
            let t = Double(n) / rate
            if t >= nextImpact {
                impactStart = t
                impactAxis = Int(random.next() % 3)
                nextImpact = t + 1.5 + random.unit() * 1.5
            }
            var axes = [0.0, 0.0, 0.0]
            for axis in 0..<3 {
                var g = gravity[axis]
                for (k, frequency) in frequencies.enumerated() {
                    g += amplitudes[k] * Foundation.sin(2 * Double.pi * frequency * t + phases[axis][k])
                }
                let since = t - impactStart
                if since >= 0, since < 0.15, axis == impactAxis {
                    g += 3 * Foundation.exp(-since / 0.03) * Foundation.cos(2 * Double.pi * 40 * since)
                }
                axes[axis] = g * 16384 + random.boxMullerGaussian() * 3
            }
            samples.append(
                IndexedSample(
                    index: firstIndex + Int64(n), t: t,
                    raw: RawAcceleration(x: clip(axes[0]), y: clip(axes[1]), z: clip(axes[2]))))
        }
        return samples
    }

    /// A training session as it is recorded: active bouts of 8–15 s of `training` motion
    /// alternating with pauses of 5–12 s (the wrist nearly still: gravity, a 0.05 g sway, noise).
    static func trainingSession(count: Int, seed: UInt64) -> [IndexedSample] {
        let active = training(count: count, seed: seed)
        var random = SeededRandom(seed: seed ^ 0x5EED)
        var samples = active
        var n = 0
        var inBout = true
        while n < count {
            let seconds = inBout ? 8 + random.unit() * 7 : 5 + random.unit() * 7
            let end = min(count, n + Int(seconds * rate))
            if !inBout {
                for m in n..<end {
                    let t = Double(m) / rate
                    let sway = 0.05 * Foundation.sin(2 * Double.pi * 0.3 * t)
                    samples[m].raw = RawAcceleration(
                        x: clip((sway + 0.1) * 16384 + random.boxMullerGaussian() * 3),
                        y: clip((-0.99 + sway / 2) * 16384 + random.boxMullerGaussian() * 3),
                        z: clip(0.05 * 16384 + random.boxMullerGaussian() * 3))
                }
            }
            n = end
            inBout.toggle()
        }
        return samples
    }

    /// A sensor lying still: gravity on z and Gaussian noise of 3 counts.
    static func rest(count: Int, seed: UInt64) -> [IndexedSample] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { n in
            IndexedSample(
                index: Int64(n), t: Double(n) / rate,
                raw: RawAcceleration(
                    x: clip(random.boxMullerGaussian() * 3), y: clip(random.boxMullerGaussian() * 3),
                    z: clip(16384 + random.boxMullerGaussian() * 3)))
        }
    }
}

/// Counts and indices equal, times within the codec's microsecond quantum.
func sameSamples(_ a: some Collection<IndexedSample>, _ b: some Collection<IndexedSample>) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).allSatisfy { $0.raw == $1.raw && $0.index == $1.index && abs($0.t - $1.t) <= 1e-6 }
}

/// The `sequence` numbers of a session's stored events, in order.
func eventSequences(_ store: SessionStore, _ id: UUID) async throws -> [Int64] {
    try await store.database.read { db in
        try Int64.fetchAll(
            db, sql: "SELECT sequence FROM events WHERE session_id = ? ORDER BY sequence",
            arguments: [id.uuidString.lowercased()])
    }
}
