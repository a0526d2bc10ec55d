// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import Testing
import VirtualSensor

@testable import sportsensorctl

/// `analyze` over `export --format csv` must see the samples live detection saw (`count / 16384`
/// g), not their six-decimal approximation, or an intensity near a rounding edge comes out one
/// thousandth apart from the live one.
@Suite("analyze of an exported CSV")
struct AnalyzeExportRoundTripTests {
    func load(_ text: String) throws -> [AccelerationSample] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(UUID().uuidString).csv")
            .path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try loadSamples(path)
    }

    @Test("every Int16 count on every axis reads back bit for bit, at whole-microsecond times")
    func everyCount() throws {
        var written: [AccelerationSample] = []
        for (index, count) in (Int(Int16.min)...Int(Int16.max)).enumerated() {
            let raw = RawAcceleration(x: Int16(count), y: Int16(truncatingIfNeeded: ~count), z: Int16(count / 3))
            written.append(AccelerationSample(t: Double(index) * 9_999 / 1_000_000, raw: raw))
        }
        let text = SampleCSV.header + "\n" + written.map { SampleCSV.line($0) + "\n" }.joined()
        let read = try load(text)
        #expect(read.count == written.count)
        let differing = zip(written, read).filter { $0 != $1 }
        #expect(differing.count == 0, "first differing: \(String(describing: differing.first))")
    }

    @Test("values that are not whole counts are analysed as written")
    func notCounts() throws {
        let read = try load("t,x,y,z\n0,0.123,-1.5,0.000031\n")
        #expect(read == [AccelerationSample(t: 0, x: 0.123, y: -1.5, z: 0.000031)])
    }

    @Test("analyze of a profile's recording written as CSV gives the live events", arguments: DetectionProfile.allCases)
    func liveEvents(profile: DetectionProfile) throws {
        let recording = MotionGenerator.render(
            script: MotionScript(rawValue: profile.rawValue)!, seed: 11, rate: 100, duration: 60)
        let live = DetectionSettings(profile: profile).detector.eventsInTimeOrder(in: recording.samples)
        let text = SampleCSV.header + "\n" + recording.samples.map { SampleCSV.line($0) + "\n" }.joined()
        let analysed = detectEvents(in: try load(text), settings: DetectionSettings(profile: profile))
        #expect(!live.isEmpty)
        let differing = zip(analysed, live).filter { $0 != $1 }
        #expect(analysed.count == live.count)
        #expect(differing.count == 0, "first differing: \(String(describing: differing.first))")
    }
}
