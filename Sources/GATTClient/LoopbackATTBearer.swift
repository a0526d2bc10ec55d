// SPDX-License-Identifier: GPL-2.0-or-later
import Synchronization

/// An in-process ATT bearer: two connected ends that pass whole PDUs to each other in memory.
///
/// The daemon uses it to run virtual sensors without sockets; tests use it where the socket
/// layer is beside the point. Semantics follow an L2CAP ATT socket: message boundaries are kept,
/// order is kept, a closed link returns `nil` from `receive()` on both ends once the PDUs
/// already delivered have been read, and `send` after close throws.
///
/// Each direction holds at most `capacity` undelivered PDUs; a sender beyond that suspends until
/// the receiver catches up, as a real link's flow control would hold a sensor back.
public struct LoopbackATTBearer: ATTBearer {
    /// The error `send` throws on a closed link.
    public struct ClosedError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What failed.
        public var description: String { "the loopback ATT link is closed" }
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

    /// Delivers `pdu` to the other end, suspending while its queue is full.
    public func send(_ pdu: [UInt8]) async throws {
        try await link.send(pdu, to: 1 - side)
    }

    /// The next PDU from the other end; nil once the link is closed and drained.
    public func receive() async throws -> [UInt8]? {
        try await link.receive(at: side)
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
            var head = 0
            var receiver: CheckedContinuation<[UInt8]?, any Error>?
            var senders: [CheckedContinuation<Void, any Error>] = []

            var pending: Int { queue.count - head }

            mutating func pop() -> [UInt8]? {
                guard head < queue.count else { return nil }
                let pdu = queue[head]
                head += 1
                if head > 64 && head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                return pdu
            }
        }

        private struct State {
            var directions = [Direction(), Direction()]
            var closed = false
        }

        private let state = Mutex(State())
        private let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
        }

        func send(_ pdu: [UInt8], to side: Int) async throws {
            while true {
                enum Step {
                    case done
                    case wait
                }
                let step: Step = try state.withLock { state throws -> Step in
                    if state.closed { throw ClosedError() }
                    if let receiver = state.directions[side].receiver {
                        state.directions[side].receiver = nil
                        receiver.resume(returning: pdu)
                        return .done
                    }
                    guard state.directions[side].pending < capacity else { return .wait }
                    state.directions[side].queue.append(pdu)
                    return .done
                }
                if step == .done { return }
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    state.withLock { state in
                        if state.closed || state.directions[side].pending < capacity {
                            continuation.resume()
                        } else {
                            state.directions[side].senders.append(continuation)
                        }
                    }
                }
            }
        }

        func receive(at side: Int) async throws -> [UInt8]? {
            try Task.checkCancellation()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                    state.withLock { state in
                        if let pdu = state.directions[side].pop() {
                            if !state.directions[side].senders.isEmpty {
                                state.directions[side].senders.removeFirst().resume()
                            }
                            continuation.resume(returning: pdu)
                        } else if state.closed {
                            continuation.resume(returning: nil)
                        } else if state.directions[side].receiver != nil {
                            continuation.resume(
                                throwing: ReceiveError(
                                    description: "two concurrent receive() calls on one loopback end"))
                        } else {
                            state.directions[side].receiver = continuation
                        }
                    }
                }
            } onCancel: {
                let waiting = state.withLock { state in
                    defer { state.directions[side].receiver = nil }
                    return state.directions[side].receiver
                }
                waiting?.resume(throwing: CancellationError())
            }
        }

        func close() {
            let (receivers, senders) = state.withLock { state in
                state.closed = true
                let receivers = state.directions.compactMap(\.receiver)
                let senders = state.directions.flatMap(\.senders)
                for index in state.directions.indices {
                    state.directions[index].receiver = nil
                    state.directions[index].senders = []
                }
                return (receivers, senders)
            }
            for receiver in receivers { receiver.resume(returning: nil) }
            for sender in senders { sender.resume(throwing: ClosedError()) }
        }
    }

    private struct ReceiveError: Error, CustomStringConvertible {
        var description: String
    }
}
