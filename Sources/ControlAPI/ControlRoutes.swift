// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import GatewayCore
import Hummingbird
import Logging
import Prometheus

/// The control API's routes (Docs/API.md), each calling one method of its area's protocol (`GatewayServices`).
public enum ControlRoutes {
    /// The largest request body accepted, in bytes.
    public static let maximumBodySize = 64 * 1024

    /// The largest recording `POST /v1/sessions/import` takes, in bytes (a day at 100 Hz is ~300 MB).
    public static let maximumImportSize = 512 * 1024 * 1024

    /// The scan duration used when `POST /v1/scan` has no `seconds`.
    public static let defaultScanSeconds = 10.0

    /// A router serving every route over `control`.
    ///
    /// - Parameters:
    ///   - services: what the routes call, by area.
    ///   - registry: what `GET /metrics` renders (default ``ControlAPIMetrics/registry``).
    ///   - bearerToken: when set, every request but `GET /metrics` needs
    ///     `Authorization: Bearer <token>` (the TCP listener); nil on the Unix socket.
    ///   - keepAliveInterval: how often `GET /v1/events` sends `: keep-alive` while idle.
    ///   - logger: where unexpected errors go.
    public static func router(
        services: GatewayServices,
        registry: PrometheusCollectorRegistry = ControlAPIMetrics.registry,
        bearerToken: String? = nil,
        keepAliveInterval: Duration = .seconds(15),
        logger: Logger = Logger(label: "sportsensord.control")
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ControlErrorMiddleware(logger: logger))
        if let bearerToken {
            router.add(middleware: BearerTokenMiddleware(token: bearerToken))
        }
        addRoutes(
            to: router, services: services, registry: registry, keepAliveInterval: keepAliveInterval, logger: logger)
        return router
    }

    /// Adds every route of the API to `router`, whose middleware decides who may call them (the
    /// web dashboard's listener serves them behind its login, Docs/DASHBOARD.md).
    public static func addRoutes<Context: RequestContext>(
        to router: Router<Context>, services: GatewayServices,
        registry: PrometheusCollectorRegistry = ControlAPIMetrics.registry, keepAliveInterval: Duration = .seconds(15),
        logger: Logger = Logger(label: "sportsensord.control")
    ) {
        addGatewayRoutes(to: router, control: services.live)
        addSensorRoutes(to: router, control: services.live)
        addSessionRoutes(to: router, control: services.live)
        addStoreRoutes(to: router, control: services.administration)
        addRosterRoutes(to: router, control: services.roster)
        addTargetRoutes(to: router, control: services.roster)
        let live = services.live
        router.on(.events) { request, _ -> Response in
            return ServerSentEvents.response(
                events: try live.events(), keepAliveInterval: keepAliveInterval, logger: logger)
        }
        router.on(.metrics) { request, _ -> Response in
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: ControlAPIMetrics.exposition(of: registry))))
        }
    }

    /// Status, adapters, scan.
    static func addGatewayRoutes<Context: RequestContext>(to router: Router<Context>, control: any LiveControl) {
        router.on(.status) { request, _ -> Response in
            return try ControlResponses.json(try await control.status())
        }
        router.on(.adapters) { request, _ -> Response in
            return try ControlResponses.json(try await control.adapters())
        }
        router.on(.replication) { request, _ -> Response in
            return try ControlResponses.json(try await control.replicationStatus())
        }
        router.on(.scan) { request, _ -> Response in
            let query = try QueryParameters(request, route: .scan)
            let seconds = try query.number("seconds", in: 1...60) ?? defaultScanSeconds
            return try ControlResponses.json(try await control.scan(seconds: seconds))
        }
    }

    /// Pair, list, rename or bind, unpair.
    static func addSensorRoutes<Context: RequestContext>(to router: Router<Context>, control: any LiveControl) {
        router.on(.sensors) { request, _ -> Response in
            return try ControlResponses.json(try await control.sensors())
        }
        router.on(.pair) { request, _ -> Response in
            let pair = try await RequestBodies.decode(
                PairRequest.self, from: request, limit: maximumBodySize,
                example: #"{"address":"FC:97:8B:75:10:AB","alias":"anna-left","athlete":"anna"}"#)
            guard !pair.address.isEmpty else {
                throw ControlError(
                    .invalidRequest, "the address is empty", fix: "give the sensor's address, e.g. FC:97:8B:75:10:AB")
            }
            return try ControlResponses.json(try await control.pair(pair), status: .created)
        }
        router.on(.updateSensor) { request, context -> Response in
            let sensor = try context.parameters.require("sensor")
            let update = try await RequestBodies.decode(
                SensorUpdate.self, from: request, limit: maximumBodySize,
                example: #"{"alias":"anna-left","athlete":"anna"}"#)
            guard update.alias != nil || update.athlete != nil else {
                throw ControlError(
                    .invalidRequest, "the body changes nothing",
                    fix: #"give alias and/or athlete, e.g. {"athlete":"anna"} ("" clears)"#)
            }
            return try ControlResponses.json(try await control.updateSensor(sensor, update))
        }
        router.on(.unpair) { request, context -> Response in
            try await control.unpair(sensor: try context.parameters.require("sensor"))
            return Response(status: .noContent)
        }
    }

    /// List, start, get, stop, events, samples, summary.
    static func addSessionRoutes<Context: RequestContext>(to router: Router<Context>, control: any LiveControl) {
        router.on(.sessionSummary) { request, context -> Response in
            return try ControlResponses.json(try await control.sessionSummary(id: try context.parameters.require("id")))
        }
        router.on(.sessions) { request, _ -> Response in
            let query = try QueryParameters(request, route: .sessions)
            let sessions = try await control.sessions(
                athlete: query.string("athlete"), sensor: query.string("sensor"), profile: query.string("profile"),
                live: try query.bool("live"), limit: try query.integer("limit", in: 1...100_000))
            return try ControlResponses.json(sessions)
        }
        router.on(.startSession) { request, _ -> Response in
            let start = try await RequestBodies.decode(
                StartSessionRequest.self, from: request, limit: maximumBodySize,
                example: #"{"sensor":"anna-left","profile":"jump","athlete":"anna"}"#)
            guard !start.sensor.isEmpty else {
                throw ControlError(.invalidRequest, "the sensor is empty", fix: "give the sensor's alias or address")
            }
            return try ControlResponses.json(try await control.startSession(start), status: .created)
        }
        router.on(.session) { request, context -> Response in
            return try ControlResponses.json(try await control.session(id: try context.parameters.require("id")))
        }
        router.on(.stopSession) { request, context -> Response in
            return try ControlResponses.json(try await control.stopSession(id: try context.parameters.require("id")))
        }
        router.on(.sessionEvents) { request, context -> Response in
            // Written a page of events at a time as the client reads (`PagedDownload`).
            let pages = try await control.sessionEventPages(id: try context.parameters.require("id"))
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: PagedDownload.jsonArray(pages: pages))
        }
        router.on(.sessionSamples) { request, context -> Response in
            let id = try context.parameters.require("id")
            let chunks = try await control.sessionSamplesCSV(id: id)
            var headers = HTTPFields()
            headers[.contentType] = "text/csv; charset=utf-8"
            headers[.contentDisposition] =
                "attachment; filename=\"session-\(id.filter { $0.isLetter || $0.isNumber || $0 == "-" }).csv\""
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    for try await chunk in chunks where !chunk.isEmpty {
                        try await writer.write(ByteBuffer(string: chunk))
                    }
                    try await writer.finish(nil)
                })
        }
    }
}

extension Router {
    /// Registers `handler` for `route`'s method and path template. A query parameter the route does
    /// not declare (`ControlRoute.query`) is a 400 before the handler runs.
    @discardableResult
    func on(
        _ route: ControlRoute, use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) -> Self {
        let method: HTTPRequest.Method =
            switch route.method {
            case .get: .get
            case .post: .post
            case .patch: .patch
            case .delete: .delete
            }
        return on(RouterPath(route.template), method: method) { request, context in
            _ = try QueryParameters(request, route: route)
            return try await handler(request, context)
        }
    }
}
