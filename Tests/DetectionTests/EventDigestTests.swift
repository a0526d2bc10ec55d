// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import GatewayTesting
import IndependentMotion
import SDUSensor
import Testing
import VirtualSensor

/// Every profile's detectors (standard and baseline rules) over recordings of both motion models,
/// compared with digests of the events the per-sample detectors emitted before the block path
/// replaced them (`EventDigests.expected`): a change of any event, to the last digit, fails here.
// Its recordings are ~20–45 s of CPU: each runs on a thread of its own (`onOwnThread`), so the
// cooperative pool stays free for the async tests beside it (their time limits), and one at a time
// (serialized), so they take one core, not both.
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

    /// One detector over one recording: its digests cut into each block size, and the one taken
    /// before the block path.
    struct Outcome: Sendable {
        var key: String
        /// The digest taken before the block path; nil when none was taken for `key`.
        var expected: String?
        /// For a missing digest, the events' digest from `events(in:)`, to add to `EventDigests`.
        var found: String?
        /// The events' digest in blocks of each of `blockSizes`, in order.
        var digests: [String]
    }

    /// Every profile's standard and baseline detectors over `recording`, in each block size.
    static func outcomes(_ recording: Recording) -> [Outcome] {
        let samples = recording.samples
        var outcomes: [Outcome] = []
        for rules in DetectionRules.allCases {
            for profile in DetectionProfile.allCases {
                let key = "\(recording) \(profile.rawValue) \(rules.rawValue)"
                let expected = EventDigests.expected[key]
                let found =
                    expected == nil
                    ? digest(ProfileDetector(profile: profile, rules: rules).events(in: samples)) : nil
                let digests = blockSizes.map { size in
                    var detector = ProfileDetector(profile: profile, rules: rules)
                    var events: [DetectorEvent] = []
                    for start in stride(from: 0, to: samples.count, by: min(size, samples.count)) {
                        detector.process(
                            samples[start..<min(start + min(size, samples.count), samples.count)], into: &events)
                    }
                    events += detector.finish()
                    return digest(events)
                }
                outcomes.append(Outcome(key: key, expected: expected, found: found, digests: digests))
            }
        }
        return outcomes
    }

    @Test("every profile's events on every recording match the per-sample detectors'", arguments: recordings)
    func eventsUnchanged(recording: Recording) async {
        let outcomes = await onOwnThread { Self.outcomes(recording) }
        for outcome in outcomes {
            if let found = outcome.found { Issue.record("no digest for \(outcome.key) (these events read \(found))") }
            for (size, digest) in zip(Self.blockSizes, outcome.digests) {
                #expect(digest == outcome.expected, "\(outcome.key), blocks of \(size)")
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
