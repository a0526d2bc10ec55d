// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import Glibc
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import Prometheus
import ServiceLifecycle

/// Where and how the control API listens.
public struct ControlServerConfiguration: Sendable {
    /// The TCP listener: off unless configured.
    public struct TCP: Sendable, Hashable {
        /// The address to bind; `127.0.0.1` keeps it on this machine.
        public var host: String
        /// The port; 0 picks a free one (tests).
        public var port: Int
        /// The token every request but `GET /metrics` must present as `Authorization: Bearer …`.
        public var bearerToken: String

        /// A TCP listener on `host:port` guarded by `bearerToken`.
        public init(host: String = "127.0.0.1", port: Int, bearerToken: String) {
            self.host = host
            self.port = port
            self.bearerToken = bearerToken
        }
    }

    /// The Unix socket's path.
    public var socketPath: String
    /// The group the socket is given when it exists (members may use `sportsensorctl`).
    public var socketGroup: String?
    /// The socket's mode.
    public var socketMode: mode_t
    /// The TCP listener, if any.
    public var tcp: TCP?
    /// How often `GET /v1/events` sends `: keep-alive` while idle.
    public var keepAliveInterval: Duration
    /// How long a connection may send nothing, between requests or within a request's head.
    public var idleTimeout: Duration
    /// Open connections per listener; past it the one idle longest is closed (`ConnectionLimit`).
    public var maxConnections: Int

    /// A configuration; by default the Unix socket only, mode 0660, group `sportsensor`.
    public init(
        socketPath: String = GatewayPaths().controlSocket().path, socketGroup: String? = "sportsensor",
        socketMode: mode_t = 0o660, tcp: TCP? = nil, keepAliveInterval: Duration = .seconds(15),
        idleTimeout: Duration = ConnectionLimit.defaultIdleTimeout, maxConnections: Int = 512
    ) {
        self.maxConnections = max(1, maxConnections)
        self.socketPath = socketPath
        self.socketGroup = socketGroup
        self.socketMode = socketMode
        self.tcp = tcp
        self.keepAliveInterval = keepAliveInterval
        self.idleTimeout = idleTimeout
    }
}

/// The control API as a service: HTTP/1.1 on the Unix socket, and on TCP when configured.
///
/// `run()` makes room for the socket (a stale one is removed, a live one refused with
/// ``ControlServerError/Code/socketInUse``), binds, gives the socket its mode and group, and
/// serves until graceful shutdown or cancellation; then it removes the socket file it bound.
/// Event streams end on graceful shutdown so the server can finish its open requests.
public struct ControlServer: Service {
    /// Where a listener ended up, reported once it accepts connections.
    public enum Listener: Sendable, Hashable {
        /// The Unix socket at this path.
        case unixSocket(path: String)
        /// The TCP listener on this host and (actual) port.
        case tcp(host: String, port: Int)
    }

    let services: GatewayServices
    let configuration: ControlServerConfiguration
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let onListening: @Sendable (Listener) async -> Void

    /// A server over `services`.
    ///
    /// - Parameters:
    ///   - services: what the routes call, by area.
    ///   - configuration: socket path, group, mode, TCP listener.
    ///   - registry: what `GET /metrics` renders (default ``ControlAPIMetrics/registry``).
    ///   - logger: the server's logger.
    ///   - onListening: called once per listener when it accepts connections (tests wait on it).
    public init(
        services: GatewayServices, configuration: ControlServerConfiguration,
        registry: PrometheusCollectorRegistry = ControlAPIMetrics.registry,
        logger: Logger = Logger(label: "sportsensord.control"),
        onListening: @escaping @Sendable (Listener) async -> Void = { _ in }
    ) {
        self.services = services
        self.configuration = configuration
        self.registry = registry
        self.logger = logger
        self.onListening = onListening
    }

    /// Serves until graceful shutdown or cancellation.
    ///
    /// - Throws: ``ControlServerError`` when the socket cannot be set up or the configuration
    ///   is unusable; Hummingbird's or NIO's error when binding fails.
    public func run() async throws {
        if let tcp = configuration.tcp {
            guard !tcp.bearerToken.isEmpty else {
                throw ControlServerError(
                    .invalidConfiguration,
                    "the TCP control listener has an empty bearer token: set api.token or turn TCP off")
            }
            guard (0...65_535).contains(tcp.port) else {
                throw ControlServerError(
                    .invalidConfiguration, "the TCP control port \(tcp.port) is not in 0–65535: configure another")
            }
        }
        let path = configuration.socketPath
        try UnixSocketFile.prepare(path: path)
        let bound = BoundSocket()
        defer { UnixSocketFile.remove(path: path, identity: bound.identity) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await makeUnixApplication(bound: bound).run() }
            if let tcp = configuration.tcp {
                group.addTask { try await makeTCPApplication(tcp).run() }
            }
            // Both stop on graceful shutdown; a listener that fails (cannot bind) stops the other.
            do {
                while try await group.next() != nil {}
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// The identity of the socket file this server bound, set once it listens.
    final class BoundSocket: Sendable {
        private let value = NIOLockedValueBox<(dev_t, ino_t)?>(nil)

        var identity: (dev_t, ino_t)? {
            get { value.withLockedValue { $0 } }
            set { value.withLockedValue { $0 = newValue } }
        }
    }

    /// Each listener has its own `ConnectionLimit`, so a flood on TCP leaves the socket alone.
    func httpConfiguration(limit: ConnectionLimit) -> HTTP1Channel.Configuration {
        limit.channelConfiguration(idleTimeout: configuration.idleTimeout)
    }

    /// The application on the Unix socket: no token, the file's mode and group decide.
    func makeUnixApplication(bound: BoundSocket) -> some ApplicationProtocol {
        let path = configuration.socketPath
        let mode = configuration.socketMode
        let group = configuration.socketGroup
        let logger = logger
        let onListening = onListening
        let router = ControlRoutes.router(
            services: services, registry: registry, keepAliveInterval: configuration.keepAliveInterval, logger: logger)
        let limit = ConnectionLimit(maximum: configuration.maxConnections, listener: path, logger: logger)
        return Application(
            router: router, server: .http1(configuration: httpConfiguration(limit: limit)),
            configuration: ApplicationConfiguration(
                address: .unixDomainSocket(path: path), serverName: nil, backlog: ConnectionLimit.listenBacklog),
            onServerRunning: { _ in
                bound.identity = UnixSocketFile.identity(path: path)
                let restriction = UnixSocketFile.restrict(path: path, mode: mode, group: group)
                if let problem = restriction.problem {
                    logger.warning("control socket permissions", metadata: ["problem": "\(problem)"])
                } else if let group, !restriction.groupApplied {
                    logger.notice(
                        "group \(group) does not exist: only this user (and root) can use the control socket",
                        metadata: ["control.socket": "\(path)"])
                }
                logger.info("control API listening", metadata: ["control.socket": "\(path)"])
                await onListening(.unixSocket(path: path))
            },
            logger: logger)
    }

    /// The application on TCP: every request but `GET /metrics` needs the bearer token.
    func makeTCPApplication(_ tcp: ControlServerConfiguration.TCP) -> some ApplicationProtocol {
        let logger = logger
        let onListening = onListening
        let router = ControlRoutes.router(
            services: services, registry: registry, bearerToken: tcp.bearerToken,
            keepAliveInterval: configuration.keepAliveInterval, logger: logger)
        let limit = ConnectionLimit(
            maximum: configuration.maxConnections, listener: "\(tcp.host):\(tcp.port)", logger: logger)
        return Application(
            router: router, server: .http1(configuration: httpConfiguration(limit: limit)),
            configuration: ApplicationConfiguration(
                address: .hostname(tcp.host, port: tcp.port), serverName: nil, backlog: ConnectionLimit.listenBacklog),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? tcp.port
                logger.info("control API listening on TCP", metadata: ["control.tcp": "\(tcp.host):\(port)"])
                await onListening(.tcp(host: tcp.host, port: port))
            },
            logger: logger)
    }
}
