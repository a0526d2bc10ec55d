// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import SessionStore
import Testing

/// `sportsensorctl show` of a table-tennis session whose strokes carry a side.
@Suite("sportsensorctl show: strokes per side")
struct ShowSidesTests {
    static var executable: String { BuiltProducts.path(of: "sportsensorctl") ?? "sportsensorctl (not built)" }

    @Test("the table and --json give the forehand and backhand counts and peaks")
    func sides() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let store = try directory.open()
        let hits: [HitEvent] = [
            HitEvent(t: 1, peakG: 1.5, saturated: false, intensityG: 1.5, side: .forehand),
            HitEvent(t: 2, peakG: 2.0, saturated: true, intensityG: 2.75, quality: .clipped, side: .forehand),
            HitEvent(t: 3, peakG: 1.25, saturated: false, intensityG: 1.25, side: .backhand),
        ]
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .tableTennis)), samples: [],
            events: hits.map { EventRecord(.hit($0)) })
        try store.close()

        let table = try await runCommand(Self.executable, ["show", session.idText, "--state-dir", directory.path])
        #expect(table.status == 0, "\(table)")
        let lines = table.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        for expected in [
            "forehand_hits 2", "backhand_hits 1", "forehand_max_peak_g 2.000", "backhand_max_peak_g 1.250",
            "forehand_max_intensity_g 2.750", "backhand_max_intensity_g 1.250",
        ] {
            #expect(lines.contains(expected), "missing \(expected)")
        }
        let json = try await runCommand(
            Self.executable, ["show", session.idText, "--json", "--state-dir", directory.path])
        #expect(json.standardOutput.contains(#""forehand_hits":2,"backhand_hits":1"#), "\(json)")
    }
}
