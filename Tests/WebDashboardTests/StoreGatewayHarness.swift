// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayConfig
import GatewayCore
import SessionStore

/// Runs a real `Gateway` over a test's own store for the length of `body`, then stops it, also
/// when the body throws, so a failed expectation does not leave the gateway's task running.
enum StoreGatewayHarness {
    static func with<T: Sendable>(
        _ store: SessionStore, directory: String, _ body: (Gateway<ContinuousClock>) async throws -> T
    ) async throws -> T {
        let gateway = Gateway(
            dependencies: GatewayDependencies(
                store: store, stateDirectory: directory, configuration: GatewayConfiguration(),
                clock: ContinuousClock()),
            metrics: GatewayMetrics())
        let running = Task { try await gateway.run() }
        await gateway.waitUntilStarted()
        do {
            let value = try await body(gateway)
            running.cancel()
            try? await running.value
            return value
        } catch {
            running.cancel()
            try? await running.value
            throw error
        }
    }
}
