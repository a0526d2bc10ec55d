// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayConfig
import GatewayCore
import Logging
import Replication
import SensorLinks
import ServiceLifecycle
import SessionStore
import UnixSignals

/// Builds and runs the whole daemon: opens the store, pairs the virtual sensors, and runs a
/// `ServiceGroup` of the gateway (links, sessions, event bus), the retention pass, the control
/// server and the systemd notifier, with graceful shutdown on SIGTERM and SIGINT.
public struct GatewayApplication: Sendable {
    /// Makes the control server's service; nil runs without one (tests, or before ControlAPI exists).
    public typealias ControlServerFactory = @Sendable (ControlServerContext) throws -> any Service
    /// Makes the web dashboard's service.
    public typealias WebServerFactory = @Sendable (WebServerContext) throws -> any Service
    /// Makes the virtual sensors of a configuration, on the clock, logging to the logger.
    public typealias VirtualSensorsFactory =
        @Sendable (VirtualSensorsConfiguration, ContinuousClock, Logger) throws -> VirtualSensorFleet<ContinuousClock>

    /// The effective configuration.
    public var configuration: GatewayConfiguration
    /// The Bluetooth side; nil for virtual sensors only.
    public var bluetooth: BluetoothSupport?
    /// Makes the virtual sensors `[virtual]` asks for (when `count` > 0): by default in process over
    /// loopback bearers; the executable serves each over an `AF_UNIX` socket pair.
    public var makeVirtualSensors: VirtualSensorsFactory
    /// The control server.
    public var makeControlServer: ControlServerFactory?
    /// The coach's web dashboard, run when `[web]` is configured.
    public var makeWebServer: WebServerFactory?
    /// The environment (state directory, socket and systemd variables).
    public var environment: [String: String]
    /// The daemon's version.
    public var version: String
    /// The logger.
    public var logger: Logger

    /// Creates an application.
    public init(
        configuration: GatewayConfiguration, bluetooth: BluetoothSupport? = nil,
        makeVirtualSensors: @escaping VirtualSensorsFactory = { configuration, clock, logger in
            try VirtualSensorFleet(configuration: configuration, clock: clock, logger: logger)
        },
        makeControlServer: ControlServerFactory? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, version: String = "0.1.0",
        logger: Logger = Logger(label: "sportsensord")
    ) {
        self.configuration = configuration
        self.bluetooth = bluetooth
        self.makeVirtualSensors = makeVirtualSensors
        self.makeControlServer = makeControlServer
        self.environment = environment
        self.version = version
        self.logger = logger
    }

    /// The state directory the configuration resolves to.
    public var stateDirectory: StateDirectory {
        StateDirectory(
            path: GatewayPaths(environment: environment).stateDirectory(option: configuration.stateDirectory).path)
    }

    /// The control socket path the configuration resolves to.
    public var socketPath: String {
        GatewayPaths(environment: environment).controlSocket(option: configuration.socketPath).path
    }

    /// Opens the store and runs every service until SIGTERM/SIGINT (graceful) or a service fails.
    public func run() async throws {
        let directory = stateDirectory
        let storeLogger = logger.with(label: "store")
        // 16 MiB held back for spilling when the disk fills: minutes of 16 sensors' unsaved samples.
        let store = try SessionStore.open(
            at: directory, options: SessionStore.Options(logger: storeLogger, spillReserveBytes: 16 << 20))
        defer { try? store.close() }
        if !store.recoveredSessions.isEmpty {
            logger.warning(
                "closed sessions a previous run left open", metadata: ["sessions": "\(store.recoveredSessions.count)"])
            // Their live summaries died with that run: computed from what was stored, so they
            // count in bests and leaderboards like any other session.
            for id in store.recoveredSessions {
                do {
                    _ = try await store.computeSummary(of: try await store.session(id: id))
                } catch {
                    logger.warning(
                        "cannot summarise a recovered session; `sportsensorctl reanalyze --save` retries",
                        metadata: ["session.id": "\(id.uuidString.lowercased())", "error": "\(error)"])
                }
            }
        }
        let clock = ContinuousClock()
        var fleet: VirtualSensorFleet<ContinuousClock>?
        if configuration.virtualSensors.count > 0 {
            fleet = try makeVirtualSensors(configuration.virtualSensors, clock, logger)
        }
        // One set of metric handles for the gateway and the replication status it reports.
        let metrics = GatewayMetrics()
        let replication = try await makeReplication(store: store, clock: clock, metrics: metrics)
        var dependencies = GatewayDependencies(
            store: store, stateDirectory: directory.path, configuration: configuration, clock: clock,
            bluetooth: bluetooth, virtualSensors: fleet, version: version, logger: logger)
        if let replication { dependencies.replicationStatus = { ReplicationStatusInfo(replication.status) } }
        let gateway = Gateway(dependencies: dependencies, metrics: metrics)
        // A damaged file shows in `status` (store_healthy) and doctor, not only in the log.
        let integrityCheck = store.checkInBackground { damage in gateway.storeChecked(damage) }
        defer { integrityCheck.cancel() }

        let (listening, listeningSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: gateway),
            .init(
                service: RetentionService(store: store, policy: configuration.retention, clock: clock, logger: logger)),
        ]
        if let replication {
            // Replication never takes the gateway down: recording goes on whatever it meets.
            services.append(
                .init(service: replication, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
        }
        if let makeControlServer {
            let context = ControlServerContext(
                services: gateway.services, socketPath: socketPath, tcpListen: configuration.tcpListen,
                token: configuration.apiToken, maxConnections: configuration.maxConnections,
                onListening: { listeningSink.yield() }, logger: logger)
            services.append(.init(service: try makeControlServer(context)))
        } else {
            listeningSink.yield()
        }
        if let makeWebServer, let web = configuration.web {
            let context = WebServerContext(
                services: gateway.services, web: web, stateDirectory: directory.path, token: configuration.apiToken,
                maxConnections: configuration.maxConnections, logger: logger)
            services.append(.init(service: try makeWebServer(context)))
        }
        let notifier = SystemdNotifier(environment: environment)
        services.append(
            .init(
                service: SystemdNotifierService(
                    notifier: notifier, clock: clock, logger: logger,
                    waitUntilReady: {
                        await gateway.waitUntilStarted()
                        for await _ in listening { return }
                    },
                    statusLine: { gateway.statusLine() })))
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(20)
        logger.info(
            "sportsensord starting",
            metadata: [
                "state.dir": "\(directory)", "control.socket": "\(socketPath)",
                "sensors.virtual": "\(configuration.virtualSensors.count)",
            ])
        try await ServiceGroup(configuration: groupConfiguration).run()
    }
}

extension Logger {
    func with(label suffix: String) -> Logger {
        var logger = Logger(label: label + "." + suffix)
        logger.logLevel = logLevel
        return logger
    }
}
