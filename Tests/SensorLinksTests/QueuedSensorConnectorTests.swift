// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayTesting
import NIOConcurrencyHelpers
import SensorLinks
import Testing

/// An inner connector whose attempts end when the test says so; it records which attempts ran
/// and how many ran at once.
final class GatedConnector: SensorConnector {
    struct Refused: Error {}

    private struct State {
        var started: [BluetoothAddress] = []
        var running = 0
        var mostRunning = 0
        var gates: [BluetoothAddress: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = NIOLockedValueBox(State())

    var started: [BluetoothAddress] { state.withLockedValue { $0.started } }
    var mostRunning: Int { state.withLockedValue { $0.mostRunning } }

    func connect(to address: BluetoothAddress) async throws -> any ATTBearer {
        let connected = await withTaskCancellationHandler {
            await withCheckedContinuation { (gate: CheckedContinuation<Bool, Never>) in
                state.withLockedValue { state in
                    state.started.append(address)
                    state.running += 1
                    state.mostRunning = max(state.mostRunning, state.running)
                    state.gates[address] = gate
                }
            }
        } onCancel: {
            self.end(address, connected: false)
        }
        state.withLockedValue { $0.running -= 1 }
        try Task.checkCancellation()
        guard connected else { throw Refused() }
        return LoopbackATTBearer.pair().0
    }

    /// Ends the running attempt to `address`, if one runs.
    func end(_ address: BluetoothAddress, connected: Bool) {
        let gate = state.withLockedValue { $0.gates.removeValue(forKey: address) }
        gate?.resume(returning: connected)
    }
}

@Suite("QueuedSensorConnector")
struct QueuedSensorConnectorTests {
    let a = BluetoothAddress(string: "BC:05:00:00:00:01")!
    let b = BluetoothAddress(string: "BC:05:00:00:00:02")!
    let c = BluetoothAddress(string: "BC:05:00:00:00:03")!

    @Test("three sensors: one attempt at a time, in the order they asked")
    func oneAtATime() async throws {
        let inner = GatedConnector()
        let clock = ManualClock()
        let queued = QueuedSensorConnector(inner: inner, adapterName: "hci0", clock: clock)
        let first = Task { try await queued.connect(to: a) }
        try await pollUntil { inner.started == [a] }
        let second = Task { try await queued.connect(to: b) }
        try await pollUntil { queued.load.waiting == 1 }
        let third = Task { try await queued.connect(to: c) }
        try await pollUntil { queued.load.waiting == 2 }
        inner.end(a, connected: false)
        await #expect(throws: GatedConnector.Refused.self) { try await first.value }
        try await pollUntil { inner.started == [a, b] }
        inner.end(b, connected: true)
        _ = try await second.value
        try await pollUntil { inner.started == [a, b, c] }
        inner.end(c, connected: true)
        _ = try await third.value
        #expect(inner.mostRunning == 1)
        #expect(queued.load.waiting == 0 && !queued.load.inFlight)
    }

    @Test("an attempt past the timeout is cancelled with the queue's error, and the next one starts")
    func timeout() async throws {
        let inner = GatedConnector()
        let clock = ManualClock()
        let queued = QueuedSensorConnector(
            inner: inner, adapterName: "hci0", configuration: .init(attemptTimeout: .seconds(15)), clock: clock)
        let first = Task { try await queued.connect(to: a) }
        try await pollUntil { inner.started == [a] }
        let second = Task { try await queued.connect(to: b) }
        try await pollUntil { queued.load.waiting == 1 && clock.sleepers == 1 }
        clock.advance(by: .seconds(15))
        do {
            _ = try await first.value
            Issue.record("the attempt did not time out")
        } catch let error as ConnectionQueueError {
            #expect(error.code == .timedOut)
            #expect(error.message.contains("through hci0 did not come up within 15"))
        }
        try await pollUntil { inner.started == [a, b] }
        inner.end(b, connected: true)
        _ = try await second.value
        #expect(inner.mostRunning == 1)
    }

    @Test("a caller cancelled while waiting leaves the queue; one cancelled while connecting cancels its attempt")
    func cancellation() async throws {
        let inner = GatedConnector()
        let clock = ManualClock()
        let queued = QueuedSensorConnector(inner: inner, adapterName: "hci0", clock: clock)
        let first = Task { try await queued.connect(to: a) }
        try await pollUntil { inner.started == [a] }
        let second = Task { try await queued.connect(to: b) }
        try await pollUntil { queued.load.waiting == 1 }
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(queued.load.waiting == 0)
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(!queued.load.inFlight)
        // The queue still serves.
        let third = Task { try await queued.connect(to: c) }
        try await pollUntil { inner.started == [a, c] }
        inner.end(c, connected: true)
        _ = try await third.value
    }

    @Test("an adapter refusal pauses the next attempt for the backoff")
    func adapterBackoff() async throws {
        let inner = GatedConnector()
        let clock = ManualClock()
        let queued = QueuedSensorConnector(
            inner: inner, adapterName: "hci0",
            configuration: .init(adapterBackoffInitial: .seconds(1), adapterBackoffMaximum: .seconds(4)), clock: clock,
            isAdapterFault: { $0 is GatedConnector.Refused })
        let first = Task { try await queued.connect(to: a) }
        try await pollUntil { inner.started == [a] }
        let second = Task { try await queued.connect(to: b) }
        try await pollUntil { queued.load.waiting == 1 }
        inner.end(a, connected: false)
        await #expect(throws: GatedConnector.Refused.self) { try await first.value }
        // Paused: b waits for one second of the clock.
        try await pollUntil { clock.sleeperDeadlines == [ManualClock.Instant(offset: .seconds(1))] }
        #expect(inner.started == [a] && queued.load.waiting == 1)
        clock.advance(by: .seconds(1))
        try await pollUntil { inner.started == [a, b] }
        inner.end(b, connected: true)
        _ = try await second.value
    }
}
