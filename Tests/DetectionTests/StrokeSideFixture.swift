// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SDUSensor

/// Synthetic wrist strokes for the stroke-side tests: rest at 1 g along z, and around each stroke a
/// swing whose dynamic acceleration turns half a circle about gravity (one way or the other) and, at
/// contact, a push along gravity or against it (what the side cue reads: a forehand's contact
/// acceleration lies closer to gravity's direction than a backhand's).
struct StrokeSideFixture {
    /// One stroke: its contact time, which way it turns about gravity (+1 or −1), the push along
    /// gravity at contact (g) and the swing's size (g).
    struct Stroke {
        var t: Double
        var turn: Double
        var tilt: Double
        var size: Double = 2.2
    }

    /// A 3 × 3 matrix applied to every sample (a rotation, or a mirror: determinant −1).
    typealias Matrix = [[Double]]
    static let identity: Matrix = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    static let mirror: Matrix = [[-1, 0, 0], [0, 1, 0], [0, 0, 1]]
    /// A rotation by 0.7 rad about (1, 2, 2)/3.
    static let rotation: Matrix = {
        let (x, y, z) = (1.0 / 3, 2.0 / 3, 2.0 / 3)
        let (c, s) = (cos(0.7), sin(0.7))
        return [
            [c + x * x * (1 - c), x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
            [y * x * (1 - c) + z * s, c + y * y * (1 - c), y * z * (1 - c) - x * s],
            [z * x * (1 - c) - y * s, z * y * (1 - c) + x * s, c + z * z * (1 - c)],
        ]
    }()

    /// The swing lasts from 0.5 s before contact to 0.5 s after it, largest at contact: strokes 1.5 s
    /// apart leave the 0.6–0.9 s before each at rest.
    static let before = 0.5
    static let after = 0.5

    /// Samples at `rate` Hz from 0 to `duration` s.
    static func samples(
        _ strokes: [Stroke], rate: Double = 50, duration: Double, transform: Matrix = identity
    ) -> [AccelerationSample] {
        (0..<Int(duration * rate)).map { index in
            let t = Double(index) / rate
            var a = [0.0, 0.0, 1.0]
            for stroke in strokes where t > stroke.t - before && t < stroke.t + after {
                let phase = (t - stroke.t + before) / (before + after)
                let angle = stroke.turn * Double.pi * phase
                let envelope = stroke.size * sin(Double.pi * phase)
                a[0] += envelope * cos(angle)
                a[1] += envelope * sin(angle)
                let u = (t - stroke.t) / 0.06
                a[2] += stroke.tilt * exp(-0.5 * u * u)
            }
            let m = transform
            return AccelerationSample(
                t: t, x: m[0][0] * a[0] + m[0][1] * a[1] + m[0][2] * a[2],
                y: m[1][0] * a[0] + m[1][1] * a[1] + m[1][2] * a[2],
                z: m[2][0] * a[0] + m[2][1] * a[1] + m[2][2] * a[2])
        }
    }
}
