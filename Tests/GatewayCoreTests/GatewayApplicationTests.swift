// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayConfig
import GatewayCore
import GatewayDaemon
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import SessionStore
import Testing

@Suite("GatewayApplication", .timeLimit(.minutes(5)))
struct GatewayApplicationTests {
    @Test(
        "the whole daemon with 2 virtual sensors: READY=1 once the store is open and the control server listens; cancelling ends cleanly"
    )
    func readiness() async throws {
        let socket = try NotifySocket()
        let directory = socket.directory + "/state"
        var configuration = GatewayConfiguration()
        configuration.stateDirectory = directory
        configuration.socketPath = socket.directory + "/control.sock"
        configuration.virtualSensors.count = 2
        let served = ControlServerProbe()
        var logger = Logger(label: "test.application")
        logger.logLevel = .warning
        let application = GatewayApplication(
            configuration: configuration,
            makeControlServer: { context in
                served.record(context)
                return ListeningProbeService(onListening: context.onListening)
            },
            environment: ["NOTIFY_SOCKET": socket.path], logger: logger)
        #expect(application.socketPath == socket.directory + "/control.sock")
        let running = Task { try await application.run() }
        let ready = try #require(try await socket.next())
        #expect(ready.hasPrefix("READY=1\nSTATUS="))
        #expect(ready.contains("of 2 sensors connected"))
        #expect(FileManager.default.fileExists(atPath: directory + "/" + StateDirectory.databaseFileName))
        let control = try #require(served.context?.services.live)
        #expect(served.context?.socketPath == socket.directory + "/control.sock")
        let sensors = try await control.sensors()
        #expect(sensors.map(\.alias) == ["virtual-1", "virtual-2"])
        #expect(sensors.allSatisfy { $0.isVirtual })
        #expect(sensors.map(\.address) == ["CA:FE:00:00:00:01", "CA:FE:00:00:00:02"])
        running.cancel()
        _ = try? await running.value
    }
}

/// Remembers the context the application handed to its control server.
final class ControlServerProbe: Sendable {
    private let stored = NIOLockedValueBox<ControlServerContext?>(nil)
    func record(_ context: ControlServerContext) { stored.withLockedValue { $0 = context } }
    var context: ControlServerContext? { stored.withLockedValue { $0 } }
}

/// A stand-in control server: says it listens, then waits for shutdown.
struct ListeningProbeService: Service {
    let onListening: @Sendable () -> Void
    func run() async throws {
        onListening()
        try? await gracefulShutdown()
    }
}
