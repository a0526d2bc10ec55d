// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import Testing

@testable import sportsensor_dev

/// The batch peer `bench` runs (scripts/detection-peer.py under Debian's python3 with numpy and
/// scipy, which `make deps` installs): its input, its output and its event counts on signals
/// built by hand. Nothing here is timed.
@Suite("bench: the numpy + scipy batch peer")
struct DetectionPeerTests {
    static let rate = 100.0
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/detection-peer.py").path

    /// A reading of `g` on the z axis, the others at rest.
    static func upright(_ g: Double) -> RawAcceleration {
        RawAcceleration(x: 0, y: 0, z: Int16((g * 16384).rounded()))
    }

    static func still(_ seconds: Double) -> [RawAcceleration] {
        Array(repeating: upright(1), count: Int(seconds * rate))
    }

    /// `count` flights of `flight` seconds in free fall (0.05 g), each after a 1.6 g push and ending in
    /// a 1.9 g impact, 3 s apart.
    static func flights(_ count: Int, flight: Double) -> [RawAcceleration] {
        var samples = still(2)
        for _ in 0..<count {
            samples += Array(repeating: upright(1.6), count: 10)
            samples += Array(repeating: upright(0.05), count: Int((flight * rate).rounded()))
            samples += [upright(1.9), upright(1.5)]
            samples += still(3)
        }
        return samples
    }

    /// `count` strokes: 60 ms at full scale (2 g) along x and y on top of gravity, 1.5 s apart.
    static func strokes(_ count: Int) -> [RawAcceleration] {
        var samples = still(3)
        for _ in 0..<count {
            samples += Array(repeating: RawAcceleration(x: .max, y: .max, z: 16384), count: 6)
            samples += still(1.5)
        }
        return samples
    }

    /// 10 s of |a| swinging ±0.3 g at 2 Hz (walking's rhythm), between 2 s of rest.
    static func walk() -> [RawAcceleration] {
        let swing = (0..<Int(10 * rate)).map { i in upright(1 + 0.3 * sin(2 * Double.pi * 2 * Double(i) / rate)) }
        return still(2) + swing + still(2)
    }

    func run(_ profile: DetectionProfile, _ samples: [RawAcceleration]) throws -> DetectionPeerResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "detection-peer-test-\(ProcessInfo.processInfo.globallyUniqueString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("samples.s16").path
        try DetectionPeer.write(samples, to: file)
        let peer = DetectionPeer(script: Self.script)
        try peer.check()
        return try peer.run(profile: profile, samplesFile: file, rate: Self.rate, repeats: 2)
    }

    @Test("the samples file is little-endian Int16 x, y, z triplets")
    func sampleFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "detection-peer-\(ProcessInfo.processInfo.globallyUniqueString).s16"
        ).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try DetectionPeer.write([RawAcceleration(x: 1, y: -2, z: 0x1234)], to: path)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes == [0x01, 0x00, 0xFE, 0xFF, 0x34, 0x12])
    }

    @Test("jumps: each free-fall run between a push and an impact, within the jump's flight times")
    func jumps() throws {
        // 0.4 s flights count; a 0.1 s drop is shorter than a jump's 0.15 s.
        let result = try run(.jump, Self.flights(3, flight: 0.4) + Self.flights(2, flight: 0.1))
        #expect(result.profile == "jump")
        #expect(result.samples == Self.flights(3, flight: 0.4).count + Self.flights(2, flight: 0.1).count)
        #expect(result.events == 3)
        #expect(result.repeats == 2)
        #expect(result.seconds > 0)
    }

    @Test("throws: flights of 0.25-4 s only")
    func throwsProfile() throws {
        // 0.2 s is a drop for a throw (shorter than 0.25 s), 1.2 s a throw.
        let result = try run(.throw, Self.flights(2, flight: 1.2) + Self.flights(4, flight: 0.2))
        #expect(result.events == 2)
    }

    @Test("table tennis: each burst of dynamic acceleration above 1.3 g")
    func strokes() throws {
        let result = try run(.tableTennis, Self.strokes(5))
        #expect(result.events == 5)
    }

    @Test("steps: one peak per cycle of a 2 Hz walk, none at rest")
    func steps() throws {
        #expect(try run(.steps, Self.still(10)).events == 0)
        let walk = try run(.steps, Self.walk())
        // 20 cycles, and at most one more from the band-pass ringing as the walk stops.
        #expect((20...21).contains(walk.events))
    }

    @Test("a Python that does not exist is a clear error that names what to install")
    func missingPython() throws {
        let peer = DetectionPeer(python: "/nonexistent/python3", script: Self.script)
        #expect {
            try peer.check()
        } throws: { error in
            guard let error = error as? DetectionPeerError else { return false }
            return error.code == .missing && error.message.contains("python3-scipy")
                && error.message.contains("make deps")
        }
    }

    @Test("a script that prints something else is a bad-output error")
    func badOutput() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "detection-peer-test-\(ProcessInfo.processInfo.globallyUniqueString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("peer.py").path
        try "print('hello')\n".write(toFile: script, atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("samples.s16").path
        try DetectionPeer.write(Self.still(1), to: file)
        let peer = DetectionPeer(script: script)
        #expect {
            _ = try peer.run(profile: .jump, samplesFile: file, rate: Self.rate, repeats: 1)
        } throws: { error in
            (error as? DetectionPeerError)?.code == .badOutput
        }
    }
}
