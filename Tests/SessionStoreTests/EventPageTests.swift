// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import Testing

@testable import SessionStore

/// `eventPage(of:after:)`: what a download reads a page at a time is every event once, in time
/// order, whether stored or still in a live session's tail.
@Suite("Session store: event pages")
struct EventPageTests {
    /// Every page of a session, from the first.
    static func pages(_ store: SessionStore, _ id: UUID) async throws -> [EventPage] {
        var pages = [try await store.eventPage(of: id, after: nil)]
        while let next = pages.last?.next { pages.append(try await store.eventPage(of: id, after: next)) }
        return pages
    }

    @Test("2 500 events stored out of time order, with ties, come back in time order in pages of 1 024, once each")
    func storedOutOfOrder() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        // Times out of recording order, every fifth equal to the one before it.
        let records = (0..<2_500).map { (index: Int) -> EventRecord in
            let tenths: Int = (index * 7_919) % 2_500 / 5 * 5
            return EventRecord(type: "hit", t: Double(tenths) / 10, peakG: Double(index))
        }
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .tableTennis)), samples: [], events: records)
        let pages = try await Self.pages(store, session.id)
        #expect(pages.map(\.events.count) == [1_024, 1_024, 452])
        // Ties keep their recording order (the sort is stable).
        let expected: [EventRecord] = records.enumerated()
            .sorted { (a, b) in (a.element.t, a.offset) < (b.element.t, b.offset) }.map { $0.element }
        #expect(pages.flatMap(\.events) == expected)
    }

    @Test("a live session's events, stored and in its tail, come back in pages once each, as events(of:) gives them")
    func liveSession() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .tableTennis)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 1000), clock: ContinuousClock())
        let samples = SyntheticMotion.training(count: 3_500, seed: 3)
        // Sealed chunks carry their events into the database; the last 500 samples and the
        // events past the third chunk stay in the tail.
        recorder.record(samples: samples)
        for index in 0..<1_700 { recorder.record(event: EventRecord(type: "hit", t: Double(index) / 50)) }
        try await recorder.flush()
        let pages = try await Self.pages(store, session.id)
        #expect(pages.count == 2)
        #expect(pages.flatMap(\.events) == (try await store.events(of: session.id)))
        #expect(pages.flatMap(\.events).count == 1_700)
    }

    @Test("a session without events is one empty page")
    func empty() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .jump)), samples: [], events: [])
        let pages = try await Self.pages(store, session.id)
        #expect(pages.count == 1 && pages[0].events.isEmpty)
    }
}
