// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import ControlAPI
import ControlProtocol
import DashboardUsers
import Foundation
import GatewayConfig
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL
import ServiceLifecycle

/// Where and how the dashboard listens.
public struct WebServerConfiguration: Sendable {
    /// The address to bind (`0.0.0.0` for the hall's LAN).
    public var host: String
    /// The port; 0 picks a free one (tests).
    public var port: Int
    /// PEM certificate chain and key for HTTPS; nil serves plain HTTP (behind a TLS proxy, or on
    /// a closed LAN).
    public var tls: (certificate: String, key: String)?
    /// The accounts file.
    public var usersFile: String
    /// How long a login lasts.
    public var sessionLifetime: TimeInterval
    /// The API's bearer token, accepted here too (scripts); nil accepts logins only.
    public var bearerToken: String?
    /// How often the event stream sends `: keep-alive` while idle.
    public var keepAliveInterval: Duration
    /// How long a connection may send nothing, between requests or within a request's head (as
    /// on the control API's listeners).
    public var idleTimeout: Duration
    /// Open connections; past it the one idle longest is closed (`[api] max_connections`, the
    /// control API's `ConnectionLimit`).
    public var maxConnections: Int
    /// Reverse proxies whose `X-Forwarded-For` names the client (`[web] trusted_proxies`); empty
    /// reads the header from nobody.
    public var trustedProxies: [IPAddressRange]

    /// A configuration.
    public init(
        host: String, port: Int, tls: (certificate: String, key: String)? = nil, usersFile: String,
        sessionLifetime: TimeInterval = 12 * 3600, bearerToken: String? = nil,
        keepAliveInterval: Duration = .seconds(15), idleTimeout: Duration = ConnectionLimit.defaultIdleTimeout,
        maxConnections: Int = GatewayConfiguration.defaultMaxConnections, trustedProxies: [IPAddressRange] = []
    ) {
        self.trustedProxies = trustedProxies
        self.idleTimeout = idleTimeout
        self.maxConnections = max(1, maxConnections)
        self.host = host
        self.port = port
        self.tls = tls
        self.usersFile = usersFile
        self.sessionLifetime = sessionLifetime
        self.bearerToken = bearerToken
        self.keepAliveInterval = keepAliveInterval
    }
}

/// The coach's dashboard as a service: pages, assets, the login and, behind it, the whole control
/// API (the page's `fetch` and `EventSource` use it), on a TCP listener of its own.
public struct WebServer: Service {
    let services: GatewayServices
    let configuration: WebServerConfiguration
    let logger: Logger
    let onListening: @Sendable (_ port: Int) async -> Void

    /// A dashboard over `services`; `onListening` gets the bound port.
    public init(
        services: GatewayServices, configuration: WebServerConfiguration,
        logger: Logger = Logger(label: "sportsensord.web"),
        onListening: @escaping @Sendable (_ port: Int) async -> Void = { _ in }
    ) {
        self.services = services
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
    }

    /// The dashboard's router (tests drive it without a socket).
    public func router() throws -> Router<WebRequestContext> {
        let authentication = WebAuthentication(
            users: DashboardUsersCache(file: DashboardUsersFile(path: configuration.usersFile), logger: logger),
            bearerToken: configuration.bearerToken, secureCookies: configuration.tls != nil,
            lifetime: configuration.sessionLifetime)
        let pages = DashboardPages(
            authentication: authentication, templates: try DashboardTemplates())
        let router = Router(context: WebRequestContext.self)
        router.add(middleware: ClientAddressMiddleware(resolver: .init(trustedProxies: configuration.trustedProxies)))
        router.add(middleware: ControlErrorMiddleware(logger: logger))
        router.add(middleware: WebAuthMiddleware(authentication: authentication))
        pages.addRoutes(to: router)
        HistoryPages(services: services, templates: pages.templates).addRoutes(to: router)
        ControlRoutes.addRoutes(
            to: router, services: services, keepAliveInterval: configuration.keepAliveInterval, logger: logger)
        return router
    }

    /// The listener's HTTP/1.1 channel with the control API's limits: at most `maxConnections`
    /// open (the idle-longest closed past it) and `idleTimeout` of silence, so idle or half-open
    /// phones cannot pile up; an event stream in progress is never cut.
    func http() -> HTTP1Channel.Configuration {
        ConnectionLimit.channelConfiguration(
            maximum: configuration.maxConnections, idleTimeout: configuration.idleTimeout,
            listener: "web \(configuration.host):\(configuration.port)", logger: logger)
    }

    /// Serves until graceful shutdown.
    public func run() async throws {
        let server: HTTPServerBuilder
        if let tls = configuration.tls {
            server = try .tls(
                .http1(configuration: http()),
                tlsConfiguration: Self.tlsConfiguration(certificate: tls.certificate, key: tls.key))
        } else {
            server = .http1(configuration: http())
        }
        let logger = logger
        let onListening = onListening
        let scheme = configuration.tls == nil ? "http" : "https"
        let application = Application(
            router: try router(), server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info(
                    "web dashboard listening", metadata: ["web.url": "\(scheme)://\(configuration.host):\(port)/"])
                await onListening(port)
            },
            logger: logger)
        try await application.run()
    }
}

extension WebServer {
    /// The listener's TLS from the PEM files `certificate` (a chain, leaf first) and `key`, checked
    /// as the listener would use them: a file that is missing, unreadable or not PEM, and a key
    /// that is not the certificate's, are each a ``WebServerError`` naming the file and the key to
    /// fix. The daemon calls it before it starts anything (exit 78), `run()` again before binding.
    public static func tlsConfiguration(certificate: String, key: String) throws(WebServerError) -> TLSConfiguration {
        let keys = "(web.tls_cert, web.tls_key)"
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw WebServerError(
                "cannot load the dashboard's TLS certificate \(certificate): check that it is a PEM certificate "
                    + "chain readable by the daemon's user \(keys)", cause: error)
        }
        guard !chain.isEmpty else {
            throw WebServerError("the dashboard's TLS certificate file \(certificate) holds no PEM certificate \(keys)")
        }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
        } catch {
            throw WebServerError(
                "cannot load the dashboard's TLS key \(key): check that it is an unencrypted PEM private key "
                    + "readable by the daemon's user \(keys)", cause: error)
        }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        do {
            // Building the context pairs the key with the leaf certificate, as binding would.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw WebServerError(
                "the TLS key \(key) does not belong to the certificate \(certificate): give the key the certificate "
                    + "was issued for \(keys)", cause: error)
        }
        return configuration
    }
}

/// The dashboard could not start.
public struct WebServerError: CodedError, Sendable {
    /// The one kind: a configuration the listener cannot use.
    public var code: String { "web-configuration" }
    /// What to fix.
    public var message: String
    /// The error underneath.
    public var cause: (any Error)?

    init(_ message: String, cause: (any Error)? = nil) {
        self.message = message
        self.cause = cause
    }
}
