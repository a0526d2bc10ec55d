// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CodedErrors
import GATTClient
import Logging
import NIOConcurrencyHelpers

/// A connector that lets one connection attempt at a time through to the connector it wraps
/// (one per adapter): callers wait their turn first come, first served, each attempt is
/// cancelled after a timeout, and attempts pause after the adapter itself refused one.
/// ``ConnectionAttemptQueue`` is the policy; this type performs its actions.
///
/// Waiting for the turn honours task cancellation (the request leaves the queue), as does the
/// attempt itself (it is cancelled).
public final class QueuedSensorConnector<Inner: SensorConnector, C: Clock>: SensorConnector, Sendable
where C.Duration == Duration {
    /// The policy this connector follows.
    public typealias Queue = ConnectionAttemptQueue<C.Instant>

    private struct Pending {
        var turn: CheckedContinuation<Void, any Error>?
        var attempt: Task<any ATTBearer, any Error>?
        var callerCancelled = false
        var timedOut = false
    }

    private struct State {
        var queue: Queue
        var nextID: Queue.RequestID = 1
        var pending: [Queue.RequestID: Pending] = [:]
        var timer: Task<Void, Never>?
    }

    /// What to do once the lock is released.
    private struct Effects {
        var granted: [CheckedContinuation<Void, any Error>] = []
        var refused: [CheckedContinuation<Void, any Error>] = []
        var cancels: [Task<any ATTBearer, any Error>] = []
    }

    /// The connector each attempt goes to.
    public let inner: Inner
    /// Names the adapter in log lines and errors.
    public let adapterName: String
    private let clock: C
    private let isAdapterFault: @Sendable (any Error) -> Bool
    private let logger: Logger
    private let state: NIOLockedValueBox<State>

    /// Queues attempts to `inner`.
    ///
    /// - Parameters:
    ///   - inner: the adapter's connector.
    ///   - adapterName: the adapter, for messages (`hci0`).
    ///   - configuration: timeout and backoff.
    ///   - clock: measures the timeout and the backoff.
    ///   - isAdapterFault: whether a failed attempt was the adapter's fault (the kernel or the
    ///     controller refused to try), which pauses the following attempts.
    ///   - logger: where waits and timeouts are logged.
    public init(
        inner: Inner, adapterName: String, configuration: Queue.Configuration = Queue.Configuration(), clock: C,
        isAdapterFault: @escaping @Sendable (any Error) -> Bool = { _ in false },
        logger: Logger = Logger(label: "sportsensord.connect-queue")
    ) {
        self.inner = inner
        self.adapterName = adapterName
        self.clock = clock
        self.isAdapterFault = isAdapterFault
        self.logger = logger
        state = NIOLockedValueBox(State(queue: Queue(configuration: configuration)))
    }

    /// How many callers wait for their turn, and whether an attempt runs (for status and tests).
    public var load: (waiting: Int, inFlight: Bool) {
        state.withLockedValue { ($0.queue.waiting.count, $0.queue.inFlight != nil) }
    }

    /// Waits for this adapter's turn, then connects through the inner connector.
    ///
    /// - Throws: ``ConnectionQueueError`` `timedOut` when the attempt ran past the timeout,
    ///   `CancellationError` when the task was cancelled while waiting, or the inner connector's
    ///   error.
    public func connect(to address: BluetoothAddress) async throws -> any ATTBearer {
        let id = state.withLockedValue { state in
            defer { state.nextID += 1 }
            state.pending[state.nextID] = Pending()
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                perform { state, now, effects in
                    if state.pending[id]?.callerCancelled == true {
                        state.pending[id] = nil
                        effects.refused.append(turn)
                        return []
                    }
                    state.pending[id]?.turn = turn
                    return state.queue.enqueue(id, at: now)
                }
            }
        } onCancel: {
            self.withdraw(id)
        }
        let attempt = state.withLockedValue { state in
            let task = Task { try await self.inner.connect(to: address) }
            var pending = state.pending[id] ?? Pending()
            pending.attempt = task
            // Cancelled, or timed out, between the turn and this line.
            if pending.callerCancelled || pending.timedOut { task.cancel() }
            state.pending[id] = pending
            return task
        }
        do {
            let bearer = try await withTaskCancellationHandler {
                try await attempt.value
            } onCancel: {
                self.withdraw(id)
            }
            finish(id, outcome: .connected)
            return bearer
        } catch {
            let timedOut = state.withLockedValue { $0.pending[id]?.timedOut == true }
            finish(id, outcome: isAdapterFault(error) ? .failedByAdapter : .failed)
            guard timedOut else { throw error }
            let timeout = state.withLockedValue { $0.queue.configuration.attemptTimeout }
            logger.warning(
                "connection attempt timed out",
                metadata: ["ble.address": "\(address)", "ble.adapter": "\(adapterName)"])
            throw ConnectionQueueError(
                code: .timedOut,
                message: "the connection to \(address) through \(adapterName) did not come up within \(timeout): "
                    + "is the sensor switched on and in range? The link retries by itself",
                cause: error)
        }
    }

    // MARK: - Driving the queue

    /// The caller's task was cancelled: leave the queue, or cancel the running attempt.
    private func withdraw(_ id: Queue.RequestID) {
        perform { state, now, effects in
            // No entry: the attempt already ended.
            guard var pending = state.pending[id] else { return [] }
            pending.callerCancelled = true
            if let turn = pending.turn {
                // Still waiting: its turn never comes.
                pending.turn = nil
                effects.refused.append(turn)
                state.pending[id] = nil
            } else {
                state.pending[id] = pending
            }
            return state.queue.withdraw(id, at: now)
        }
    }

    private func finish(_ id: Queue.RequestID, outcome: Queue.Outcome) {
        perform { state, now, _ in
            state.pending[id] = nil
            return state.queue.attemptEnded(id, outcome: outcome, at: now)
        }
    }

    private func timerFired() {
        perform { state, now, _ in state.queue.timerFired(at: now) }
    }

    /// Runs one event and the queue's actions under the lock, then grants turns and cancels
    /// attempts outside it.
    private func perform(_ event: (inout State, C.Instant, inout Effects) -> [Queue.Action]) {
        let now = clock.now
        let effects = state.withLockedValue { state in
            var effects = Effects()
            for action in event(&state, now, &effects) {
                switch action {
                case .start(let id):
                    if let turn = state.pending[id]?.turn {
                        state.pending[id]?.turn = nil
                        effects.granted.append(turn)
                    }
                case .cancel(let id):
                    guard var pending = state.pending[id] else { break }
                    if !pending.callerCancelled { pending.timedOut = true }
                    state.pending[id] = pending
                    if let attempt = pending.attempt { effects.cancels.append(attempt) }
                case .setTimer(let instant):
                    state.timer?.cancel()
                    state.timer = instant.map(makeTimer)
                }
            }
            return effects
        }
        for turn in effects.granted { turn.resume() }
        for turn in effects.refused { turn.resume(throwing: CancellationError()) }
        for attempt in effects.cancels { attempt.cancel() }
    }

    private func makeTimer(_ deadline: C.Instant) -> Task<Void, Never> {
        let clock = self.clock
        return Task { [weak self] in
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return
            }
            self?.timerFired()
        }
    }
}

/// A failure of the connection queue itself.
public struct ConnectionQueueError: CodedError, Sendable {
    /// What kind of failure.
    public enum Code: String, NamedCode {
        /// The attempt ran past the queue's timeout and was cancelled.
        case timedOut
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do.
    public var message: String
    /// The inner connector's error after the cancellation.
    public var cause: (any Error)?
}
