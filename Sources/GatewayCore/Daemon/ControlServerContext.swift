// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import GatewayConfig
import Logging

/// What a control server gets to serve: the executable turns it into a `Service` (the
/// `ControlAPI` HTTP server), which is the only place that knows about HTTP.
public struct ControlServerContext: Sendable {
    /// What the servers serve, by area (`Gateway.services`).
    public var services: GatewayServices
    /// The Unix socket to listen on.
    public var socketPath: String
    /// TCP address, when configured.
    public var tcpListen: TCPListenAddress?
    /// The bearer token TCP clients must present.
    public var token: String?
    /// Open connections per listener (`[api] max_connections`).
    public var maxConnections: Int = GatewayConfiguration.defaultMaxConnections
    /// Call once the socket listens: systemd's `READY=1` waits for it.
    public var onListening: @Sendable () -> Void
    /// The logger.
    public var logger: Logger
    /// `[web]`, for the dashboard's server (nil when not configured).
    public var web: WebConfiguration?
    /// The state directory (the dashboard's users file lives there unless configured elsewhere).
    public var stateDirectory: String = ""

    /// A context for the servers of `services`.
    public init(
        services: GatewayServices, socketPath: String, tcpListen: TCPListenAddress?, token: String?,
        maxConnections: Int = GatewayConfiguration.defaultMaxConnections, onListening: @escaping @Sendable () -> Void,
        logger: Logger, web: WebConfiguration? = nil, stateDirectory: String = ""
    ) {
        self.services = services
        self.socketPath = socketPath
        self.tcpListen = tcpListen
        self.token = token
        self.maxConnections = maxConnections
        self.onListening = onListening
        self.logger = logger
        self.web = web
        self.stateDirectory = stateDirectory
    }
}
