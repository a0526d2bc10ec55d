// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// One route of the control API (Docs/API.md): its method and path template. The server registers
/// exactly these and the client builds its requests from them, so neither spells a path itself.
public struct ControlRoute: Hashable, Sendable, CustomStringConvertible {
    /// The HTTP methods the API uses.
    public enum Method: String, Hashable, Sendable {
        case get = "GET"
        case post = "POST"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    /// The method.
    public let method: Method
    /// The path, with `{name}` for each parameter (Hummingbird's syntax).
    public let template: String
    /// The query parameters it takes; the server answers any other with a 400 naming these.
    public let query: [String]

    private init(_ method: Method, _ template: String, query: [String] = []) {
        self.method = method
        self.template = template
        self.query = query
    }

    /// `GET /v1/status`.
    public static let status = ControlRoute(.get, "/v1/status")
    /// `GET /v1/adapters`.
    public static let adapters = ControlRoute(.get, "/v1/adapters")
    /// `POST /v1/scan?seconds=N`.
    public static let scan = ControlRoute(.post, "/v1/scan", query: ["seconds"])
    /// `GET /v1/sensors`.
    public static let sensors = ControlRoute(.get, "/v1/sensors")
    /// `POST /v1/sensors`: pair.
    public static let pair = ControlRoute(.post, "/v1/sensors")
    /// `PATCH /v1/sensors/{sensor}`: rename or bind an athlete.
    public static let updateSensor = ControlRoute(.patch, "/v1/sensors/{sensor}")
    /// `DELETE /v1/sensors/{sensor}`: unpair.
    public static let unpair = ControlRoute(.delete, "/v1/sensors/{sensor}")
    /// `GET /v1/sessions`.
    public static let sessions = ControlRoute(
        .get, "/v1/sessions", query: ["athlete", "sensor", "profile", "live", "limit"])
    /// `POST /v1/sessions`: start.
    public static let startSession = ControlRoute(.post, "/v1/sessions")
    /// `GET /v1/sessions/{id}`.
    public static let session = ControlRoute(.get, "/v1/sessions/{id}")
    /// `POST /v1/sessions/{id}/stop`.
    public static let stopSession = ControlRoute(.post, "/v1/sessions/{id}/stop")
    /// `GET /v1/sessions/{id}/events`.
    public static let sessionEvents = ControlRoute(.get, "/v1/sessions/{id}/events")
    /// `GET /v1/sessions/{id}/samples.csv`.
    public static let sessionSamples = ControlRoute(.get, "/v1/sessions/{id}/samples.csv")
    /// `POST /v1/sessions/{id}/reanalyze`: detection again, the result saved.
    public static let reanalyze = ControlRoute(.post, "/v1/sessions/{id}/reanalyze")
    /// `POST /v1/sessions/import`: store a recording the client decoded.
    public static let importSession = ControlRoute(.post, "/v1/sessions/import")
    /// `POST /v1/prune`: delete old sessions or their samples.
    public static let prune = ControlRoute(.post, "/v1/prune")
    /// `GET /v1/events`: the Server-Sent Events stream.
    public static let events = ControlRoute(.get, "/v1/events")
    /// `GET /metrics`: Prometheus text format.
    public static let metrics = ControlRoute(.get, "/metrics")
    /// `GET /v1/replication`: replication into the central PostgreSQL.
    public static let replication = ControlRoute(.get, "/v1/replication")

    /// `GET /v1/sessions/{id}/summary`: the session summary (Docs/METRICS.md).
    public static let sessionSummary = ControlRoute(.get, "/v1/sessions/{id}/summary")
    /// `GET /v1/athletes`.
    public static let athletes = ControlRoute(.get, "/v1/athletes")
    /// `POST /v1/athletes`: add one.
    public static let addAthlete = ControlRoute(.post, "/v1/athletes")
    /// `PATCH /v1/athletes/{athlete}`: rename, body mass, birth year, teams.
    public static let updateAthlete = ControlRoute(.patch, "/v1/athletes/{athlete}")
    /// `DELETE /v1/athletes/{athlete}?sessions=keep|delete`.
    public static let removeAthlete = ControlRoute(.delete, "/v1/athletes/{athlete}", query: ["sessions"])
    /// `GET /v1/athletes/{athlete}/bests`: personal bests.
    public static let athleteBests = ControlRoute(.get, "/v1/athletes/{athlete}/bests")
    /// `GET /v1/teams`.
    public static let teams = ControlRoute(.get, "/v1/teams")
    /// `POST /v1/teams`: add one.
    public static let addTeam = ControlRoute(.post, "/v1/teams")
    /// `PATCH /v1/teams/{team}`: rename, members.
    public static let updateTeam = ControlRoute(.patch, "/v1/teams/{team}")
    /// `DELETE /v1/teams/{team}`.
    public static let removeTeam = ControlRoute(.delete, "/v1/teams/{team}")
    /// `GET /v1/leaderboards/{metric}?period=day|week|month|all&team=T`.
    public static let leaderboard = ControlRoute(.get, "/v1/leaderboards/{metric}", query: ["period", "team"])
    /// `GET /v1/targets`.
    public static let targets = ControlRoute(.get, "/v1/targets")
    /// `POST /v1/targets`: set one.
    public static let setTarget = ControlRoute(.post, "/v1/targets")
    /// `DELETE /v1/targets/{id}`.
    public static let removeTarget = ControlRoute(.delete, "/v1/targets/{id}")

    /// Every route, for tests and the documentation check.
    public static let all: [ControlRoute] = [
        status, adapters, scan, sensors, pair, updateSensor, unpair, sessions, startSession, session, stopSession,
        sessionEvents, sessionSamples, reanalyze, importSession, prune, events, metrics,
        sessionSummary, athletes, addAthlete, updateAthlete, removeAthlete, athleteBests, teams, addTeam, updateTeam,
        removeTeam, leaderboard, targets, setTarget, removeTarget, replication,
    ]

    /// The names of the template's parameters, in order.
    public var parameterNames: [String] {
        template.split(separator: "/").compactMap { component in
            component.first == "{" && component.last == "}" ? String(component.dropFirst().dropLast()) : nil
        }
    }

    /// A request on this route: each `{name}` replaced by the next of `parameters`, percent-encoded
    /// (an alias may hold any character), then the query, percent-encoded.
    ///
    /// - Precondition: as many parameters as the template names.
    public func request(_ parameters: String..., query: KeyValuePairs<String, String> = [:]) -> ControlRequest {
        precondition(parameters.count == parameterNames.count, "\(self) takes \(parameterNames.count) parameters")
        var remaining = parameters[...]
        var path = ""
        for component in template.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            path += "/"
            if component.first == "{", let value = remaining.popFirst() {
                path += Self.encode(value, allowed: Self.pathAllowed)
            } else {
                path += component
            }
        }
        guard !query.isEmpty else { return ControlRequest(method: method, uri: path) }
        let items = query.map {
            Self.encode($0.key, allowed: Self.queryAllowed) + "=" + Self.encode($0.value, allowed: Self.queryAllowed)
        }
        return ControlRequest(method: method, uri: path + "?" + items.joined(separator: "&"))
    }

    /// `METHOD template`.
    public var description: String { "\(method.rawValue) \(template)" }

    private static let pathAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return allowed
    }()

    private static let queryAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#%")
        return allowed
    }()

    private static func encode(_ text: String, allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// One request a client makes: a route's method and a concrete URI.
public struct ControlRequest: Hashable, Sendable, CustomStringConvertible {
    /// The method.
    public var method: ControlRoute.Method
    /// The path and query, percent-encoded.
    public var uri: String

    /// `METHOD uri`.
    public var description: String { "\(method.rawValue) \(uri)" }
}
