// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayConfig
import GatewayCore
import GatewayTesting
import Logging
import SensorLinks
import SessionStore
import Testing
import VirtualSensor

/// A gateway on a manual clock with real-time virtual sensors over loopback bearers and a store
/// in a temporary directory. `drive(for:)` moves time forward in notification-sized steps, giving
/// the sensors, links and pipelines real time to run between steps, so sample times come out as
/// a real link's would.
final class GatewayBench: Sendable {
    let directory: String
    let store: SessionStore
    let clock = ManualClock()
    let gateway: Gateway<ManualClock>

    init(
        scripts: [MotionScript], motion: MotionOptions = MotionOptions(), autoStart: Bool = false,
        idleStop: Duration? = nil, connectors: [any SensorConnector] = [], linkBudget: Int = 5,
        bluetooth: (@Sendable (ManualClock) throws -> BluetoothSupport)? = nil,
        outOfRange: VirtualSensorsConfiguration.OutOfRange? = nil,
        faults: VirtualSensorConfiguration.Faults = .none, metrics: GatewayMetrics = GatewayMetrics(),
        directory: String? = nil, recorder: SessionRecorder<ManualClock>.Configuration = .init(),
        logger: Logger? = nil
    ) throws {
        self.directory = directory ?? NSTemporaryDirectory() + "gateway-\(UUID().uuidString.prefix(8))"
        store = try SessionStore.open(at: StateDirectory(path: self.directory))
        var configuration = GatewayConfiguration()
        configuration.autoStart = autoStart
        configuration.idleStop = idleStop
        configuration.linkBudget = linkBudget
        configuration.virtualSensors = VirtualSensorsConfiguration(
            count: scripts.count, scripts: scripts, rate: 100, outOfRange: outOfRange)
        let fleet = try VirtualSensorFleet(
            configuration: configuration.virtualSensors, clock: clock, faults: faults, motion: motion)
        var logger = logger ?? Logger(label: "test.gateway")
        logger.logLevel = .warning
        gateway = Gateway(
            dependencies: GatewayDependencies(
                store: store, stateDirectory: self.directory, configuration: configuration, clock: clock,
                bluetooth: try bluetooth?(clock) ?? Self.adapters(connectors), virtualSensors: fleet,
                recorderConfiguration: recorder, logger: logger),
            metrics: metrics)
    }

    /// One powered adapter per connector (`hci0`, `hci1`, …); nil without connectors.
    static func adapters(_ connectors: [any SensorConnector]) -> BluetoothSupport? {
        guard !connectors.isEmpty else { return nil }
        return .fixed(
            connectors.enumerated().map { index, connector in
                (AdapterInfo(name: "hci\(index)", address: "00:1A:7D:DA:71:\(10 + index)", up: true), connector)
            })
    }

    /// Advances the manual clock by `seconds` in 30 ms steps (one notification of 3 samples at
    /// 100 Hz), letting everything run in between.
    func drive(for seconds: Double) async throws {
        let steps = Int((seconds / 0.03).rounded())
        for _ in 0..<steps {
            clock.advance(by: .milliseconds(30))
            try await Task.sleep(for: .microseconds(600))
        }
    }

    /// Drives the clock `step` seconds at a time until `condition` holds, checked before each
    /// step, for at most `limit` seconds of the clock; true when it held. The bound is the
    /// clock's, so a test's "within N s" stays a claim about the gateway, not about the machine.
    func drive(
        step: Double, upTo limit: Double, until condition: () async throws -> Bool
    ) async throws -> Bool {
        var driven = 0.0
        while true {
            if try await condition() { return true }
            guard driven < limit else { return false }
            try await drive(for: step)
            driven += step
        }
    }

    /// Real-time waits (up to `seconds`, 5 by default) until `condition` holds.
    func waitUntil(seconds: Int = 5, _ condition: @Sendable () async throws -> Bool) async throws -> Bool {
        for _ in 0..<(seconds * 100) {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Real-time waits (up to 5 s) until `count` sensors are connected.
    func connected(count: Int) async throws -> Bool {
        try await waitUntil {
            try await gateway.sensors().filter { $0.linkState == .connected }.count == count
        }
    }

    /// Expects `body` to fail with a `ControlError` of `code`; returns it.
    @discardableResult
    static func expectControlError<T>(
        _ code: ControlError.Code, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> T
    ) async -> ControlError? {
        do {
            _ = try await body()
            Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
        } catch let error as ControlError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("expected a ControlError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
