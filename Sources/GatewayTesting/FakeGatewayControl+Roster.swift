// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation

/// The fake's roster, summary, leaderboard and target routes: recorded, answered from
/// ``RosterFixtures``.
extension FakeGatewayControl {
    public func sessionSummary(id: String) async throws(ControlError) -> SessionSummary {
        try record(.sessionSummary(id: id)) { _ in RosterFixtures.summary }
    }

    public func athletes() async throws(ControlError) -> [AthleteInfo] {
        try record(.athletes) { _ in [RosterFixtures.athlete] }
    }

    public func addAthlete(_ request: AthleteRequest) async throws(ControlError) -> AthleteInfo {
        try record(.addAthlete(request)) { _ in RosterFixtures.athlete }
    }

    public func updateAthlete(_ athlete: String, _ request: AthleteRequest) async throws(ControlError) -> AthleteInfo {
        try record(.updateAthlete(athlete, request)) { _ in RosterFixtures.athlete }
    }

    public func removeAthlete(_ athlete: String, sessions: String?) async throws(ControlError) -> AthleteRemoval {
        try record(.removeAthlete(athlete, sessions: sessions)) { _ in
            AthleteRemoval(
                athlete: athlete, sessionsKept: sessions == "keep" ? 2 : 0,
                sessionsDeleted: sessions == "delete" ? 2 : 0)
        }
    }

    public func personalBests(athlete: String) async throws(ControlError) -> [PersonalBest] {
        try record(.personalBests(athlete: athlete)) { _ in [RosterFixtures.best] }
    }

    public func teams() async throws(ControlError) -> [TeamInfo] { try record(.teams) { _ in [RosterFixtures.team] } }

    public func addTeam(_ request: TeamRequest) async throws(ControlError) -> TeamInfo {
        try record(.addTeam(request)) { _ in RosterFixtures.team }
    }

    public func updateTeam(_ team: String, _ request: TeamRequest) async throws(ControlError) -> TeamInfo {
        try record(.updateTeam(team, request)) { _ in RosterFixtures.team }
    }

    public func removeTeam(_ team: String) async throws(ControlError) { try record(.removeTeam(team)) { _ in () } }

    public func leaderboard(
        metric: String, period: String?, team: String?
    ) async throws(ControlError) -> [LeaderboardRow] {
        try record(.leaderboard(metric: metric, period: period, team: team)) { _ in RosterFixtures.leaderboard }
    }

    public func targets() async throws(ControlError) -> [TargetInfo] {
        try record(.targets) { _ in [RosterFixtures.target] }
    }

    public func setTarget(_ request: TargetRequest) async throws(ControlError) -> TargetInfo {
        try record(.setTarget(request)) { _ in RosterFixtures.target }
    }

    public func removeTarget(id: String) async throws(ControlError) { try record(.removeTarget(id: id)) { _ in () } }
}

/// Canned roster models with every field set.
public enum RosterFixtures {
    /// Anna, with mass and team.
    public static let athlete = AthleteInfo(
        id: 1, name: "anna", massKg: 61.5, birthYear: 2008, racketHand: "right", teams: ["juniors"], sessions: 3)
    /// The juniors.
    public static let team = TeamInfo(id: 1, name: "juniors", athletes: ["anna", "ben"])
    /// A best jump.
    public static let best = PersonalBest(
        metric: "best_height_m", value: 0.412, sessionId: FakeGatewayControl.Fixtures.session.id,
        at: FakeGatewayControl.Fixtures.startedAt)
    /// Two rows of a jump leaderboard.
    public static let leaderboard = [
        LeaderboardRow(
            rank: 1, athlete: "anna", value: 0.412, sessionId: FakeGatewayControl.Fixtures.session.id,
            at: FakeGatewayControl.Fixtures.startedAt),
        LeaderboardRow(
            rank: 2, athlete: "ben", value: 0.35, sessionId: "0F9619FF-8B86-D011-B42D-00C04FC964FF",
            at: FakeGatewayControl.Fixtures.startedAt),
    ]
    /// Anna's hit target.
    public static let target = TargetInfo(id: 7, athlete: "anna", sessionId: nil, metric: "jumps", value: 40)
    /// A jump session's summary.
    public static let summary: SessionSummary = {
        var summary = SessionSummary(profile: "jump")
        summary.durationS = 60
        summary.recordedS = 60
        summary.activeS = 35
        summary.samples = 6000
        summary.playerload = 12.5
        summary.playerloadPerMin = 12.5
        summary.enmoMg = 120.5
        summary.madMg = 140.2
        summary.sedentaryS = 25
        summary.moderateS = 20
        summary.vigorousS = 15
        summary.metMin = 5.9
        summary.kcal = 31.75
        summary.jumps = 12
        summary.jumpsPerMin = 12
        summary.bestHeightM = 0.412
        summary.meanHeightM = 0.33
        summary.bestRsi = 1.25
        return summary
    }()
}
