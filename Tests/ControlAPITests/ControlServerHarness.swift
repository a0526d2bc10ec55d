// SPDX-License-Identifier: GPL-2.0-or-later
import ControlAPI
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import Logging
import ServiceLifecycle

/// The harness could not run the server.
struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs a `ControlServer` in a `ServiceGroup` for one test: waits until every listener
/// accepts connections, runs the test, then shuts the group down gracefully and waits for it.
struct ControlServerHarness {
    /// A fresh socket path in a directory that does not exist yet.
    static func temporarySocketPath() -> String {
        "/tmp/ssd-\(UUID().uuidString.prefix(8).lowercased())/control.sock"
    }

    /// Where the listeners ended up.
    struct Listening: Sendable {
        var socketPath: String
        var tcpPort: Int?
        var group: ServiceGroup
    }

    /// Removes the directory `temporarySocketPath()` made up, and what is left in it.
    static func removeDirectory(of socketPath: String) {
        try? FileManager.default.removeItem(atPath: (socketPath as NSString).deletingLastPathComponent)
    }

    /// Runs `body` while a server over `services` with `configuration` listens; removes the
    /// socket's directory afterwards.
    static func with<T: Sendable>(
        _ services: GatewayServices, configuration: ControlServerConfiguration,
        _ body: @Sendable (Listening) async throws -> T
    ) async throws -> T {
        defer { removeDirectory(of: configuration.socketPath) }
        let expected = configuration.tcp == nil ? 1 : 2
        let (listeners, reporter) = AsyncStream<ControlServer.Listener>.makeStream()
        let server = ControlServer(
            services: services, configuration: configuration, logger: Logger(label: "test.control"),
            onListening: { reporter.yield($0) })
        let group = ServiceGroup(services: [server], logger: Logger(label: "test.control"))
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                defer { reporter.finish() }
                try await group.run()
                return nil
            }
            var listening = Listening(socketPath: configuration.socketPath, tcpPort: nil, group: group)
            var seen = 0
            for await listener in listeners {
                if case .tcp(_, let port) = listener { listening.tcpPort = port }
                seen += 1
                if seen == expected { break }
            }
            if seen < expected {
                for try await _ in tasks {}  // surfaces the server's error
                throw HarnessFailure(description: "the server stopped before it listened")
            }
            do {
                let value = try await body(listening)
                await group.triggerGracefulShutdown()
                for try await _ in tasks {}
                return value
            } catch {
                // Drain rather than cancel: cancelling a NIO server while accepted connections
                // are still queued traps in NIOAsyncWriter's deinit and would take every other
                // test's result down with this one failure.
                await group.triggerGracefulShutdown()
                while (try? await tasks.next()) != nil {}
                throw error
            }
        }
    }
}
