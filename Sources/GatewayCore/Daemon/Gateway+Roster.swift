// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import SessionStore

/// The control API's roster routes (athletes and teams) over the store.
extension Gateway {
    /// `GET /v1/athletes`.
    public func athletes() async throws(ControlError) -> [AthleteInfo] {
        let store = dependencies.store
        return try await health.mapStore { () async throws(StoreError) in try await RosterView.athletes(store) }
    }

    /// `POST /v1/athletes`.
    public func addAthlete(_ request: AthleteRequest) async throws(ControlError) -> AthleteInfo {
        try RosterRules.check(request)
        let name = (request.name ?? "").trimmingCharacters(in: .whitespaces)
        let store = dependencies.store
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
        let store = dependencies.store
        let teamIDs = try await teamIDs(request.teams)
        let changed = try await health.mapStore { () async throws(StoreError) in
            _ = try await store.updateAthlete(id: found.id, RosterView.change(request, teamIDs: teamIDs, rename: true))
            return try await RosterView.athlete(found.id, store)
        }
        rebindSensors(of: found.id, to: changed.name)
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
        let store = dependencies.store
        do {
            let count = try await store.removeAthlete(id: found.id, sessions: choice)
            // The store unbound the athlete's sensors; the paired channels must not start a
            // session for an athlete that is gone.
            rebindSensors(of: found.id, to: nil)
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
        let store = dependencies.store
        let bests = try await health.mapStore { () async throws(StoreError) in
            try await store.personalBests(athleteID: found.id)
        }
        return bests.map {
            PersonalBest(metric: $0.0.rawValue, value: $0.1.value, sessionId: $0.1.sessionID, at: $0.1.at)
        }
    }

    /// `GET /v1/teams`.
    public func teams() async throws(ControlError) -> [TeamInfo] {
        let store = dependencies.store
        return try await health.mapStore { () async throws(StoreError) in try await RosterView.teams(store) }
    }

    /// `POST /v1/teams`.
    public func addTeam(_ request: TeamRequest) async throws(ControlError) -> TeamInfo {
        let name = (request.name ?? "").trimmingCharacters(in: .whitespaces)
        try NameRules.check(name, field: "team name")
        let members = try await athleteIDs(request.athletes)
        let store = dependencies.store
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
        let store = dependencies.store
        return try await health.mapStore { () async throws(StoreError) in
            _ = try await store.updateTeam(id: found.id, name: request.name, athleteIDs: members)
            return try await RosterView.teams(store).first { $0.id == found.id }
                ?? TeamInfo(id: found.id, name: found.name, athletes: [])
        }
    }

    /// `DELETE /v1/teams/{team}`.
    public func removeTeam(_ team: String) async throws(ControlError) {
        let found = try await rosterTeam(team)
        let store = dependencies.store
        try await health.mapStore { () async throws(StoreError) in try await store.removeTeam(id: found.id) }
    }

    /// Paired sensors bound to athlete `id` now show `name`, or are unbound when nil.
    private func rebindSensors(of id: Int64, to name: String?) {
        for channel in registry.all {
            channel.state.withLock { state in
                guard state.record.athleteID == id else { return }
                state.athleteName = name
                if name == nil { state.record.athleteID = nil }
            }
        }
    }

    /// The athlete named `name`, or a 404 with the fix.
    func rosterAthlete(_ name: String) async throws(ControlError) -> Athlete {
        let store = dependencies.store
        let found = try await health.mapStore { () async throws(StoreError) in try await store.athlete(named: name) }
        guard let found else {
            throw ControlError(
                .notFound, "no athlete is called \(name)", fix: "list them with `sportsensorctl athletes list`")
        }
        return found
    }

    /// The team named `name`, or a 404 with the fix.
    func rosterTeam(_ name: String) async throws(ControlError) -> Team {
        let store = dependencies.store
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
