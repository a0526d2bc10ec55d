// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayCore
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ControlAPI

/// One route and a request that reaches its gateway method.
struct RouteCase: Sendable, CustomTestStringConvertible {
    var method: HTTPRequest.Method
    var uri: String
    var body: String?
    var call: FakeGatewayControl.Call

    var testDescription: String { "\(method) \(uri)" }
}

private let sessionID = FakeGatewayControl.Fixtures.session.id

/// Every route that calls the gateway once.
let gatewayRoutes: [RouteCase] = [
    RouteCase(method: .get, uri: "/v1/status", call: .status),
    RouteCase(method: .get, uri: "/v1/adapters", call: .adapters),
    RouteCase(method: .post, uri: "/v1/scan?seconds=5", call: .scan(seconds: 5)),
    RouteCase(method: .get, uri: "/v1/sensors", call: .sensors),
    RouteCase(
        method: .post, uri: "/v1/sensors", body: #"{"address":"FC:97:8B:75:10:AB","alias":"anna-left"}"#,
        call: .pair(PairRequest(address: "FC:97:8B:75:10:AB", alias: "anna-left"))),
    RouteCase(
        method: .patch, uri: "/v1/sensors/anna-left", body: #"{"athlete":"anna"}"#,
        call: .updateSensor("anna-left", SensorUpdate(athlete: "anna"))),
    RouteCase(method: .delete, uri: "/v1/sensors/FC:97:8B:75:10:AB", call: .unpair(sensor: "FC:97:8B:75:10:AB")),
    RouteCase(
        method: .get, uri: "/v1/sessions",
        call: .sessions(athlete: nil, sensor: nil, profile: nil, live: nil, limit: nil)),
    RouteCase(
        method: .post, uri: "/v1/sessions", body: #"{"sensor":"anna-left","profile":"jump"}"#,
        call: .startSession(StartSessionRequest(sensor: "anna-left", profile: "jump"))),
    RouteCase(method: .get, uri: "/v1/sessions/6F9619FF", call: .session(id: "6F9619FF")),
    RouteCase(method: .post, uri: "/v1/sessions/6F9619FF/stop", call: .stopSession(id: "6F9619FF")),
    RouteCase(method: .get, uri: "/v1/sessions/6F9619FF/events", call: .sessionEventPages(id: "6F9619FF")),
    RouteCase(method: .get, uri: "/v1/sessions/6F9619FF/samples.csv", call: .sessionSamplesCSV(id: "6F9619FF")),
    RouteCase(
        method: .post, uri: "/v1/sessions/6F9619FF/reanalyze", body: #"{"profile":"jump","set":["min_flight=0.2"]}"#,
        call: .reanalyze(id: "6F9619FF", ReanalyzeRequest(profile: "jump", set: ["min_flight=0.2"]))),
    RouteCase(
        method: .post, uri: "/v1/sessions/import",
        body: #"{"profile":"jump","rules":"standard","set":[],"lost_samples":0,"malformed_notifications":0,"#
            + #""samples":[[0,0,10,-20,16384]]}"#,
        call: .importSession(
            ImportRequest(
                profile: "jump", rules: "standard", set: [], athlete: nil, sensor: nil, startedAt: nil,
                captureStart: nil, lostSamples: 0, malformedNotifications: 0, sampleRate: nil,
                samples: ImportSamples([ImportSample(index: 0, t: 0, x: 10, y: -20, z: 16384)])))),
    RouteCase(
        method: .post, uri: "/v1/prune", body: #"{"stored_before":"2026-01-01T00:00:00Z","samples_only":true}"#,
        call: .prune(PruneRequest(storedBefore: Date(timeIntervalSince1970: 1_767_225_600), samplesOnly: true))),
    RouteCase(method: .get, uri: "/v1/replication", call: .replicationStatus),
]

/// Every `ControlError` code.
let allCodes: [ControlError.Code] = [
    .notFound, .conflict, .invalidRequest, .unauthorized, .forbidden, .unavailable, .internal,
]

/// Runs `test` against the routes over `control` through HummingbirdTesting's router client.
func withRouter<T: Sendable>(
    _ control: FakeGatewayControl, bearerToken: String? = nil,
    _ test: @Sendable (any TestClientProtocol) async throws -> T
) async throws -> T {
    let app = Application(router: ControlRoutes.router(services: control.services, bearerToken: bearerToken))
    return try await app.test(.router, test)
}

/// `T` decoded from `response`'s body with the control API's decoder.
func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
    try JSONDecoder.controlAPI.decode(T.self, from: Data(buffer: response.body))
}

extension TestClientProtocol {
    /// Executes a request with an optional JSON body.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, body: String? = nil, headers: HTTPFields = [:]
    )
        async throws -> TestResponse
    {
        var headers = headers
        if body != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }
}

@Suite("Control API routes")
struct ControlRoutesTests {
    typealias Fixtures = FakeGatewayControl.Fixtures

    @Test("each route calls its gateway method once, with the request's arguments", arguments: gatewayRoutes)
    func routeCallsGateway(route: RouteCase) async throws {
        let control = FakeGatewayControl()
        let status = try await withRouter(control) { client in
            try await client.send(route.method, route.uri, body: route.body).status
        }
        #expect((200..<300).contains(status.code))
        #expect(control.calls == [route.call])
    }

    @Test("each route answers every ControlError code with its status and body", arguments: gatewayRoutes)
    func routeMapsErrors(route: RouteCase) async throws {
        for code in allCodes {
            let control = FakeGatewayControl()
            let error = ControlError(code, "it went wrong (\(code))", fix: code == .internal ? nil : "do this")
            control.failure = error
            let response = try await withRouter(control) { client in
                try await client.send(route.method, route.uri, body: route.body)
            }
            #expect(response.status.code == code.httpStatus, "\(route.uri) \(code)")
            #expect(response.headers[.contentType] == "application/json")
            #expect(try decode(ControlErrorBody.self, response) == error.body)
        }
    }

    @Test("status, adapters, scan, sensors decode to the gateway's models")
    func gatewayBodies() async throws {
        let control = FakeGatewayControl()
        try await withRouter(control) { client in
            #expect(try decode(GatewayStatus.self, await client.send(.get, "/v1/status")) == Fixtures.status)
            #expect(try decode([AdapterInfo].self, await client.send(.get, "/v1/adapters")) == [Fixtures.adapter])
            let scan = try await client.send(.post, "/v1/scan?seconds=2.5")
            #expect(try decode([DiscoveryInfo].self, scan) == Fixtures.discoveries)
            #expect(try decode([SensorInfo].self, await client.send(.get, "/v1/sensors")) == [Fixtures.sensor])
        }
        #expect(control.calls == [.status, .adapters, .scan(seconds: 2.5), .sensors])
    }

    @Test("the wire uses snake_case keys and ISO 8601 dates")
    func wireFormat() async throws {
        let text = try await withRouter(FakeGatewayControl()) { client in
            String(buffer: try await client.send(.get, "/v1/sessions/x").body)
        }
        #expect(text.contains(#""started_at":"2025-03-01T10:00:00Z""#))
        #expect(text.contains(#""malformed_notifications":1"#))
        #expect(!text.contains("startedAt"))
    }

    @Test("pair, update, unpair answer 201, 200 and 204 with the sensor or nothing")
    func sensorBodies() async throws {
        let control = FakeGatewayControl()
        try await withRouter(control) { client in
            let paired = try await client.send(
                .post, "/v1/sensors",
                body: #"{"address":"FC:97:8B:75:10:AB","address_type":"random","alias":"a","athlete":"anna"}"#)
            #expect(paired.status == .created)
            #expect(try decode(SensorInfo.self, paired) == Fixtures.sensor)
            let updated = try await client.send(.patch, "/v1/sensors/a", body: #"{"alias":""}"#)
            #expect(updated.status == .ok)
            #expect(try decode(SensorInfo.self, updated) == Fixtures.sensor)
            let removed = try await client.send(.delete, "/v1/sensors/a")
            #expect(removed.status == .noContent)
            #expect(removed.body.readableBytes == 0)
        }
        #expect(
            control.calls == [
                .pair(PairRequest(address: "FC:97:8B:75:10:AB", addressType: "random", alias: "a", athlete: "anna")),
                .updateSensor("a", SensorUpdate(alias: "")), .unpair(sensor: "a"),
            ])
    }

    @Test("sessions: list with filters, start, get, stop, events")
    func sessionBodies() async throws {
        let control = FakeGatewayControl()
        try await withRouter(control) { client in
            let list = try await client.send(
                .get, "/v1/sessions?athlete=anna%20b&sensor=anna-left&profile=jump&live=true&limit=20")
            #expect(try decode([SessionInfo].self, list) == [Fixtures.session])
            let started = try await client.send(.post, "/v1/sessions", body: #"{"sensor":"anna-left"}"#)
            #expect(started.status == .created)
            #expect(try decode(SessionInfo.self, started) == Fixtures.session)
            #expect(try decode(SessionInfo.self, await client.send(.get, "/v1/sessions/6F96")) == Fixtures.session)
            let stopped = try await client.send(.post, "/v1/sessions/6F96/stop")
            #expect(try decode(SessionInfo.self, stopped) == Fixtures.session)
            let events = try await client.send(.get, "/v1/sessions/6F96/events")
            #expect(try decode([EventRecord].self, events) == Fixtures.events)
        }
        #expect(
            control.calls == [
                .sessions(athlete: "anna b", sensor: "anna-left", profile: "jump", live: true, limit: 20),
                .startSession(StartSessionRequest(sensor: "anna-left")), .session(id: "6F96"),
                .stopSession(id: "6F96"), .sessionEventPages(id: "6F96"),
            ])
    }

    @Test("empty filters are no filters; live=false passes false")
    func emptyFilters() async throws {
        let control = FakeGatewayControl()
        _ = try await withRouter(control) { client in
            try await client.send(.get, "/v1/sessions?athlete=&sensor=&live=false")
        }
        #expect(control.calls == [.sessions(athlete: nil, sensor: nil, profile: nil, live: false, limit: nil)])
    }

    @Test("samples.csv streams the chunks as text/csv")
    func samplesCSV() async throws {
        let response = try await withRouter(FakeGatewayControl()) { client in
            try await client.send(.get, "/v1/sessions/\(sessionID)/samples.csv")
        }
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/csv; charset=utf-8")
        #expect(response.headers[.contentDisposition]?.contains("session-\(sessionID).csv") == true)
        #expect(String(buffer: response.body) == Fixtures.csvChunks.joined())
    }

    @Test("scan without seconds scans the default time")
    func scanDefault() async throws {
        let control = FakeGatewayControl()
        _ = try await withRouter(control) { client in try await client.send(.post, "/v1/scan") }
        #expect(control.calls == [.scan(seconds: ControlRoutes.defaultScanSeconds)])
    }

    @Test(
        "bad requests answer 400 naming the problem, without calling the gateway",
        arguments: [
            (HTTPRequest.Method.post, "/v1/scan?seconds=0", nil, "seconds=0"),
            (.post, "/v1/scan?seconds=61", nil, "seconds=61"),
            (.post, "/v1/scan?seconds=abc", nil, "seconds=abc"),
            (.post, "/v1/scan?seconds=nan", nil, "seconds=nan"),
            (.post, "/v1/scan?secs=5", nil, "unknown query parameter 'secs'"),
            (.get, "/v1/sessions?live=maybe", nil, "live=maybe"),
            (.get, "/v1/sessions?limit=0", nil, "limit=0"),
            (.get, "/v1/sessions?limit=ten", nil, "limit=ten"),
            (.get, "/v1/sessions?athelte=anna", nil, "unknown query parameter 'athelte'"),
            (.get, "/v1/status?verbose=1", nil, "unknown query parameter 'verbose'"),
            (.post, "/v1/sensors", "{not json", "not valid JSON"),
            (.post, "/v1/sensors", nil, "needs a JSON body"),
            (.post, "/v1/sensors", "[1,2]", "must be a JSON object"),
            (.post, "/v1/sensors", #"{"alias":"x"}"#, "missing field 'address'"),
            (
                .post, "/v1/sensors", #"{"address":"FC:97:8B:75:10:AB","address_type":4}"#,
                "'address_type' must be a string"
            ),
            (.post, "/v1/sensors", #"{"address":""}"#, "the address is empty"),
            (.patch, "/v1/sensors/anna", "{}", "changes nothing"),
            (.post, "/v1/sessions", #"{"profile":"jump"}"#, "missing field 'sensor'"),
        ] as [(HTTPRequest.Method, String, String?, String)])
    func validation(method: HTTPRequest.Method, uri: String, body: String?, problem: String) async throws {
        let control = FakeGatewayControl()
        let response = try await withRouter(control) { client in try await client.send(method, uri, body: body) }
        #expect(response.status == .badRequest)
        let error = try decode(ControlErrorBody.self, response)
        #expect(error.code == "invalid-request")
        #expect(error.error.contains(problem), "\(error.error)")
        #expect(error.fix?.isEmpty == false)
        #expect(control.calls.isEmpty)
    }

    @Test("every route answers a query parameter it does not declare with 400 naming those it takes")
    func undeclaredQueryOnEveryRoute() async throws {
        for route in ControlRoute.all {
            let path = route.template.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.first == "{" ? "1" : String($0) }.joined(separator: "/")
            let method = HTTPRequest.Method(route.method.rawValue)!
            let control = FakeGatewayControl()
            let response = try await withRouter(control) { client in try await client.send(method, path + "?bogus=1") }
            #expect(response.status == .badRequest, "\(route)")
            let error = try decode(ControlErrorBody.self, response)
            #expect(error.error.contains("unknown query parameter 'bogus'"), "\(route): \(error.error)")
            let expected = route.query.isEmpty ? "none" : route.query.joined(separator: ", ")
            #expect(error.fix?.contains(expected) == true, "\(route): \(error.fix ?? "")")
            #expect(control.calls.isEmpty, "\(route)")
        }
    }

    @Test("an unknown route or method answers 404 with a JSON body")
    func unknownRoute() async throws {
        try await withRouter(FakeGatewayControl()) { client in
            for (method, uri) in [(HTTPRequest.Method.get, "/v1/nothing"), (.put, "/v1/status"), (.get, "/v2/status")] {
                let response = try await client.send(method, uri)
                #expect(response.status == .notFound)
                let error = try decode(ControlErrorBody.self, response)
                #expect(error.code == "not-found")
                #expect(error.error.contains(uri))
            }
        }
    }

    @Test("a body over the limit answers 413 with a JSON body")
    func bodyTooLarge() async throws {
        let control = FakeGatewayControl()
        let big = #"{"address":""# + String(repeating: "A", count: ControlRoutes.maximumBodySize) + #""}"#
        let response = try await withRouter(control) { client in try await client.send(.post, "/v1/sensors", body: big)
        }
        #expect(response.status == .contentTooLarge)
        #expect(try decode(ControlErrorBody.self, response).code == "invalid-request")
        #expect(control.calls.isEmpty)
    }

    @Test("an unexpected error answers 500 with a body that says it is a bug")
    func unexpectedError() async throws {
        struct Surprise: Error {}
        let router = Router()
        router.add(middleware: ControlErrorMiddleware(logger: .init(label: "test")))
        router.get("/boom") { _, _ -> Response in throw Surprise() }
        let response = try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/boom", method: .get)
        }
        #expect(response.status == .internalServerError)
        let body = try decode(ControlErrorBody.self, response)
        #expect(body.code == "internal")
        #expect(body.error.contains("Surprise"))
        #expect(body.fix?.contains("bug") == true)
    }

    @Test("replication status decodes to the gateway's model, with snake_case keys and the password redacted")
    func replicationStatus() async throws {
        let control = FakeGatewayControl()
        try await withRouter(control) { client in
            let response = try await client.send(.get, "/v1/replication")
            #expect(response.status == .ok)
            let body = String(buffer: response.body)
            #expect(body.contains("\"outbox_items\":1200"))
            #expect(body.contains("\"last_error_code\":\"unreachable\""))
            #expect(try decode(ReplicationStatusInfo.self, response) == control.answers.replication)
        }
    }
}
