// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import Hummingbird

extension ControlRoutes {
    /// Athletes and teams: list, add, change, remove; personal bests.
    static func addRosterRoutes<Context: RequestContext>(to router: Router<Context>, control: any RosterControl) {
        router.on(.athletes) { request, _ -> Response in
            return try ControlResponses.json(try await control.athletes())
        }
        router.on(.addAthlete) { request, _ -> Response in
            let body = try await athleteBody(request)
            guard let name = body.name, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ControlError(.invalidRequest, "the athlete has no name", fix: #"give one, e.g. {"name":"anna"}"#)
            }
            return try ControlResponses.json(try await control.addAthlete(body), status: .created)
        }
        router.on(.updateAthlete) { request, context -> Response in
            let body = try await athleteBody(request)
            guard
                body.name != nil || body.massKg != nil || body.birthYear != nil || body.racketHand != nil
                    || body.teams != nil
            else {
                throw ControlError(
                    .invalidRequest, "the body changes nothing",
                    fix: #"give name, mass_kg, birth_year, racket_hand and/or teams, e.g. {"mass_kg":61.5} (0 clears)"#)
            }
            return try ControlResponses.json(
                try await control.updateAthlete(try context.parameters.require("athlete"), body))
        }
        router.on(.removeAthlete) { request, context -> Response in
            let query = try QueryParameters(request, route: .removeAthlete)
            let sessions = query.string("sessions")
            if let sessions, sessions != "keep" && sessions != "delete" {
                throw ControlError(
                    .invalidRequest, "sessions=\(sessions) is not a choice", fix: "use sessions=keep or sessions=delete"
                )
            }
            return try ControlResponses.json(
                try await control.removeAthlete(try context.parameters.require("athlete"), sessions: sessions))
        }
        router.on(.athleteBests) { request, context -> Response in
            return try ControlResponses.json(
                try await control.personalBests(athlete: try context.parameters.require("athlete")))
        }
        router.on(.teams) { request, _ -> Response in
            return try ControlResponses.json(try await control.teams())
        }
        router.on(.addTeam) { request, _ -> Response in
            let body = try await teamBody(request)
            guard let name = body.name, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ControlError(.invalidRequest, "the team has no name", fix: #"give one, e.g. {"name":"juniors"}"#)
            }
            return try ControlResponses.json(try await control.addTeam(body), status: .created)
        }
        router.on(.updateTeam) { request, context -> Response in
            let body = try await teamBody(request)
            guard body.name != nil || body.athletes != nil else {
                throw ControlError(
                    .invalidRequest, "the body changes nothing",
                    fix: #"give name and/or athletes, e.g. {"athletes":["anna"]}"#)
            }
            return try ControlResponses.json(try await control.updateTeam(try context.parameters.require("team"), body))
        }
        router.on(.removeTeam) { request, context -> Response in
            try await control.removeTeam(try context.parameters.require("team"))
            return Response(status: .noContent)
        }
    }

    /// Leaderboards and targets.
    static func addTargetRoutes<Context: RequestContext>(to router: Router<Context>, control: any RosterControl) {
        router.on(.leaderboard) { request, context -> Response in
            let query = try QueryParameters(request, route: .leaderboard)
            let metric = try context.parameters.require("metric")
            _ = try SummaryMetric.requested(metric)
            let period = query.string("period")
            if let period, !["day", "week", "month", "all"].contains(period) {
                throw ControlError(
                    .invalidRequest, "period=\(period) is not a period", fix: "use day, week, month or all")
            }
            return try ControlResponses.json(
                try await control.leaderboard(metric: metric, period: period, team: query.string("team")))
        }
        router.on(.targets) { request, _ -> Response in
            return try ControlResponses.json(try await control.targets())
        }
        router.on(.setTarget) { request, _ -> Response in
            let body = try await RequestBodies.decode(
                TargetRequest.self, from: request, limit: maximumBodySize,
                example: #"{"athlete":"anna","metric":"hits","value":300}"#)
            _ = try SummaryMetric.requested(body.metric)
            guard (body.athlete == nil) != (body.sessionId == nil) else {
                throw ControlError(
                    .invalidRequest, "a target is for an athlete or for a session",
                    fix:
                        #"give exactly one of athlete and session_id, e.g. {"athlete":"anna","metric":"hits","value":300}"#
                )
            }
            guard body.value > 0, body.value.isFinite else {
                throw ControlError(
                    .invalidRequest, "a target of \(body.value) cannot be reached", fix: "give a number above 0")
            }
            return try ControlResponses.json(try await control.setTarget(body), status: .created)
        }
        router.on(.removeTarget) { request, context -> Response in
            try await control.removeTarget(id: try context.parameters.require("id"))
            return Response(status: .noContent)
        }
    }

    /// An athlete body with its fields checked: a printable name, a body mass in kg, a birth year.
    static func athleteBody(_ request: Request) async throws -> AthleteRequest {
        let body = try await RequestBodies.decode(
            AthleteRequest.self, from: request, limit: maximumBodySize,
            example: #"{"name":"anna","mass_kg":61.5,"birth_year":2008,"racket_hand":"right","teams":["juniors"]}"#)
        try RosterRules.check(body)
        return body
    }

    /// A team body with its names checked.
    static func teamBody(_ request: Request) async throws -> TeamRequest {
        let body = try await RequestBodies.decode(
            TeamRequest.self, from: request, limit: maximumBodySize, example: #"{"name":"juniors","athletes":["anna"]}"#
        )
        if let name = body.name { try NameRules.check(name, field: "team name") }
        return body
    }
}
