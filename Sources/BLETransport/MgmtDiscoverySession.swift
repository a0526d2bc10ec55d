// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Logging
import NIOConcurrencyHelpers

/// Performs the actions of one ``MgmtDiscoveryProcedure`` on one mgmt socket (an ``HCISocket`` on
/// the control channel). Every procedure event and the writes it causes happen under one lock, so
/// commands go out in the order the procedure produced them; the stream is fed and finished, and
/// the socket closed, outside the lock.
final class MgmtDiscoverySession<C: Clock>: Sendable where C.Duration == Duration {
    typealias Element = LEDiscovery<C.Instant>
    typealias Procedure = MgmtDiscoveryProcedure<C.Instant>

    private struct State {
        var procedure: Procedure
        var socket: HCISocket?
        var commandTimer: Task<Void, Never>?
        var retryTimer: Task<Void, Never>?
        var droppedCount = 0
    }

    /// What must happen once the lock is released.
    private struct Outcome {
        var discoveries: [Element] = []
        var finish: TransportError??
        var socket: HCISocket?
    }

    private let clock: C
    private let logger: Logger
    private let continuation: AsyncThrowingStream<Element, any Error>.Continuation
    private let state: NIOLockedValueBox<State>

    init(
        procedure: Procedure, clock: C, logger: Logger,
        continuation: AsyncThrowingStream<Element, any Error>.Continuation
    ) {
        self.clock = clock
        var logger = logger
        logger[metadataKey: "hci.adapter"] = "hci\(procedure.adapterIndex)"
        self.logger = logger
        self.continuation = continuation
        state = NIOLockedValueBox(State(procedure: procedure))
    }

    /// Opens the mgmt socket and sends Start Discovery. Failures end the stream.
    func start() {
        let socket: HCISocket
        do throws(TransportError) {
            socket = try HCISocket(
                channel: .control, label: "mgmt-discovery", logger: logger,
                onPacket: { [weak self] packet in self?.received(packet) },
                onEnd: { [weak self] error in self?.transportFailed(error) })
        } catch {
            continuation.finish(throwing: error)
            return
        }
        let outcome = state.withLockedValue { state in
            guard state.procedure.phase == .idle else { return Outcome(socket: socket) }
            state.socket = socket
            return perform(state.procedure.start(), in: &state)
        }
        deliver(outcome)
    }

    /// The consumer stopped iterating or was cancelled.
    func stop() {
        deliver(state.withLockedValue { state in perform(state.procedure.stop(), in: &state) })
    }

    private func received(_ packet: [UInt8]) {
        let now = clock.now
        deliver(state.withLockedValue { state in perform(state.procedure.received(packet, at: now), in: &state) })
    }

    private func transportFailed(_ error: TransportError) {
        deliver(state.withLockedValue { state in perform(state.procedure.transportFailed(error), in: &state) })
    }

    private func commandTimedOut() {
        deliver(state.withLockedValue { state in perform(state.procedure.commandTimedOut(), in: &state) })
    }

    private func retryTimerFired() {
        deliver(state.withLockedValue { state in perform(state.procedure.retryTimerFired(), in: &state) })
    }

    /// Performs actions with the lock held: writes commands in order, arms timers, and collects
    /// what must be delivered after the lock is released.
    private func perform(_ actions: [Procedure.Action], in state: inout State) -> Outcome {
        var outcome = Outcome()
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .send(let command):
                do throws(TransportError) {
                    guard let socket = state.socket else {
                        throw TransportError(code: .closed, message: "the mgmt socket is not open")
                    }
                    try socket.write(command.bytes)
                    if state.procedure.isAwaitingReply {
                        state.commandTimer?.cancel()
                        state.commandTimer = timer(state.procedure.configuration.commandTimeout) {
                            $0.commandTimedOut()
                        }
                    }
                } catch {
                    if state.procedure.phase == .finished {
                        logger.warning(
                            "could not stop the gateway's discovery: the kernel ends it by itself within seconds",
                            metadata: ["hci.error": "\(error)"])
                    } else {
                        queue.append(contentsOf: state.procedure.transportFailed(error))
                    }
                }
            case .scheduleRetry(let delay):
                state.retryTimer?.cancel()
                state.retryTimer = timer(delay) { $0.retryTimerFired() }
            case .started:
                logger.info("LE discovery running through the kernel")
            case .otherDiscoveryActive(let error):
                logger.warning("\(error.message)")
            case .discovered(let discovery):
                outcome.discoveries.append(discovery)
            case .note(let note):
                logger.notice("\(note)")
            case .finish(let error):
                outcome.finish = .some(error)
                outcome.socket = state.socket
                state.socket = nil
                state.commandTimer?.cancel()
                state.retryTimer?.cancel()
                state.commandTimer = nil
                state.retryTimer = nil
            }
        }
        if !state.procedure.isAwaitingReply {
            state.commandTimer?.cancel()
            state.commandTimer = nil
        }
        return outcome
    }

    private func timer(
        _ delay: Duration, _ fire: @escaping @Sendable (MgmtDiscoverySession) -> Void
    ) -> Task<Void, Never> {
        let clock = self.clock
        return Task { [weak self] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            if let self { fire(self) }
        }
    }

    /// Feeds the stream, then ends it and closes the socket if the procedure finished.
    private func deliver(_ outcome: Outcome) {
        for discovery in outcome.discoveries {
            if case .dropped = continuation.yield(discovery) {
                let dropped = state.withLockedValue { state in
                    state.droppedCount += 1
                    return state.droppedCount
                }
                if dropped == 1 || dropped % 1000 == 0 {
                    logger.warning(
                        "the discovery consumer is falling behind: dropped the oldest discoveries",
                        metadata: ["scan.dropped": "\(dropped)"])
                }
            }
        }
        outcome.socket?.close()
        if let finish = outcome.finish {
            if let error = finish {
                logger.error("LE discovery failed", metadata: ["hci.error": "\(error)"])
                continuation.finish(throwing: error)
            } else {
                continuation.finish()
            }
        }
    }
}
