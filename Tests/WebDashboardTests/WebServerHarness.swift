// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import Logging
import ServiceLifecycle

@testable import WebDashboard

/// The harness could not run the dashboard.
struct WebHarnessFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs a `WebServer` on a free loopback port in a `ServiceGroup` for one test: waits until it
/// listens, runs the test with the port, then shuts the group down gracefully and waits for it.
enum WebServerHarness {
    static func with<T: Sendable>(
        _ services: GatewayServices, configuration: WebServerConfiguration,
        _ body: @Sendable (_ port: Int) async throws -> T
    ) async throws -> T {
        let (ports, reporter) = AsyncStream<Int>.makeStream()
        let server = WebServer(
            services: services, configuration: configuration, logger: Logger(label: "test.web"),
            onListening: { reporter.yield($0) })
        let group = ServiceGroup(services: [server], logger: Logger(label: "test.web"))
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                defer { reporter.finish() }
                try await group.run()
                return nil
            }
            var bound: Int?
            for await port in ports {
                bound = port
                break
            }
            guard let port = bound else {
                for try await _ in tasks {}  // surfaces the server's error
                throw WebHarnessFailure(description: "the dashboard stopped before it listened")
            }
            do {
                let value = try await body(port)
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
