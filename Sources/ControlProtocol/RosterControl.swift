// SPDX-License-Identifier: GPL-2.0-or-later

/// The roster's part of the control API: athletes, teams, personal bests, leaderboards and
/// targets. Served from the store (the daemon's `StoreRoster`), not by the live gateway; what a
/// change means for live sensors and sessions the daemon applies itself.
public protocol RosterControl: Sendable {
    /// `GET /v1/athletes`.
    func athletes() async throws(ControlError) -> [AthleteInfo]
    /// `POST /v1/athletes`.
    func addAthlete(_ request: AthleteRequest) async throws(ControlError) -> AthleteInfo
    /// `PATCH /v1/athletes/{athlete}` (name).
    func updateAthlete(_ athlete: String, _ request: AthleteRequest) async throws(ControlError) -> AthleteInfo
    /// `DELETE /v1/athletes/{athlete}?sessions=keep|delete`: an athlete with sessions needs one.
    func removeAthlete(_ athlete: String, sessions: String?) async throws(ControlError) -> AthleteRemoval
    /// `GET /v1/athletes/{athlete}/bests`.
    func personalBests(athlete: String) async throws(ControlError) -> [PersonalBest]
    /// `GET /v1/teams`.
    func teams() async throws(ControlError) -> [TeamInfo]
    /// `POST /v1/teams`.
    func addTeam(_ request: TeamRequest) async throws(ControlError) -> TeamInfo
    /// `PATCH /v1/teams/{team}` (name).
    func updateTeam(_ team: String, _ request: TeamRequest) async throws(ControlError) -> TeamInfo
    /// `DELETE /v1/teams/{team}`: the athletes stay.
    func removeTeam(_ team: String) async throws(ControlError)
    /// `GET /v1/leaderboards/{metric}?period=&team=`.
    func leaderboard(metric: String, period: String?, team: String?) async throws(ControlError) -> [LeaderboardRow]
    /// `GET /v1/targets`.
    func targets() async throws(ControlError) -> [TargetInfo]
    /// `POST /v1/targets`.
    func setTarget(_ request: TargetRequest) async throws(ControlError) -> TargetInfo
    /// `DELETE /v1/targets/{id}`.
    func removeTarget(id: String) async throws(ControlError)
}
