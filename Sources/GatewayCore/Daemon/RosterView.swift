// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import SessionStore

/// The roster as the control API shows it: store rows joined into `AthleteInfo` and `TeamInfo`.
enum RosterView {
    /// Every athlete with team names and session counts, by name.
    static func athletes(_ store: SessionStore) async throws(StoreError) -> [AthleteInfo] {
        let athletes = try await store.athletes()
        let teams = try await store.teams()
        let sessions = try await store.sessions()
        var counts: [Int64: Int] = [:]
        for session in sessions { if let id = session.athleteID { counts[id, default: 0] += 1 } }
        return athletes.map { athlete in
            AthleteInfo(
                id: athlete.id, name: athlete.name, massKg: athlete.massKg, birthYear: athlete.birthYear,
                racketHand: athlete.racketHand?.rawValue,
                teams: teams.filter { $0.athleteIDs.contains(athlete.id) }.map(\.name).sorted(),
                sessions: counts[athlete.id] ?? 0)
        }
    }

    /// One athlete by id.
    static func athlete(_ id: Int64, _ store: SessionStore) async throws(StoreError) -> AthleteInfo {
        guard let found = try await athletes(store).first(where: { $0.id == id }) else {
            throw StoreError(.notFound, "no athlete has id \(id)")
        }
        return found
    }

    /// Every team with its athletes' names, by name.
    static func teams(_ store: SessionStore) async throws(StoreError) -> [TeamInfo] {
        let names = Dictionary(uniqueKeysWithValues: try await store.athletes().map { ($0.id, $0.name) })
        return try await store.teams().map { team in
            TeamInfo(id: team.id, name: team.name, athletes: team.athleteIDs.compactMap { names[$0] }.sorted())
        }
    }

    /// The store change a request asks for: 0 clears mass and birth year, "" the racket hand.
    static func change(_ request: AthleteRequest, teamIDs: [Int64]?, rename: Bool) -> AthleteChange {
        AthleteChange(
            name: rename ? request.name?.trimmingCharacters(in: .whitespaces) : nil,
            massKg: request.massKg.map { $0 == 0 ? nil : $0 },
            birthYear: request.birthYear.map { $0 == 0 ? nil : $0 },
            racketHand: request.racketHand.map { RacketHand(rawValue: $0) }, teamIDs: teamIDs)
    }
}
