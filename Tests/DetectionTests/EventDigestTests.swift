// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import IndependentMotion
import SDUSensor
import Testing
import VirtualSensor

/// Every profile's detectors (standard and baseline rules) over recordings of both motion models,
/// compared with digests of the events the per-sample detectors emitted before the block path
/// replaced them (`EventDigests.expected`): a change of any event, to the last digit, fails here.
// Serialized: its recordings are ~30 s of CPU, and run side by side they would hold every thread of
// the cooperative pool, so tests in the same process that wait on the pool (QueuedSensorConnector)
// would time out.
@Suite("Events identical to the per-sample detectors", .serialized)
struct EventDigestTests {
    /// One recording: model, script, rate and seed.
    struct Recording: Sendable, CustomStringConvertible {
        var independent: Bool
        var script: MotionScript
        var rate: Double
        var seed: UInt64

        var description: String {
            "\(independent ? "independent" : "scripted") \(script.rawValue) \(Int(rate)) Hz #\(seed)"
        }

        var samples: [AccelerationSample] {
            if independent {
                return IndependentMotionModel.render(script: script, seed: seed, rate: rate, duration: 90).samples
            }
            let raw = MotionGenerator.render(script: script, seed: seed, rate: rate, duration: 90).raw
            return raw.enumerated().map { AccelerationSample(t: Double($0.offset) / rate, raw: $0.element) }
        }
    }

    /// Both models at 100 and 400 Hz; the scripted one also at 50 and 200 Hz (the rates validation data and
    /// sensors use), whose digests were taken before the block path's spacing and smoothing changes.
    static let recordings: [Recording] = [false, true].flatMap { independent in
        MotionScript.allCases.flatMap { script in
            (independent ? [100.0, 400.0] : [50.0, 100.0, 200.0, 400.0]).map {
                Recording(independent: independent, script: script, rate: $0, seed: 7)
            }
        }
    }

    /// FNV-1a over the events' descriptions (shortest round-tripping digits of every field).
    static func digest(_ events: [DetectorEvent]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for event in events {
            for byte in "\(event)\n".utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        return "\(events.count):\(String(hash, radix: 16))"
    }

    /// Blocks of one sample, of one notification, of a file's batch, and the whole recording at once.
    static let blockSizes = [1, 3, 1024, Int.max]

    @Test("every profile's events on every recording match the per-sample detectors'", arguments: recordings)
    func eventsUnchanged(recording: Recording) {
        let samples = recording.samples
        for rules in DetectionRules.allCases {
            for profile in DetectionProfile.allCases {
                let key = "\(recording) \(profile.rawValue) \(rules.rawValue)"
                let expected = EventDigests.expected[key]
                if expected == nil {
                    let found = Self.digest(ProfileDetector(profile: profile, rules: rules).events(in: samples))
                    Issue.record("no digest for \(key) (these events read \(found))")
                }
                for size in Self.blockSizes {
                    var detector = ProfileDetector(profile: profile, rules: rules)
                    var events: [DetectorEvent] = []
                    for start in stride(from: 0, to: samples.count, by: min(size, samples.count)) {
                        detector.process(
                            samples[start..<min(start + min(size, samples.count), samples.count)], into: &events)
                    }
                    events += detector.finish()
                    #expect(Self.digest(events) == expected, "\(key), blocks of \(size)")
                }
            }
        }
    }

    @Test("a changed event changes the digest")
    func digestSeesOneDigit() {
        let flight = FlightEvent(start: 1.25, end: 1.75)
        var moved = flight
        moved.end = moved.end.nextUp
        #expect(Self.digest([.jump(flight)]) != Self.digest([.jump(moved)]))
        #expect(Self.digest([.jump(flight)]) != Self.digest([.throw(flight)]))
    }
}
