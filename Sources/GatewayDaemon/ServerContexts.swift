// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import GatewayConfig
import Logging

/// What the control server gets to serve: the executable turns it into a `Service` (the
/// `ControlAPI` HTTP server), which is the only place that knows about HTTP.
public struct ControlServerContext: Sendable {
    /// What the server serves, by area (`Gateway.services`).
    public var services: GatewayServices
    /// The Unix socket to listen on.
    public var socketPath: String
    /// TCP address, when configured.
    public var tcpListen: TCPListenAddress?
    /// The bearer token TCP clients must present.
    public var token: String?
    /// Open connections per listener (`[api] max_connections`).
    public var maxConnections: Int
    /// Call once the socket listens: systemd's `READY=1` waits for it.
    public var onListening: @Sendable () -> Void
    /// The logger.
    public var logger: Logger

    /// A context for the control server of `services`.
    public init(
        services: GatewayServices, socketPath: String, tcpListen: TCPListenAddress?, token: String?,
        maxConnections: Int = GatewayConfiguration.defaultMaxConnections, onListening: @escaping @Sendable () -> Void,
        logger: Logger
    ) {
        self.services = services
        self.socketPath = socketPath
        self.tcpListen = tcpListen
        self.token = token
        self.maxConnections = maxConnections
        self.onListening = onListening
        self.logger = logger
    }
}

/// What the coach's web dashboard gets to serve (`[web]`): the executable turns it into the
/// `WebDashboard` server.
public struct WebServerContext: Sendable {
    /// What the dashboard serves, by area (`Gateway.services`).
    public var services: GatewayServices
    /// `[web]`.
    public var web: WebConfiguration
    /// The state directory (the dashboard's users file lives there unless `[web]` names one).
    public var stateDirectory: String
    /// The control API's bearer token, which the dashboard also accepts.
    public var token: String?
    /// Open connections (`[api] max_connections`).
    public var maxConnections: Int
    /// The logger.
    public var logger: Logger

    /// A context for the dashboard of `services`.
    public init(
        services: GatewayServices, web: WebConfiguration, stateDirectory: String, token: String?,
        maxConnections: Int = GatewayConfiguration.defaultMaxConnections, logger: Logger
    ) {
        self.services = services
        self.web = web
        self.stateDirectory = stateDirectory
        self.token = token
        self.maxConnections = maxConnections
        self.logger = logger
    }
}
