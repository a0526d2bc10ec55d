// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import Testing

@testable import SessionStore

/// `profile_parameters` texts as earlier versions stored them, frozen: every one must keep loading.
enum OldSettingsFixture {
    /// The daemon before settings were kept whole: the profile's parameters flat, beside profile
    /// and rules (here a session recorded with `[detection.jump] min_flight = 0.2`).
    static let daemonJump = """
        {"profile":"jump","rules":"standard","enter_g":0.75,"land_g":1.3,"floor_max_g":0.65,"propulsion_g":1.2,\
        "propulsion_window":1.0,"min_flight":0.2,"max_flight":1.3,"edge_cap_g":1.0}
        """
    /// `import` and `reanalyze --save` before: the rules alone.
    static let importBaseline = #"{"rules":"baseline"}"#
    /// The column's default.
    static let empty = "{}"
}

@Suite("Stored detection settings")
struct StoredSettingsTests {
    @Test("a session's settings come back exactly as stored, every parameter of every profile")
    func roundTrip() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        var settings = DetectionSettings(profile: .throw, rules: .baseline)
        settings.parameters.throw.minFlight = 0.3
        settings.parameters.hit.minPeakG = 1.55
        settings.parameters.step.confirmSteps = 3
        let live = try await store.createSession(NewSession(settings: settings))
        let imported = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .steps)), samples: [], events: [])
        #expect(try await store.session(id: live.id).settings == settings)
        #expect(try await store.session(id: live.id).profile == "throw")
        #expect(try await store.session(id: imported.id).settings == DetectionSettings(profile: .steps))

        var other = settings
        other.profile = .jump
        other.parameters.jump.minFlight = 0.2
        try await store.replaceEvents(of: imported.id, with: [], settings: other)
        let replaced = try await store.session(id: imported.id)
        #expect(replaced.profile == "jump")
        #expect(replaced.settings == other)
    }

    @Test("settings stored by earlier versions load, defaults filling what they lack")
    func earlierVersions() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let rows: [(String, String, String)] = [
            ("00000000-0000-4000-8000-000000000001", "jump", OldSettingsFixture.daemonJump),
            ("00000000-0000-4000-8000-000000000002", "steps", OldSettingsFixture.importBaseline),
            ("00000000-0000-4000-8000-000000000003", "throw", OldSettingsFixture.empty),
            ("00000000-0000-4000-8000-000000000004", "golf", OldSettingsFixture.daemonJump),
            ("00000000-0000-4000-8000-000000000005", "steps", "not json"),
        ]
        try await store.database.write { db in
            for (id, profile, text) in rows {
                try db.execute(
                    sql: "INSERT INTO sessions (id, profile, profile_parameters, started_at) VALUES (?, ?, ?, 0)",
                    arguments: [id, profile, text])
            }
        }
        var jump = DetectionSettings(profile: .jump)
        jump.parameters.jump.minFlight = 0.2
        #expect(try await store.session(idPrefix: rows[0].0).settings == jump)
        #expect(
            try await store.session(idPrefix: rows[1].0).settings
                == DetectionSettings(profile: .steps, rules: .baseline))
        #expect(try await store.session(idPrefix: rows[2].0).settings == DetectionSettings(profile: .throw))
        let unknown = try await store.session(idPrefix: rows[3].0)
        #expect(unknown.profile == "golf" && unknown.settings == nil, "a profile this build lacks has no settings")
        #expect(try await store.session(idPrefix: rows[4].0).settings == DetectionSettings(profile: .steps))
    }
}
