// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import SessionStore

/// The roster's leaderboards and targets, over the store.
extension StoreRoster {
    /// `GET /v1/leaderboards/{metric}`.
    public func leaderboard(
        metric: String, period: String?, team: String?
    ) async throws(ControlError) -> [LeaderboardRow] {
        let found = try SummaryMetric.requested(metric)
        let window = LeaderboardPeriod(rawValue: period ?? "all") ?? .all
        var teamID: Int64?
        if let team { teamID = try await rosterTeam(team).id }
        let entries = try await health.mapStore { () async throws(StoreError) in
            try await store.leaderboard(found, from: window.start(before: Date()), teamID: teamID)
        }
        return entries.map {
            LeaderboardRow(rank: $0.rank, athlete: $0.athlete, value: $0.value, sessionId: $0.sessionID, at: $0.at)
        }
    }

    /// `GET /v1/targets`.
    public func targets() async throws(ControlError) -> [TargetInfo] {
        return try await health.mapStore { () async throws(StoreError) in
            let names = Dictionary(uniqueKeysWithValues: try await store.athletes().map { ($0.id, $0.name) })
            return try await store.targets().map {
                TargetInfo(
                    id: $0.id, athlete: $0.athleteID.flatMap { names[$0] }, sessionId: $0.sessionID,
                    metric: $0.metric.rawValue, value: $0.value)
            }
        }
    }

    /// `POST /v1/targets`.
    public func setTarget(_ request: TargetRequest) async throws(ControlError) -> TargetInfo {
        let metric = try SummaryMetric.requested(request.metric)
        var athlete: Athlete?
        if let name = request.athlete { athlete = try await rosterAthlete(name) }
        var session: SessionRecord?
        if let id = request.sessionId {
            session = try await health.session(idPrefix: id, in: store)
        }
        let (athleteID, sessionID) = (athlete?.id, session?.id)
        let target = try await health.mapStore { () async throws(StoreError) in
            try await store.setTarget(metric, value: request.value, athleteID: athleteID, sessionID: sessionID)
        }
        await effects.targetsChanged()
        return TargetInfo(
            id: target.id, athlete: athlete?.name, sessionId: target.sessionID, metric: metric.rawValue,
            value: target.value)
    }

    /// `DELETE /v1/targets/{id}`.
    public func removeTarget(id: String) async throws(ControlError) {
        guard let number = Int64(id) else {
            throw ControlError(
                .invalidRequest, "\(id) is not a target id", fix: "list them with `sportsensorctl targets list`")
        }
        do {
            try await store.removeTarget(id: number)
        } catch {
            if error.code == .notFound {
                throw ControlError(.notFound, error.message, fix: "list them with `sportsensorctl targets list`")
            }
            throw health.controlError(error)
        }
        await effects.targetsChanged()
    }
}
