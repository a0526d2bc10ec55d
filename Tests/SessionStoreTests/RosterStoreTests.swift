// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// The roster, stored summaries, leaderboards and targets (schema v5).
@Suite("Session store: roster, summaries, leaderboards, targets")
struct RosterStoreTests {
    /// A finished session of `athlete` started `daysAgo` before now, with a summary of `jumps`
    /// jumps, a best height and a MET-minute figure.
    @discardableResult
    static func session(
        _ store: SessionStore, athlete: String, daysAgo: Double, jumps: Int, bestHeightM: Double, metMin: Double = 10
    ) async throws -> SessionRecord {
        let imported = try await store.importRecording(
            SessionStore.Recording(
                samples: SyntheticMotion.rest(count: 200, seed: UInt64(jumps)), sensor: nil,
                counts: SessionCounts(received: 200), captureStart: nil),
            settings: DetectionSettings(profile: .jump), athlete: athlete,
            startedAt: Date().addingTimeInterval(-daysAgo * 86_400))
        var summary = SessionSummary(profile: "jump")
        summary.jumps = jumps
        summary.bestHeightM = bestHeightM
        summary.metMin = metMin
        try await store.saveSummary(summary, of: imported.session.id)
        return imported.session
    }

    @Test("a v2 store's athletes keep their ids and sessions; mass and birth year start unknown")
    func migratesRoster() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in try db.execute(sql: V2Fixture.sql) }
        try queue.close()
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let ada = try #require(try await store.athlete(named: "Ada"))
        #expect(ada.id == 1 && ada.massKg == nil && ada.birthYear == nil)
        #expect(try await store.sessions(filter: SessionFilter(athleteID: 1)).count == 2)
        #expect(try await store.teams().isEmpty)
        // The old finished session has no stored summary; computing one stores it.
        let finished = try await store.session(idPrefix: V2Fixture.finished)
        #expect(try await store.summary(of: finished.id) == nil)
        let computed = try #require(try await store.computeSummary(of: finished))
        #expect(computed.hits == 1)
        #expect(computed.kcalNote != nil, "Ada has no body mass")
        #expect(try await store.summary(of: finished.id) == computed)
    }

    @Test("import stores a summary; kcal follows the athlete's current body mass")
    func importedSummary() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let imported = try await store.importRecording(
            SessionStore.Recording(
                samples: SyntheticMotion.rest(count: 700, seed: 9), sensor: nil, counts: SessionCounts(received: 700),
                captureStart: nil),
            settings: DetectionSettings(profile: .steps), athlete: "cleo")
        let stored = try #require(try await store.summary(of: imported.session.id))
        #expect(stored.steps == 0 && stored.samples == 700 && stored.activeS == 0)
        #expect(stored.kcal == nil)
        let cleo = try #require(try await store.athlete(named: "cleo"))
        _ = try await store.updateAthlete(id: cleo.id, AthleteChange(massKg: 58))
        #expect(try await store.summary(of: imported.session.id)?.kcal == 0, "standing still burns nothing")
    }

    @Test("leaderboards: each athlete's best, ties share a rank, windows and teams choose the sessions")
    func leaderboards() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let old = try await Self.session(store, athlete: "anna", daysAgo: 20, jumps: 50, bestHeightM: 0.50)
        let annaRecent = try await Self.session(store, athlete: "anna", daysAgo: 0.1, jumps: 30, bestHeightM: 0.40)
        let ben = try await Self.session(store, athlete: "ben", daysAgo: 2, jumps: 40, bestHeightM: 0.45)
        let cleo = try await Self.session(store, athlete: "cleo", daysAgo: 3, jumps: 40, bestHeightM: 0.30)

        let all = try await store.leaderboard(.bestHeightM)
        #expect(all.map(\.athlete) == ["anna", "ben", "cleo"])
        #expect(all.map(\.value) == [0.50, 0.45, 0.30])
        #expect(all[0].sessionID == old.idText)

        let week = try await store.leaderboard(.bestHeightM, from: LeaderboardPeriod.week.start(before: Date()))
        #expect(week.map(\.athlete) == ["ben", "anna", "cleo"])
        #expect(week[1].sessionID == annaRecent.idText)

        let jumps = try await store.leaderboard(.jumps)
        #expect(jumps.map(\.rank) == [1, 2, 2], "ben and cleo share second place")
        #expect(Set(jumps.dropFirst().map(\.sessionID)) == [ben.idText, cleo.idText])

        let juniors = try await store.addTeam(name: "juniors")
        let benID = try #require(try await store.athlete(named: "ben")).id
        _ = try await store.updateTeam(id: juniors.id, name: nil, athleteIDs: [benID])
        #expect(try await store.leaderboard(.bestHeightM, teamID: juniors.id).map(\.athlete) == ["ben"])

        let annaID = try #require(try await store.athlete(named: "anna")).id
        let bests = try await store.personalBests(athleteID: annaID)
        #expect(bests.first { $0.0 == .jumps }?.1.value == 50)
        #expect(bests.first { $0.0 == .bestHeightM }?.1.sessionID == old.idText)
        #expect(bests.first { $0.0 == .kcal } == nil, "no body mass, no kcal best")
        _ = try await store.updateAthlete(id: annaID, AthleteChange(massKg: 60))
        // 10 MET·min × 3.5 × 60 / 200 = 10.5 kcal.
        #expect(try await store.leaderboard(.kcal).first.map { abs($0.value - 10.5) < 1e-9 } == true)
    }

    @Test("removing an athlete with sessions: refused without a choice, then kept or deleted")
    func removal() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let kept = try await Self.session(store, athlete: "dora", daysAgo: 1, jumps: 5, bestHeightM: 0.2)
        try await Self.session(store, athlete: "emil", daysAgo: 1, jumps: 6, bestHeightM: 0.3)
        let dora = try #require(try await store.athlete(named: "dora"))
        let emil = try #require(try await store.athlete(named: "emil"))

        await #expect(throws: StoreError.self) { try await store.removeAthlete(id: dora.id, sessions: .refuse) }
        #expect(try await store.athlete(named: "dora") != nil, "a refused removal changes nothing")
        #expect(try await store.sessions(filter: SessionFilter(athleteID: dora.id)).count == 1)

        #expect(try await store.removeAthlete(id: dora.id, sessions: .keep) == 1)
        #expect(try await store.athlete(named: "dora") == nil)
        let orphan = try await store.session(id: kept.id)
        #expect(orphan.athleteID == nil)
        #expect(try await store.summary(of: kept.id)?.jumps == 5, "the kept session keeps its summary")

        #expect(try await store.removeAthlete(id: emil.id, sessions: .delete) == 1)
        #expect(try await store.sessions().map(\.id) == [kept.id])
    }

    @Test("targets: one per metric of an athlete or a session; a session's overrides its athlete's")
    func targets() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await Self.session(store, athlete: "finn", daysAgo: 1, jumps: 5, bestHeightM: 0.2)
        let finn = try #require(try await store.athlete(named: "finn"))
        _ = try await store.setTarget(.jumps, value: 40, athleteID: finn.id)
        _ = try await store.setTarget(.jumps, value: 45, athleteID: finn.id)
        _ = try await store.setTarget(.playerload, value: 400, athleteID: finn.id)
        #expect(try await store.targets().count == 2, "setting again replaces")
        _ = try await store.setTarget(.jumps, value: 10, sessionID: session.id)
        let effective = try await store.effectiveTargets(session: session.id, athleteID: finn.id)
        #expect(effective == [.jumps: 10, .playerload: 400])
        await #expect(throws: StoreError.self) { try await store.setTarget(.jumps, value: 0, athleteID: finn.id) }
        await #expect(throws: StoreError.self) {
            try await store.setTarget(.jumps, value: 3, athleteID: finn.id, sessionID: session.id)
        }
    }
}
