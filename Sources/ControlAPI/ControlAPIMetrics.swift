// SPDX-License-Identifier: GPL-2.0-or-later
import CoreMetrics
import GatewayCore
import Metrics
import NIOConcurrencyHelpers
import Prometheus

/// The gateway's Prometheus registry and the swift-metrics backend that feeds it.
///
/// The daemon calls ``bootstrap()`` once at startup, before any service emits a metric; from
/// then on every swift-metrics `Counter`, `Gauge`, `Recorder` and `Timer` in the process lands
/// in ``registry``, which `GET /metrics` renders in the Prometheus text format.
public enum ControlAPIMetrics {
    /// The registry `GET /metrics` renders by default.
    public static let registry = PrometheusCollectorRegistry()

    private static let bootstrapped = NIOLockedValueBox(false)

    /// Installs `PrometheusMetricsFactory(registry:)` as the swift-metrics backend and registers
    /// every series of `GatewayMetrics` at zero. Safe to call more than once: only the first
    /// call bootstraps (swift-metrics allows one bootstrap per process).
    ///
    /// - Returns: true when this call installed the backend, false when an earlier call had.
    @discardableResult
    public static func bootstrap() -> Bool {
        let first = bootstrapped.withLockedValue { done -> Bool in
            if done { return false }
            done = true
            return true
        }
        guard first else { return false }
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        GatewayMetrics().registerAtZero()
        return true
    }

    /// The registry's text exposition (`text/plain; version=0.0.4`).
    static func exposition(of registry: PrometheusCollectorRegistry) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(4096)
        registry.emit(into: &buffer)
        return buffer
    }
}
