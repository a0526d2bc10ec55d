// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import NIOConcurrencyHelpers

/// An in-process ATT bearer: two connected ends that pass whole PDUs to each other in memory.
///
/// The daemon uses it to run virtual sensors without sockets; tests use it where the socket
/// layer is beside the point. Semantics follow an L2CAP ATT socket: message boundaries are kept,
/// order is kept, a closed link ends both ends' flows once the PDUs already sent have been
/// handed over, and `send` after close throws.
///
/// A PDU is handed to the receiving end's handler (``deliver(to:)``) by the sending task, after
/// the link's lock is released, one at a time: a send while another is handing over queues its
/// PDU behind, and that hand-over passes it on. Before the handler is installed PDUs queue; each
/// direction holds at most `capacity` of them, and a sender beyond that suspends until the
/// handler is installed, as a real link's flow control would hold a sensor back.
public struct LoopbackATTBearer: ATTBearer {
    /// The error `send` throws on a closed link.
    public struct ClosedError: CodedError, Hashable, Sendable {
        /// The one kind: `closed`.
        public enum Code: String, NamedCode { case closed }
        /// `closed`.
        public var code: Code { .closed }
        /// What failed.
        public var message: String { "the loopback ATT link is closed" }
    }

    private let link: Link
    private let side: Int

    /// Creates two connected ends.
    public static func pair(capacity: Int = 1024) -> (LoopbackATTBearer, LoopbackATTBearer) {
        let link = Link(capacity: max(1, capacity))
        return (LoopbackATTBearer(link: link, side: 0), LoopbackATTBearer(link: link, side: 1))
    }

    private init(link: Link, side: Int) {
        self.link = link
        self.side = side
    }

    /// Hands `pdu` to the other end, suspending while its queue is full.
    public func send(_ pdu: [UInt8]) async throws {
        try await link.send(pdu, to: 1 - side)
    }

    /// Hands what the other end sends, then the end of the link, to `handler`.
    public func deliver(to handler: @escaping @Sendable (ATTBearerInput) -> Void) {
        link.install(handler, at: side)
    }

    /// Closes the link for both ends.
    public func close() async {
        link.close()
    }
}

extension LoopbackATTBearer {
    fileprivate final class Link: Sendable {
        private struct Direction {
            var queue: [[UInt8]] = []
            var handler: (@Sendable (ATTBearerInput) -> Void)?
            /// A task is handing queued PDUs to the handler: later sends queue behind them.
            var isHandingOver = false
            var endDelivered = false
            var senders: [CheckedContinuation<Void, any Error>] = []
        }

        private struct State {
            var directions = [Direction(), Direction()]
            var closed = false
        }

        private let state = NIOLockedValueBox(State())
        private let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
        }

        func send(_ pdu: [UInt8], to side: Int) async throws {
            while true {
                enum Step {
                    case queued
                    case handOver
                    case wait
                }
                let step: Step = try state.withLockedValue { state throws -> Step in
                    if state.closed { throw ClosedError() }
                    var direction = state.directions[side]
                    defer { state.directions[side] = direction }
                    if direction.handler == nil {
                        guard direction.queue.count < capacity else { return .wait }
                        direction.queue.append(pdu)
                        return .queued
                    }
                    direction.queue.append(pdu)
                    if direction.isHandingOver { return .queued }
                    direction.isHandingOver = true
                    return .handOver
                }
                switch step {
                case .queued:
                    return
                case .handOver:
                    handOver(at: side)
                    return
                case .wait:
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        state.withLockedValue { state in
                            if state.closed || state.directions[side].handler != nil
                                || state.directions[side].queue.count < capacity
                            {
                                continuation.resume()
                            } else {
                                state.directions[side].senders.append(continuation)
                            }
                        }
                    }
                }
            }
        }

        func install(_ handler: @escaping @Sendable (ATTBearerInput) -> Void, at side: Int) {
            let senders = state.withLockedValue { state in
                precondition(
                    state.directions[side].handler == nil, "a bearer has one reader: deliver(to:) was called twice")
                state.directions[side].handler = handler
                // Nobody hands over before a handler exists: this call hands the queue over.
                state.directions[side].isHandingOver = true
                defer { state.directions[side].senders = [] }
                return state.directions[side].senders
            }
            for sender in senders { sender.resume() }
            handOver(at: side)
        }

        /// Hands the queued PDUs, and the end once closed, to `side`'s handler until none is left;
        /// called by the one task that set `isHandingOver`.
        private func handOver(at side: Int) {
            while true {
                let (batch, handler, end) = state.withLockedValue {
                    state -> ([[UInt8]], (@Sendable (ATTBearerInput) -> Void)?, Bool) in
                    let batch = state.directions[side].queue
                    state.directions[side].queue.removeAll()
                    let handler = state.directions[side].handler
                    guard batch.isEmpty else { return (batch, handler, false) }
                    state.directions[side].isHandingOver = false
                    guard state.closed, !state.directions[side].endDelivered else { return ([], nil, false) }
                    state.directions[side].endDelivered = true
                    return ([], handler, true)
                }
                guard let handler else { return }
                for pdu in batch { handler(.pdu(pdu[...])) }
                if end {
                    handler(.ended(nil))
                    return
                }
            }
        }

        func close() {
            let (handOvers, senders) = state.withLockedValue {
                state -> ([Int], [CheckedContinuation<Void, any Error>]) in
                state.closed = true
                var handOvers: [Int] = []
                var senders: [CheckedContinuation<Void, any Error>] = []
                for side in state.directions.indices {
                    senders += state.directions[side].senders
                    state.directions[side].senders = []
                    // A hand-over under way passes the end on after its PDUs.
                    if state.directions[side].handler != nil, !state.directions[side].isHandingOver,
                        !state.directions[side].endDelivered
                    {
                        state.directions[side].isHandingOver = true
                        handOvers.append(side)
                    }
                }
                return (handOvers, senders)
            }
            for sender in senders { sender.resume(throwing: ClosedError()) }
            for side in handOvers { handOver(at: side) }
        }
    }
}
