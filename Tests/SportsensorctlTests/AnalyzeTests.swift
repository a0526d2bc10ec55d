// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import Testing

@testable import sportsensorctl

@Suite("sportsensorctl analyze")
struct AnalyzeTests {
    func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("analyze-\(UUID().uuidString).csv")
            .path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("a malformed line is an error naming its line number")
    func malformedLine() throws {
        let path = try write("t,x,y,z\n0,0,0,1\n0.01,0,zero,1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try loadSamples(path)
        } throws: { error in
            "\(error)".contains("line 3")
        }
    }

    @Test("a time going backwards is an error naming its line")
    func nonMonotonic() throws {
        let path = try write("t,x,y,z\n0.02,0,0,1\n0.01,0,0,1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try loadSamples(path)
        } throws: { error in
            "\(error)".contains("line 3")
        }
    }

    @Test("a btsnoop file is read as a capture, and a broken one is an error saying so")
    func btsnoop() throws {
        let path = try write("btsnoop\0\0\0\0\u{1}")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try loadSamples(path)
        } throws: { error in
            (error as? InputError)?.code == .malformedCapture && "\(error)".contains("btmon -w")
        }
    }

    @Test("a small CSV with one jump gives its JSON line")
    func jumpLine() throws {
        var text = "t,x,y,z\n"
        for index in 0..<300 {
            let t = Double(index) / 100
            let z: Double
            switch t {
            case ..<0.8: z = 1
            case ..<1.0: z = 1.8
            case ..<1.05: z = 1.8 - (t - 1.0) / 0.05 * 1.8
            case ..<1.45: z = 0
            case ..<1.47: z = (t - 1.45) / 0.02 * 3
            default: z = 1
            }
            text += "\(t),0,0,\(z)\n"
        }
        let path = try write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let events = detectEvents(in: try loadSamples(path), settings: DetectionSettings(profile: .jump))
        #expect(events.count == 1)
        let line = try #require(events.first.map { EventRecord($0).jsonLine })
        #expect(line.hasPrefix(#"{"type":"jump","t":1.0"#) && line.contains(#""takeoff":1.0"#))
        #expect(line.contains(#""flight_s":0.4"#))
    }
}
