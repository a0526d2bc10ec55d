// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import SessionStore

/// What a roster change means for the live sensors and sessions: the gateway applies it.
public protocol RosterEffects: AnyObject, Sendable {
    /// Paired sensors bound to athlete `id` now show `name`, or are unbound when `name` is nil.
    func athleteChanged(id: Int64, name: String?)
    /// Every live session takes the targets the store now holds for it.
    func targetsChanged() async
}

/// The roster's routes (athletes, teams; bests, leaderboards and targets in
/// StoreRoster+Targets.swift), served from the store. It tells `effects` what a change means for
/// the live sensors and sessions after the store took it, holding no lock.
public final class StoreRoster: RosterControl {
    let store: SessionStore
    let health: StoreHealth
    let effects: any RosterEffects

    init(store: SessionStore, health: StoreHealth, effects: any RosterEffects) {
        self.store = store
        self.health = health
        self.effects = effects
    }

    /// `GET /v1/athletes`.
    public func athletes() async throws(ControlError) -> [AthleteInfo] {
        return try await health.mapStore { () async throws(StoreError) in try await RosterView.athletes(store) }
    }

    /// `POST /v1/athletes`.
    public func addAthlete(_ request: AthleteRequest) async throws(ControlError) -> AthleteInfo {
        try RosterRules.check(request)
        let name = (request.name ?? "").trimmingCharacters(in: .whitespaces)
        let teamIDs = try await teamIDs(request.teams)
        return try await health.mapStore { () async throws(StoreError) in
            let added = try await store.addAthlete(name: name)
            _ = try await store.updateAthlete(id: added.id, RosterView.change(request, teamIDs: teamIDs, rename: false))
            return try await RosterView.athlete(added.id, store)
        }
    }

    /// `PATCH /v1/athletes/{athlete}`.
    public func updateAthlete(_ athlete: String, _ request: AthleteRequest) async throws(ControlError) -> AthleteInfo {
        try RosterRules.check(request)
        let found = try await rosterAthlete(athlete)
        let teamIDs = try await teamIDs(request.teams)
        let changed = try await health.mapStore { () async throws(StoreError) in
            _ = try await store.updateAthlete(id: found.id, RosterView.change(request, teamIDs: teamIDs, rename: true))
            return try await RosterView.athlete(found.id, store)
        }
        effects.athleteChanged(id: found.id, name: changed.name)
        return changed
    }

    /// `DELETE /v1/athletes/{athlete}?sessions=keep|delete`.
    public func removeAthlete(_ athlete: String, sessions: String?) async throws(ControlError) -> AthleteRemoval {
        let found = try await rosterAthlete(athlete)
        let choice: AthleteSessionsOnRemoval =
            switch sessions {
            case "keep": .keep
            case "delete": .delete
            default: .refuse
            }
        do {
            let count = try await store.removeAthlete(id: found.id, sessions: choice)
            // The store unbound the athlete's sensors; the paired channels must not start a
            // session for an athlete that is gone.
            effects.athleteChanged(id: found.id, name: nil)
            return AthleteRemoval(
                athlete: found.name, sessionsKept: choice == .delete ? 0 : count,
                sessionsDeleted: choice == .delete ? count : 0)
        } catch {
            if error.code == .invalidArgument {
                throw ControlError(
                    .conflict, error.message,
                    fix: "add ?sessions=keep or ?sessions=delete (`sportsensorctl athletes remove \(found.name) "
                        + "--keep-sessions` or `--delete-sessions`)")
            }
            throw health.controlError(error)
        }
    }

    /// `GET /v1/athletes/{athlete}/bests`.
    public func personalBests(athlete: String) async throws(ControlError) -> [PersonalBest] {
        let found = try await rosterAthlete(athlete)
        let bests = try await health.mapStore { () async throws(StoreError) in
            try await store.personalBests(athleteID: found.id)
        }
        return bests.map {
            PersonalBest(metric: $0.0.rawValue, value: $0.1.value, sessionId: $0.1.sessionID, at: $0.1.at)
        }
    }

    /// `GET /v1/teams`.
    public func teams() async throws(ControlError) -> [TeamInfo] {
        return try await health.mapStore { () async throws(StoreError) in try await RosterView.teams(store) }
    }

    /// `POST /v1/teams`.
    public func addTeam(_ request: TeamRequest) async throws(ControlError) -> TeamInfo {
        let name = (request.name ?? "").trimmingCharacters(in: .whitespaces)
        try NameRules.check(name, field: "team name")
        let members = try await athleteIDs(request.athletes)
        return try await health.mapStore { () async throws(StoreError) in
            let team = try await store.addTeam(name: name)
            if let members { _ = try await store.updateTeam(id: team.id, name: nil, athleteIDs: members) }
            return try await RosterView.teams(store).first { $0.id == team.id }
                ?? TeamInfo(id: team.id, name: name, athletes: [])
        }
    }

    /// `PATCH /v1/teams/{team}`.
    public func updateTeam(_ team: String, _ request: TeamRequest) async throws(ControlError) -> TeamInfo {
        if let name = request.name { try NameRules.check(name, field: "team name") }
        let found = try await rosterTeam(team)
        let members = try await athleteIDs(request.athletes)
        return try await health.mapStore { () async throws(StoreError) in
            _ = try await store.updateTeam(id: found.id, name: request.name, athleteIDs: members)
            return try await RosterView.teams(store).first { $0.id == found.id }
                ?? TeamInfo(id: found.id, name: found.name, athletes: [])
        }
    }

    /// `DELETE /v1/teams/{team}`.
    public func removeTeam(_ team: String) async throws(ControlError) {
        let found = try await rosterTeam(team)
        try await health.mapStore { () async throws(StoreError) in try await store.removeTeam(id: found.id) }
    }

    /// The athlete named `name`, or a 404 with the fix.
    func rosterAthlete(_ name: String) async throws(ControlError) -> Athlete {
        let found = try await health.mapStore { () async throws(StoreError) in try await store.athlete(named: name) }
        guard let found else {
            throw ControlError(
                .notFound, "no athlete is called \(name)", fix: "list them with `sportsensorctl athletes list`")
        }
        return found
    }

    /// The team named `name`, or a 404 with the fix.
    func rosterTeam(_ name: String) async throws(ControlError) -> Team {
        let found = try await health.mapStore { () async throws(StoreError) in try await store.team(named: name) }
        guard let found else {
            throw ControlError(
                .notFound, "no team is called \(name)", fix: "list them with `sportsensorctl teams list`")
        }
        return found
    }

    private func teamIDs(_ names: [String]?) async throws(ControlError) -> [Int64]? {
        guard let names else { return nil }
        var ids: [Int64] = []
        for name in names { ids.append(try await rosterTeam(name).id) }
        return ids
    }

    private func athleteIDs(_ names: [String]?) async throws(ControlError) -> [Int64]? {
        guard let names else { return nil }
        var ids: [Int64] = []
        for name in names { ids.append(try await rosterAthlete(name).id) }
        return ids
    }
}
