// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEHarness
import BLETransport
import ControlAPI
import Foundation
import GatewayConfig
import GatewayCore
import GatewayDaemon
import Logging

/// `bench-gateway-host`: the gateway `bench-gateway` measures, in a process of its own. It runs the
/// daemon's services (`GatewayApplication` with the control API on its Unix socket) as
/// `sportsensord --virtual-sensors N` would, except that each virtual sensor's link connects out
/// to `--sensor-socket`, where `bench-gateway` serves the emulated sensors: the sensors' work is
/// not in this process's CPU, and the daemon carries no development flag for it.
struct GatewayBenchmarkHost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-gateway-host",
        abstract: "The gateway bench-gateway measures; bench-gateway starts it.",
        shouldDisplay: false)

    @Option(help: "The configuration file.")
    var config: String

    @Option(help: "The state directory.")
    var stateDir: String

    @Option(help: "The control socket path.")
    var socket: String

    @Option(help: "Virtual sensors (virtual-1 … virtual-N), each served over --sensor-socket.")
    var virtualSensors: Int

    @Option(help: "The AF_UNIX SOCK_SEQPACKET socket bench-gateway serves the sensors on.")
    var sensorSocket: String

    @Option(help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "warning"

    func run() async throws {
        // As sportsensord does at start, so that the gateway measured allocates as the daemon does.
        MallocSettings.apply()
        let configuration = try GatewayConfiguration.load(path: config, isExplicit: true).applying(
            GatewayOverrides(
                stateDirectory: stateDir, socketPath: socket, virtualSensors: virtualSensors, logLevel: logLevel))
        let level = Logger.Level(rawValue: configuration.logLevel) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // `/metrics` is what the benchmark reads the samples and notifications from.
        _ = ControlAPIMetrics.bootstrap()
        let path = sensorSocket
        let application = GatewayApplication(
            configuration: configuration,
            makeVirtualSensors: { sensors, _, _ in
                .remote(configuration: sensors) { alias in
                    try SeqPacketBearer.connecting(toUnixSocket: path, hello: Array(alias.utf8), label: alias)
                }
            },
            makeControlServer: { context in
                ControlServer(
                    services: context.services,
                    configuration: ControlServerConfiguration(
                        socketPath: context.socketPath, maxConnections: context.maxConnections),
                    logger: context.logger, onListening: { _ in context.onListening() })
            },
            version: "bench-gateway-host", logger: Logger(label: "bench-gateway-host"))
        try await application.run()
    }
}
