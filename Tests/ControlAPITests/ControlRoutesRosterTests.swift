// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ControlAPI

/// The roster, summary, leaderboard and target routes, each with a request reaching its method.
let rosterRoutes: [RouteCase] = [
    RouteCase(method: .get, uri: "/v1/sessions/6F9619FF/summary", call: .sessionSummary(id: "6F9619FF")),
    RouteCase(method: .get, uri: "/v1/athletes", call: .athletes),
    RouteCase(
        method: .post, uri: "/v1/athletes", body: #"{"name":"anna","mass_kg":61.5,"birth_year":2008}"#,
        call: .addAthlete(AthleteRequest(name: "anna", massKg: 61.5, birthYear: 2008))),
    RouteCase(
        method: .patch, uri: "/v1/athletes/anna", body: #"{"mass_kg":0,"teams":["juniors"]}"#,
        call: .updateAthlete("anna", AthleteRequest(massKg: 0, teams: ["juniors"]))),
    RouteCase(
        method: .post, uri: "/v1/athletes", body: #"{"name":"ben","racket_hand":"left"}"#,
        call: .addAthlete(AthleteRequest(name: "ben", racketHand: "left"))),
    RouteCase(
        method: .patch, uri: "/v1/athletes/ben", body: #"{"racket_hand":""}"#,
        call: .updateAthlete("ben", AthleteRequest(racketHand: ""))),
    RouteCase(
        method: .delete, uri: "/v1/athletes/anna?sessions=keep", call: .removeAthlete("anna", sessions: "keep")),
    RouteCase(method: .delete, uri: "/v1/athletes/ben", call: .removeAthlete("ben", sessions: nil)),
    RouteCase(method: .get, uri: "/v1/athletes/anna/bests", call: .personalBests(athlete: "anna")),
    RouteCase(method: .get, uri: "/v1/teams", call: .teams),
    RouteCase(
        method: .post, uri: "/v1/teams", body: #"{"name":"juniors","athletes":["anna"]}"#,
        call: .addTeam(TeamRequest(name: "juniors", athletes: ["anna"]))),
    RouteCase(
        method: .patch, uri: "/v1/teams/juniors", body: #"{"name":"seniors"}"#,
        call: .updateTeam("juniors", TeamRequest(name: "seniors"))),
    RouteCase(method: .delete, uri: "/v1/teams/juniors", call: .removeTeam("juniors")),
    RouteCase(
        method: .get, uri: "/v1/leaderboards/best_height_m?period=week&team=juniors",
        call: .leaderboard(metric: "best_height_m", period: "week", team: "juniors")),
    RouteCase(method: .get, uri: "/v1/targets", call: .targets),
    RouteCase(
        method: .post, uri: "/v1/targets", body: #"{"athlete":"anna","metric":"jumps","value":40}"#,
        call: .setTarget(TargetRequest(athlete: "anna", metric: "jumps", value: 40))),
    RouteCase(method: .delete, uri: "/v1/targets/7", call: .removeTarget(id: "7")),
]

@Suite("Control API routes: roster, summaries, leaderboards, targets")
struct ControlRoutesRosterTests {
    @Test("each route calls its gateway method once, with the request's arguments", arguments: rosterRoutes)
    func routeCallsGateway(route: RouteCase) async throws {
        let control = FakeGatewayControl()
        let status = try await withRouter(control) { client in
            try await client.send(route.method, route.uri, body: route.body).status
        }
        #expect((200..<300).contains(status.code))
        #expect(control.calls == [route.call])
    }

    @Test("each route answers every ControlError code with its status and body", arguments: rosterRoutes)
    func routeMapsErrors(route: RouteCase) async throws {
        for code in allCodes {
            let control = FakeGatewayControl()
            let error = ControlError(code, "it went wrong (\(code))", fix: "do this")
            control.failure = error
            let response = try await withRouter(control) { client in
                try await client.send(route.method, route.uri, body: route.body)
            }
            #expect(response.status.code == code.httpStatus, "\(route.uri) \(code)")
            #expect(try decode(ControlErrorBody.self, response) == error.body)
        }
    }

    @Test(
        "bad input is a 400 naming the fix, and the gateway is never called",
        arguments: [
            (HTTPRequest.Method.post, "/v1/athletes", #"{"name":"anna","mass_kg":-3}"#, "body mass"),
            (.post, "/v1/athletes", #"{"name":"anna","mass_kg":612}"#, "body mass"),
            (.post, "/v1/athletes", #"{"name":"anna","birth_year":1850}"#, "birth year"),
            (.post, "/v1/athletes", #"{"name":"anna","racket_hand":"both"}"#, "not a racket hand"),
            (.patch, "/v1/athletes/anna", #"{"racket_hand":"Left"}"#, "not a racket hand"),
            (.post, "/v1/athletes", #"{"name":"an\u001bna"}"#, "control character"),
            (.post, "/v1/athletes", #"{"mass_kg":60}"#, "no name"),
            (.post, "/v1/athletes", "{\"name\":\"" + String(repeating: "a", count: 65) + "\"}", "65 characters"),
            (.patch, "/v1/athletes/anna", "{}", "changes nothing"),
            (.delete, "/v1/athletes/anna?sessions=all", nil, "sessions=all"),
            (.post, "/v1/teams", #"{"name":"\u0007"}"#, "control character"),
            (.get, "/v1/leaderboards/fastest", nil, "unknown metric"),
            (.get, "/v1/leaderboards/jumps?period=year", nil, "period=year"),
            (.post, "/v1/targets", #"{"metric":"jumps","value":40}"#, "athlete or for a session"),
            (.post, "/v1/targets", #"{"athlete":"anna","metric":"jumps","value":0}"#, "cannot be reached"),
            (.post, "/v1/targets", #"{"athlete":"anna","metric":"height","value":1}"#, "unknown metric"),
        ] as [(HTTPRequest.Method, String, String?, String)])
    func validation(method: HTTPRequest.Method, uri: String, body: String?, mentions: String) async throws {
        let control = FakeGatewayControl()
        let response = try await withRouter(control) { client in try await client.send(method, uri, body: body) }
        #expect(response.status == .badRequest)
        let error = try decode(ControlErrorBody.self, response)
        #expect(error.error.contains(mentions), "\(error.error)")
        #expect(error.fix?.isEmpty == false)
        #expect(control.calls.isEmpty)
    }

    @Test("the summary, leaderboard and bests decode to the gateway's models with the documented keys")
    func bodies() async throws {
        let control = FakeGatewayControl()
        try await withRouter(control) { client in
            let summary = try await client.send(.get, "/v1/sessions/6F96/summary")
            let text = String(buffer: summary.body)
            #expect(text.contains(#""best_rsi":1.25"#) && text.contains(#""hits":null"#))
            #expect(try decode(SessionSummary.self, summary) == RosterFixtures.summary)
            let board = try await client.send(.get, "/v1/leaderboards/best_height_m")
            let boardText = String(buffer: board.body)
            for key in ["rank", "athlete", "value", "session_id", "at"] { #expect(boardText.contains("\"\(key)\":")) }
            #expect(try decode([LeaderboardRow].self, board) == RosterFixtures.leaderboard)
            let added = try await client.send(.post, "/v1/athletes", body: #"{"name":"anna"}"#)
            #expect(added.status == .created)
            #expect(try decode(AthleteInfo.self, added) == RosterFixtures.athlete)
            #expect(try await client.send(.delete, "/v1/teams/juniors").status == .noContent)
        }
    }
}
