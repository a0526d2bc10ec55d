// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLETransport
import BLEWire
import ControlAPI
import ControlProtocol
import DashboardUsers
import Foundation
import GATTClient
import GatewayConfig
import GatewayCore
import GatewayDaemon
import Logging
import NIOConcurrencyHelpers
import SensorLinks
import ServiceLifecycle
import SessionStore
import WebDashboard

#if canImport(Glibc)
import Glibc
#endif

/// `sportsensord`: the gateway daemon.
@main
struct Sportsensord: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sportsensord",
        abstract: "Pairs SDU sport sensors over Bluetooth LE, detects training events and records sessions.",
        discussion: """
            Configuration comes from \(GatewayConfiguration.defaultPath) (or --config), then the environment \
            (SPORTSENSOR_STATE_DIR, SPORTSENSOR_SOCKET), then these flags. A bad configuration exits with \
            status 78 before anything starts. --virtual-sensors N runs N emulated sensors instead of needing \
            Bluetooth hardware.
            """,
        version: Self.version)

    static let version = BuildVersion.description

    @Option(name: .long, help: "The configuration file (default \(GatewayConfiguration.defaultPath)).")
    var config: String?

    @Option(name: .long, help: "The state directory holding the session database.")
    var stateDir: String?

    @Option(name: .long, help: "The control socket path.")
    var socket: String?

    @Option(name: .long, help: "Pair N in-process virtual sensors (virtual-1 … virtual-N).")
    var virtualSensors: Int?

    @Option(name: .long, help: "A Bluetooth adapter to use (hci0); repeat for several.")
    var adapter: [String] = []

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    func run() async throws {
        MallocSettings.apply()
        // Files the daemon makes (the store, its WAL and lock) are 0640 and directories 0750
        // however it was started; the unit's UMask= says the same.
        umask(0o027)
        let configuration: GatewayConfiguration
        do {
            let file = try GatewayConfiguration.load(
                path: config ?? GatewayConfiguration.defaultPath, isExplicit: config != nil)
            configuration = try file.applying(
                GatewayOverrides(
                    stateDirectory: stateDir, socketPath: socket, virtualSensors: virtualSensors, adapters: adapter,
                    logLevel: logLevel))
            // A certificate the dashboard cannot use is a configuration error (78), found before
            // anything starts, not a listener failing once the gateway runs.
            if let web = configuration.web, let certificate = web.tlsCertificate, let key = web.tlsKey {
                _ = try WebServer.tlsConfiguration(certificate: certificate, key: key)
            }
        } catch {
            // A key or value in the file holding ESC or BEL is shown escaped: this goes to a terminal.
            let text = TerminalText.escaped("configuration error: \(error)")
            FileHandle.standardError.write(Data("sportsensord: \(text)\n".utf8))
            throw ExitCode(ConfigurationError.exitStatus)
        }

        let level = Logger.Level(rawValue: configuration.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // Prometheus behind swift-metrics, before any service creates a metric.
        _ = ControlAPIMetrics.bootstrap()
        var logger = Logger(label: "sportsensord")
        logger.logLevel = level
        if let tcp = configuration.tcpListen, !tcp.isLoopback {
            logger.warning(
                """
                the control API listens on \(tcp) beyond this machine: anyone who can reach it and holds the token \
                controls the gateway; under the installed unit IPAddressAllow=localhost refuses other hosts
                """,
                metadata: ["api.tcp_listen": "\(tcp)"])
        }

        let bluetooth = await Self.bluetooth(configuration: configuration, logger: logger)
        var application = GatewayApplication(
            configuration: configuration, bluetooth: bluetooth,
            makeVirtualSensors: { sensors, clock, sensorLogger in
                try VirtualSensorFleet(
                    configuration: sensors, clock: clock, logger: sensorLogger,
                    makeBearers: {
                        let (near, far) = try SeqPacketBearer.socketPair(label: "virtual")
                        return (near, far)
                    })
            },
            makeControlServer: Self.controlServer, version: Self.version, logger: logger)
        application.makeWebServer = Self.webServer
        try Self.secureStateDirectory(application.stateDirectory, logger: logger)
        do {
            try await application.run()
        } catch {
            logger.critical("sportsensord stopped: \(error)")
            throw ExitCode(EXIT_FAILURE)
        }
    }

    /// Creates the state directory, or tightens one its owner left writable by others to 0750 and
    /// says so; one that is shared (sticky, like /tmp) or another user's is a configuration error
    /// (78) naming the fix.
    static func secureStateDirectory(_ directory: StateDirectory, logger: Logger) throws {
        do {
            guard FileManager.default.fileExists(atPath: directory.path) else { return try directory.create() }
            if case .tightened(let mode) = try directory.secure() {
                logger.warning(
                    "the state directory was writable by other users (mode \(String(mode, radix: 8))): tightened it to 0750",
                    metadata: ["store.directory": "\(directory.path)"])
            }
        } catch {
            logger.critical(
                "refusing the state directory: \(error.message)",
                metadata: ["store.directory": "\(directory.path)"])
            throw ExitCode(ConfigurationError.exitStatus)
        }
    }

    /// The Bluetooth side: the configured adapters (all adapters when none is named, including
    /// those plugged in later) as the kernel reports them coming and going, one L2CAP connector
    /// per adapter behind a queue that lets one LE connection attempt at a time through, and
    /// discovery through the kernel's mgmt interface on the first usable adapter; nil when the
    /// kernel has no Bluetooth, or only virtual sensors run and no adapter is configured.
    static func bluetooth(configuration: GatewayConfiguration, logger: Logger) async -> BluetoothSupport? {
        let all: [HCIAdapter]
        do {
            all = try await HCIAdapter.listOnDedicatedThread()
        } catch {
            if configuration.virtualSensors.count == 0 || !configuration.adapters.isEmpty {
                logger.warning("no Bluetooth: \(error)")
            }
            return nil
        }
        let named = configuration.adapters
        if named.isEmpty, configuration.virtualSensors.count > 0 { return nil }
        for name in named where !all.contains(where: { $0.name == name }) {
            logger.warning("adapter \(name) does not exist (yet): check `hciconfig` or the adapters setting")
        }
        let chosen = { @Sendable (adapters: [HCIAdapter]) in
            adapters.filter { named.isEmpty || named.contains($0.name) }
        }
        let known = KnownAdapters()
        return BluetoothSupport(
            adapterChanges: {
                AsyncStream { continuation in
                    let task = Task {
                        // Link parameters are reported per adapter for as long as it is there.
                        var monitors: [String: LELinkParameterMonitor] = [:]
                        do {
                            for try await listing in HCIAdapterWatch.changes(logger: logger) {
                                let adapters = chosen(listing)
                                known.byName.withLockedValue { known in
                                    known = Dictionary(adapters.map { ($0.name, $0) }) { _, last in last }
                                }
                                for adapter in adapters where adapter.isUp && monitors[adapter.name] == nil {
                                    monitors[adapter.name] = linkParameterMonitor(
                                        adapter: adapter, links: known, logger: logger)
                                }
                                for name in Array(monitors.keys)
                                where !adapters.contains(where: { $0.name == name && $0.isUp }) {
                                    monitors.removeValue(forKey: name)?.close()
                                }
                                continuation.yield(
                                    adapters.map { AdapterInfo(name: $0.name, address: "\($0.address)", up: $0.isUp) })
                            }
                        } catch {
                            logger.error("the adapter watch ended: \(error)")
                        }
                        for monitor in monitors.values { monitor.close() }
                        continuation.finish()
                    }
                    continuation.onTermination = { _ in task.cancel() }
                }
            },
            makeConnector: { info in
                guard let adapter = known.byName.withLockedValue({ $0[info.name] }) else {
                    return ClosureSensorConnector { _ in
                        throw AdapterPoolError(code: .adapterGone, message: "\(info.name) is gone")
                    }
                }
                let connector = L2CAPConnector(adapter: adapter, logger: logger)
                return QueuedSensorConnector(
                    inner: ClosureSensorConnector { address in try await connector.connect(to: address) },
                    adapterName: adapter.name, clock: ContinuousClock(), isAdapterFault: isAdapterFault,
                    logger: logger)
            },
            scan: { seconds in
                let usable = known.byName.withLockedValue { $0.values.filter(\.isUp).sorted { $0.index < $1.index } }
                guard let scanner = usable.first else {
                    throw TransportError(
                        code: .adapterDown, message: "no adapter is powered: `btmgmt --index 0 power on`")
                }
                return try await scan(adapter: scanner, seconds: seconds, logger: logger)
            },
            linkParameters: { address in known.links.withLockedValue { $0[address.octets] } })
    }

    /// Logs the parameters each sensor link on `adapter` actually got (the controller's choice within
    /// the kernel's requested range), so an admin can check the interval against the sensors'
    /// notification rate (Docs/OPERATIONS.md). Nil, with a notice, when the raw HCI socket cannot
    /// be opened; the gateway works without it.
    static func linkParameterMonitor(
        adapter: HCIAdapter, links: KnownAdapters, logger: Logger
    ) -> LELinkParameterMonitor? {
        do {
            return try LELinkParameterMonitor.start(adapterIndex: adapter.index, logger: logger) { report in
                switch report {
                case .connected(let peer, true, let parameters), .updated(let peer, true, let parameters):
                    links.links.withLockedValue { links in
                        links[peer.octets] = LinkParametersInfo(
                            intervalMs: Double(parameters.intervalUnits) * 1.25,
                            peripheralLatency: Int(parameters.peripheralLatency),
                            supervisionTimeoutMs: Double(parameters.supervisionTimeoutUnits) * 10)
                    }
                    logger.info(
                        "LE link to \(peer) on \(adapter.name): \(parameters)",
                        metadata: [
                            "ble.address": "\(peer)", "ble.adapter": "\(adapter.name)",
                            "ble.interval_ms": "\(Double(parameters.intervalUnits) * 1.25)",
                            "ble.latency": "\(parameters.peripheralLatency)",
                        ])
                case .connected, .updated:
                    break
                }
            }
        } catch {
            logger.notice("link parameters of \(adapter.name) are not reported: \(error)")
            return nil
        }
    }

    /// Whether a failed connection attempt was the adapter's doing (the kernel or the controller
    /// refused to try), which pauses the adapter's next attempt; a sensor that does not answer is not.
    @Sendable static func isAdapterFault(_ error: any Error) -> Bool {
        guard let error = error as? TransportError else { return false }
        return error.code == .adapterBusy || error.code == .connectionLimit
    }

    /// Discovers for `seconds` through the kernel on `adapter`, one entry per advertiser (the
    /// latest name and RSSI). When another program (bluetoothd) discovers, its results count.
    static func scan(adapter: HCIAdapter, seconds: Double, logger: Logger) async throws -> [DiscoveryInfo] {
        let table = DiscoveryTable()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
            group.addTask {
                for try await discovery in MgmtDiscovery.discover(adapterIndex: adapter.index, logger: logger) {
                    let key = "\(discovery.address)"
                    table.entries.withLockedValue { seen in
                        let previous = seen[key]
                        seen[key] = DiscoveryInfo(
                            address: key, addressType: "\(discovery.address.kind)",
                            name: discovery.name ?? previous?.name,
                            rssi: discovery.rssi.map(Int.init) ?? previous?.rssi,
                            isSduSensor: discovery.isSDUSensor || previous?.isSduSensor == true,
                            adapter: adapter.name)
                    }
                }
            }
            // The timer ends first (or the scan fails, which is thrown).
            try await group.next()
            group.cancelAll()
        }
        return table.entries.withLockedValue { Array($0.values) }
    }
}

/// The adapters the watch last reported, by name (what a new connector and a scan use), and the
/// parameters of their links.
final class KnownAdapters: Sendable {
    let byName = NIOLockedValueBox<[String: HCIAdapter]>([:])
    /// What the controllers gave each central link, by the peer's octets.
    let links = NIOLockedValueBox<[[UInt8]: LinkParametersInfo]>([:])
}

/// What a scan has seen so far, by address.
final class DiscoveryTable: Sendable {
    let entries = NIOLockedValueBox<[String: DiscoveryInfo]>([:])
}

extension Sportsensord {
    /// The control API on the gateway's socket (and on TCP when configured), signalling readiness
    /// once it listens.
    @Sendable static func controlServer(_ context: ControlServerContext) throws -> any Service {
        let tcp = try context.tcpListen.map { address throws -> ControlServerConfiguration.TCP in
            guard let token = context.token, !token.isEmpty else {
                throw ConfigurationError(
                    .invalidValue, file: "the configuration", key: "api.token",
                    message: "a TCP listener needs a bearer token",
                    fix: "set api.token in the configuration, or remove api.tcp_listen")
            }
            return ControlServerConfiguration.TCP(host: address.host, port: address.port, bearerToken: token)
        }
        return ControlServer(
            services: context.services,
            configuration: ControlServerConfiguration(
                socketPath: context.socketPath, tcp: tcp, maxConnections: context.maxConnections),
            logger: context.logger, onListening: { _ in context.onListening() })
    }
}

extension Sportsensord {
    /// The coach's dashboard on `[web] listen` (Docs/DASHBOARD.md).
    @Sendable static func webServer(_ context: WebServerContext) throws -> any Service {
        let web = context.web
        let tls = web.tlsCertificate.flatMap { certificate in web.tlsKey.map { (certificate: certificate, key: $0) } }
        if !web.listen.isLoopback {
            context.logger.notice(
                """
                the web dashboard serves the LAN on \(web.listen): under the installed unit, allow the hall's network \
                with the drop-in in Docs/DASHBOARD.md (IPAddressAllow=)
                """,
                metadata: ["web.listen": "\(web.listen)"])
        }
        return WebServer(
            services: context.services,
            configuration: WebServerConfiguration(
                host: web.listen.host, port: web.listen.port, tls: tls,
                usersFile: web.usersFile ?? DashboardUsersFile(stateDirectory: context.stateDirectory).path,
                sessionLifetime: Double(web.sessionHours) * 3600, bearerToken: context.token,
                maxConnections: context.maxConnections, trustedProxies: web.trustedProxies),
            logger: Logger(label: "sportsensord.web"))
    }
}
