// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// Leaderboards and personal bests over stored events with quality flags: a flagged flight's
/// height reaches neither (Docs/METRICS.md "Flagged events and bests").
@Suite("Session store: flagged events and leaderboards")
struct LeaderboardQualityTests {
    /// A finished jump session of `athlete` whose stored events are `flights`, summarised from them.
    static func session(
        _ store: SessionStore, athlete: String, flights: [FlightEvent], seed: UInt64
    ) async throws -> SessionRecord {
        let imported = try await store.importRecording(
            SessionStore.Recording(
                samples: SyntheticMotion.rest(count: 200, seed: seed), sensor: nil,
                counts: SessionCounts(received: 200), captureStart: nil),
            settings: DetectionSettings(profile: .jump), athlete: athlete)
        try await store.replaceEvents(of: imported.session.id, with: flights.map { EventRecord(.jump($0)) })
        _ = try await store.computeSummary(of: imported.session)
        return imported.session
    }

    @Test("a flagged flight tops neither the leaderboard nor a personal best; its jumps still count")
    func flaggedFlightLeftOut() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        // anna's highest flight is an arm movement (low_floor_margin); her trusted best is 0.4 s.
        let annaClean = try await Self.session(
            store, athlete: "anna", flights: [FlightEvent(start: 1, end: 1.4)], seed: 1)
        let annaFlagged = try await Self.session(
            store, athlete: "anna",
            flights: [FlightEvent(start: 1, end: 1.8, quality: .lowFloorMargin), FlightEvent(start: 4, end: 4.3)],
            seed: 2)
        let ben = try await Self.session(
            store, athlete: "ben", flights: [FlightEvent(start: 1, end: 1.5, quality: .edgeFallback)], seed: 3)

        let stored = try #require(try await store.summary(of: annaFlagged.id))
        #expect(stored.jumps == 2 && stored.flaggedEvents == 1)
        #expect(stored.bestHeightM.map { abs($0 - FlightEvent.height(flightTime: 0.3)) < 1e-3 } == true)

        let board = try await store.leaderboard(.bestHeightM)
        #expect(board.map(\.athlete) == ["ben", "anna"], "edge_fallback keeps ben's flight; anna's flagged one is out")
        #expect(board.map(\.sessionID) == [ben.idText, annaClean.idText])
        #expect(abs(board[1].value - FlightEvent.height(flightTime: 0.4)) < 1e-3)

        let annaID = try #require(try await store.athlete(named: "anna")).id
        let bests = try await store.personalBests(athleteID: annaID)
        #expect(bests.first { $0.0 == .bestHeightM }?.1.sessionID == annaClean.idText)
        #expect(bests.first { $0.0 == .jumps }?.1.value == 2, "the flagged flight still counts as a jump")
    }
}
