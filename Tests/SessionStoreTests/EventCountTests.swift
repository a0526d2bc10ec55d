// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import SDUSensor
import Testing

@testable import SessionStore

/// `eventCounts(of:)`: what the database counts per type is what counting `events(of:)` gives,
/// a live session's unsealed tail included.
@Suite("Session store: event counts")
struct EventCountTests {
    static func counted(_ events: [EventRecord]) -> [String: Int] {
        events.reduce(into: [:]) { $0[$1.type, default: 0] += 1 }
    }

    @Test("a live session's events, in sealed chunks and in its tail, counted per type")
    func liveSession() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 1000), clock: ContinuousClock())
        // The first flush seals two chunks, which carry their events into the database; the
        // second seals none, so its events stay in the tail.
        let samples = SyntheticMotion.training(count: 2_800, seed: 5)
        let events = (0..<1_700).map { EventRecord(type: $0 % 3 == 0 ? "throw" : "jump", t: Double($0) / 50) }
        for event in events[..<600] { recorder.record(event: event) }
        recorder.record(samples: Array(samples[..<2_500]))
        try await recorder.flush()
        for event in events[600...] { recorder.record(event: event) }
        recorder.record(samples: Array(samples[2_500...]))
        try await recorder.flush()
        #expect(try await store.events(of: session.id) == events)
        let idText = session.idText
        let stored = try await store.read("counting stored rows") { db in
            try EventRow.filter(EventRow.Columns.sessionID == idText).fetchCount(db)
        }
        // Both places hold some: the count is not the database's alone.
        #expect(stored > 0 && stored < events.count)
        #expect(try await store.eventCounts(of: session.id) == ["jump": 1_133, "throw": 567])
        #expect(try await store.eventCounts(of: session.id) == Self.counted(events))
    }

    @Test("an imported session counted per type; one without events counts none")
    func imported() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let events = (0..<50).map { EventRecord(type: $0 % 5 == 0 ? "step" : "hit", t: Double($0)) }
        let some = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .tableTennis)), samples: [], events: events)
        #expect(try await store.eventCounts(of: some.id) == ["hit": 40, "step": 10])
        let none = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .steps)), samples: [], events: [])
        #expect(try await store.eventCounts(of: none.id).isEmpty)
    }
}
