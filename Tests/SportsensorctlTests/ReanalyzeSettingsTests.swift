// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import SessionStore
import Testing

@testable import sportsensorctl

/// `reanalyze` runs the settings a session was stored with, changed only by what the user asks.
@Suite("sportsensorctl reanalyze: detection settings")
struct ReanalyzeSettingsTests {
    /// A jump recording imported with the defaults, and a `min_flight` just above its shortest
    /// flight: a value that drops at least one of its jumps.
    func jumpSession(_ directory: TemporaryStateDirectory) async throws -> (SessionStore, SessionRecord, Double) {
        let path = try directory.write("jump.csv", Array(StoreFixtures.simulatedCSV(.jumps).utf8))
        let store = try directory.open()
        let imported = try await store.importRecording(
            try SessionImport.read(path).recording, settings: DetectionSettings(profile: .jump))
        let flights = imported.events.compactMap { event -> Double? in
            if case .jump(let flight) = event { flight.flightTime } else { nil }
        }
        let shortest = try #require(flights.min(), "the fixture should hold jumps")
        return (store, imported.session, (shortest * 1000).rounded(.up) / 1000 + 0.001)
    }

    @Test("a session the daemon stored with [detection.jump] min_flight re-analyses with it, and --save keeps all")
    func storedByTheDaemon() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let (store, session, minFlight) = try await jumpSession(directory)
        // What the daemon stored before settings were kept whole: the profile's keys, flat.
        let stored = """
            {"profile":"jump","rules":"standard","enter_g":0.75,"land_g":1.3,"floor_max_g":0.65,"propulsion_g":1.2,\
            "propulsion_window":1.0,"min_flight":\(minFlight),"max_flight":1.3,"edge_cap_g":1.0}
            """
        let database = try DatabaseQueue(path: store.path)
        defer { try? database.close() }
        try await database.write { db in
            try db.execute(
                sql: "UPDATE sessions SET profile_parameters = ? WHERE id = ?", arguments: [stored, session.idText])
        }
        let record = try await store.session(id: session.id)
        var recorded = DetectionSettings(profile: .jump)
        recorded.parameters.jump.minFlight = minFlight
        let samples = try await store.detectionSamples(of: session.id)
        let withDefaults = detectEvents(in: samples, settings: DetectionSettings(profile: .jump))
        let expected = detectEvents(in: samples, settings: recorded)
        #expect(expected.count < withDefaults.count, "the stored min_flight must matter for this recording")

        let result = try await store.reanalyze(record, profile: nil, rules: nil, save: false)
        #expect(result.settings == recorded)
        #expect(result.events == expected)

        _ = try await store.reanalyze(record, profile: nil, rules: nil, save: true)
        let saved = try await store.session(id: session.id)
        #expect(saved.settings == recorded, "--save stores every parameter used, not the rules alone")
        let text = try await database.read { db in
            try String.fetchOne(
                db, sql: "SELECT profile_parameters FROM sessions WHERE id = ?", arguments: [session.idText])
        }
        #expect(text?.contains(#""min_flight":\#(minFlight)"#) == true)
        #expect(text?.contains(#""confirm_steps":6"#) == true, "the other profiles' parameters too")
    }

    @Test("--set overrides one parameter of the stored settings; --save stores exactly what ran")
    func setOverrides() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let (store, session, minFlight) = try await jumpSession(directory)
        var stored = DetectionSettings(profile: .jump)
        stored.parameters.jump.maxFlight = 1.2
        try await store.replaceEvents(of: session.id, with: [], settings: stored)
        let record = try await store.session(id: session.id)

        let result = try await store.reanalyze(
            record, profile: nil, rules: nil, assignments: ["min_flight=\(minFlight)"], save: true)
        var expected = stored
        expected.parameters.jump.minFlight = minFlight
        #expect(result.settings == expected, "the stored max_flight stays, min_flight is overridden")
        #expect(try await store.session(id: session.id).settings == expected)
        #expect(result.events == detectEvents(in: try await store.detectionSamples(of: session.id), settings: expected))
    }

    @Test("an unknown --set key is a usage error (64) naming the profile's keys, and nothing is saved")
    func unknownKey() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let (store, session, _) = try await jumpSession(directory)
        let before = try await store.events(of: session.id)
        do {
            _ = try await store.reanalyze(
                session, profile: nil, rules: nil, assignments: ["min_peak_g=1.5"], save: true)
            Issue.record("an unknown key was accepted")
        } catch {
            #expect(error.code == .invalidArgument && CommandFailure.exitCode(for: error) == 64)
            #expect(error.message.contains("min_peak_g") && error.message.contains("min_flight"))
        }
        #expect(try await store.events(of: session.id) == before)
        #expect(try await store.session(id: session.id).settings == DetectionSettings(profile: .jump))
    }

    @Test("import stores its settings: --set values are kept with the session and reproduced")
    func importStoresSettings() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let path = try directory.write("throw.csv", Array(StoreFixtures.simulatedCSV(.throwing).utf8))
        let store = try directory.open()
        let settings = try DetectionSettings(profile: .throw, rules: .standard).overriding(["max_flight=3.5"])
        let imported = try await store.importRecording(try SessionImport.read(path).recording, settings: settings)
        let record = try await store.session(id: imported.session.id)
        #expect(record.settings == settings)
        let again = try await store.reanalyze(record, profile: nil, rules: nil, save: false)
        #expect(again.events == imported.events)
    }
}
