// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import Logging
import Synchronization
import SystemPackage

/// An ``ATTBearer`` over a connected `SOCK_SEQPACKET` socket: one ATT PDU per message.
///
/// In production the socket is an L2CAP LE socket on the ATT channel (CID 4); in tests it is one
/// end of an `AF_UNIX` `SOCK_SEQPACKET` socket pair. Both keep message boundaries, so one `recv`
/// is one PDU and one `send` is one PDU.
///
/// ## Design
///
/// - **Reading on the reactor's thread.** The bearer registers its socket with a
///   ``SocketReactor`` (``SocketReactor/shared()`` unless one is given): one thread for every
///   bearer, asleep in `epoll_wait(2)` on all their sockets, that reads each ready socket with
///   `recvmmsg(MSG_DONTWAIT)`, up to 16 messages a call. Blocking never happens on Swift's cooperative thread
///   pool. Received PDUs go into an unbounded in-memory queue that ``receive()`` drains; ATT
///   traffic is a few kilobytes per second, so the queue stays small, and a fast reader keeps the
///   kernel's socket buffer empty so the peer never stalls.
/// - **Synchronous delivery.** Once ``deliverSynchronously(to:)`` installed a handler (the GATT
///   client does), PDUs skip the queue: the reactor's thread hands each one to the handler, the
///   PDUs queued before first, then the end of the flow, so a notification costs no task switch.
/// - **Link loss is seen at once.** `epoll` reports `EPOLLHUP`/`EPOLLERR` as soon as the kernel
///   knows, and the reactor then calls `recvmmsg`, which returns an empty message (peer closed: ``receive()`` returns
///   nil) or the socket's error (``receive()`` throws a ``TransportError``, `linkLost` for
///   `ECONNRESET`, `ENOTCONN`, `ECONNABORTED`, `EHOSTDOWN` and `ETIMEDOUT`, the supervision
///   timeout; see ``TransportError/init(onLink:errno:)``). There is no polling interval, so the latency is the kernel's own
///   (for Bluetooth, the link supervision timeout), never an extra second.
/// - **Sending without blocking.** ``send(_:)`` calls `send(MSG_DONTWAIT | MSG_NOSIGNAL)` from the
///   calling task; if the socket buffer is full (`EAGAIN`), it sleeps asynchronously with a short
///   exponential backoff (50 µs to 5 ms) and tries again. `MSG_NOSIGNAL` turns a write to a dead
///   link into `EPIPE` instead of `SIGPIPE`.
/// - **Closing.** ``close()`` ends the queue (pending and later ``receive()`` calls return nil at
///   once), asks the reactor to close the socket and waits until it has. Only the reactor's
///   thread closes descriptors, exactly once, after removing the socket from its `epoll` set;
///   `send` and that close happen under one lock, so no call can reach a descriptor number the
///   kernel has already handed to someone else. ``close()`` may be called any number of times,
///   from any task, concurrently with ``receive()`` and ``send(_:)``.
/// - **Oversized messages.** `recvmmsg` is called with `MSG_TRUNC`, which makes it report a
///   message's real length; a message longer than ``receiveCapacity`` (far above the largest ATT
///   PDU, 517 bytes) is dropped with a warning instead of being delivered truncated.
///
/// Dropping the last reference without calling ``close()`` also closes the socket, but
/// asynchronously; call ``close()`` to know when the descriptors are gone.
public final class SeqPacketBearer: ATTBearer {
    /// The largest message delivered; longer ones are dropped. ATT PDUs are at most 517 bytes.
    public static let receiveCapacity = 4096

    private let inbox: Inbox
    private let socket: ReactorSocket

    /// Takes ownership of a connected `SOCK_SEQPACKET` socket and reads it on `reactor`.
    ///
    /// The bearer closes `descriptor`; the caller must not use or close it afterwards, also not
    /// when this initializer throws (it closes the socket then).
    ///
    /// - Parameters:
    ///   - descriptor: a connected `SOCK_SEQPACKET` socket (L2CAP LE on CID 4, or `AF_UNIX`).
    ///   - label: names the log messages, e.g. the peer's address.
    ///   - logger: where the bearer logs dropped messages.
    ///   - reactor: the thread that reads the socket; nil for ``SocketReactor/shared()``.
    /// - Throws: ``TransportError`` when the reactor cannot be started or take the socket
    ///   (`EMFILE`, `ENOSPC`...).
    public init(
        adopting descriptor: FileDescriptor,
        label: String = "att-bearer",
        logger: Logger = Logger(label: "sportsensord.transport"),
        reactor: SocketReactor? = nil
    ) throws(TransportError) {
        var logger = logger
        logger[metadataKey: "ble.bearer"] = "\(label)"
        let inbox = Inbox()
        self.inbox = inbox
        let chosen: SocketReactor
        if let reactor {
            chosen = reactor
        } else {
            do throws(TransportError) {
                chosen = try SocketReactor.shared()
            } catch {
                closeDescriptor(descriptor.rawValue)
                throw error
            }
        }
        socket = try chosen.register(
            adopting: descriptor.rawValue, receiveCapacity: Self.receiveCapacity, logger: logger,
            onMessage: { pdu in inbox.deliver(pdu) },
            onEnd: { ending in inbox.finish(Self.ending(of: ending)) }
        )
    }

    deinit {
        inbox.finish(.closedLocally)
        socket.close()
    }

    /// Sends one PDU as one message.
    ///
    /// - Throws: ``TransportError`` `closed` after ``close()``, `linkLost` once the peer closed or
    ///   the link failed, `invalidPDU` for an empty PDU or one above the link's MTU;
    ///   `CancellationError` if the task is cancelled while the socket buffer is full.
    public func send(_ pdu: [UInt8]) async throws {
        guard !pdu.isEmpty else {
            throw TransportError(
                code: .invalidPDU, message: "refusing to send an empty PDU: every ATT PDU has an opcode")
        }
        var backoff: UInt64 = 50_000
        while try !trySend(pdu) {
            try await Task.sleep(nanoseconds: backoff)
            backoff = min(backoff * 2, 5_000_000)
        }
    }

    /// Waits for the next PDU.
    ///
    /// Several tasks may wait at once; each PDU goes to one of them, in the order they started
    /// waiting.
    ///
    /// - Returns: the next PDU, or nil after the peer closed the link (once every PDU received
    ///   before that was returned) or after ``close()`` (undelivered PDUs are discarded).
    /// - Throws: ``TransportError`` (`linkLost`, `timedOut`...) when the link failed, every time
    ///   it is called afterwards; `CancellationError` if the waiting task is cancelled.
    public func receive() async throws -> [UInt8]? {
        try await inbox.receive()
    }

    /// Hands every PDU not yet received, and then the end of the flow, to `handler` on the
    /// reactor's thread: the GATT client's way to handle notifications without a task switch.
    /// PDUs queued before the call are handed over first, in order.
    ///
    /// - Returns: true (``receive()`` must not be called afterwards).
    public func deliverSynchronously(to handler: @escaping @Sendable (ATTBearerInput) -> Void) -> Bool {
        inbox.handOver(to: handler)
        return true
    }

    /// Closes the link and waits until the socket is closed. A pending ``receive()`` returns nil
    /// immediately; later ``send(_:)`` calls throw `closed`. Safe to call more than once.
    public func close() async {
        inbox.finish(.closedLocally)
        socket.close()
        await socket.waitForExit()
    }

    /// Sends without blocking: true when sent, false when the socket buffer is full.
    private func trySend(_ pdu: [UInt8]) throws(TransportError) -> Bool {
        switch socket.send(pdu) {
        case nil:
            throw inbox.endedError()
        case .success(let sent) where sent == pdu.count:
            return true
        case .success(let sent):
            throw TransportError(
                code: .system,
                message:
                    "the socket sent \(sent) of \(pdu.count) bytes of one message: it is not a SOCK_SEQPACKET socket"
            )
        case .failure(.resourceTemporarilyUnavailable):
            return false
        case .failure(let errno):
            throw TransportError(onLink: "send", errno: errno)
        }
    }

    /// How the flow of PDUs ends when reading ends.
    private static func ending(of ending: ReactorSocket.Ending) -> Ending {
        switch ending {
        case .endOfFile: .peerClosed
        case .failed(let syscall, let errno) where syscall == "recvmmsg":
            .failed(TransportError(onLink: syscall, errno: errno))
        case .failed(let syscall, let errno):
            .failed(TransportError(syscall: syscall, errno: errno))
        }
    }
}

// MARK: - The received PDUs

extension SeqPacketBearer {
    /// How the flow of PDUs ended.
    enum Ending {
        case closedLocally
        case peerClosed
        case failed(TransportError)
    }

    /// Received PDUs and the tasks waiting for them, shared by the bearer's callers and its I/O
    /// thread.
    final class Inbox: Sendable {
        private struct State {
            var pdus = PDUQueue()
            var waiters: [(id: UInt64, continuation: CheckedContinuation<[UInt8]?, any Error>)] = []
            var ending: Ending?
            var nextWaiterID: UInt64 = 0
            /// Takes every PDU once installed; nil again after it was handed the end.
            var handler: (@Sendable (ATTBearerInput) -> Void)?
            /// While the PDUs queued before the handler are handed to it, new ones queue behind
            /// them, so the handler sees every PDU in order and never two at once.
            var isHandingOver = false
        }

        private let state = Mutex(State())

        /// The error a send gets after the flow of PDUs ended.
        func endedError() -> TransportError {
            switch state.withLock({ $0.ending }) {
            case .failed(let error):
                return error
            case .peerClosed:
                return TransportError(
                    code: .linkLost,
                    message: "the peer closed the link: reconnect to send again"
                )
            case .closedLocally, nil:
                return TransportError(
                    code: .closed,
                    message: "the bearer was closed by this process: open a new connection to send again"
                )
            }
        }

        func receive() async throws -> [UInt8]? {
            let id = state.withLock { state in
                state.nextWaiterID += 1
                return state.nextWaiterID
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    enum Immediate {
                        case pdu([UInt8]?)
                        case error(any Error)
                        case wait
                    }
                    let immediate: Immediate = state.withLock { state in
                        if let pdu = state.pdus.popFirst() { return .pdu(pdu) }
                        switch state.ending {
                        case .closedLocally, .peerClosed: return .pdu(nil)
                        case .failed(let error): return .error(error)
                        case nil: break
                        }
                        // Checked under the lock the cancellation handler takes: either the
                        // handler already ran (and this sees the cancellation) or it will find
                        // this waiter.
                        if Task.isCancelled { return .error(CancellationError()) }
                        state.waiters.append((id, continuation))
                        return .wait
                    }
                    switch immediate {
                    case .pdu(let pdu): continuation.resume(returning: pdu)
                    case .error(let error): continuation.resume(throwing: error)
                    case .wait: break
                    }
                }
            } onCancel: {
                let cancelled = state.withLock { state in
                    state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
                }
                cancelled?.resume(throwing: CancellationError())
            }
        }

        /// Installs `handler` and hands it the PDUs queued so far (see
        /// ``SeqPacketBearer/deliverSynchronously(to:)``).
        func handOver(to handler: @escaping @Sendable (ATTBearerInput) -> Void) {
            var batch = state.withLock { state in
                state.handler = handler
                state.isHandingOver = true
                return state.pdus.removeAllReturning()
            }
            while true {
                for pdu in batch { handler(.pdu(pdu[...])) }
                let (more, ending): ([[UInt8]], Ending?) = state.withLock { state in
                    let more = state.pdus.removeAllReturning()
                    guard more.isEmpty else { return (more, nil) }
                    state.isHandingOver = false
                    guard let ending = state.ending, state.handler != nil else { return ([], nil) }
                    state.handler = nil
                    return ([], ending)
                }
                if let ending { handler(Self.input(ending)) }
                guard !more.isEmpty else { return }
                batch = more
            }
        }

        private static func input(_ ending: Ending) -> ATTBearerInput {
            if case .failed(let error) = ending { return .ended(error) }
            return .ended(nil)
        }

        // MARK: Called by the reactor's thread

        /// `pdu` is a slice of the reactor's receive buffer: the handler gets it as it is, a queue
        /// or a waiting task a copy (a kept slice would make the reactor copy its whole buffer).
        func deliver(_ pdu: ArraySlice<UInt8>) {
            enum Recipient {
                case none
                case waiter(CheckedContinuation<[UInt8]?, any Error>)
                case handler(@Sendable (ATTBearerInput) -> Void)
            }
            let recipient: Recipient = state.withLock { state in
                guard state.ending == nil else { return .none }
                if let handler = state.handler, !state.isHandingOver { return .handler(handler) }
                if state.waiters.isEmpty || state.handler != nil {
                    state.pdus.append(Array(pdu))
                    return .none
                }
                return .waiter(state.waiters.removeFirst().continuation)
            }
            switch recipient {
            case .none: break
            case .waiter(let waiter): waiter.resume(returning: Array(pdu))
            case .handler(let handler): handler(.pdu(pdu))
            }
        }

        /// Records how the flow ended (a local close overrides an earlier ending and discards
        /// undelivered PDUs) and wakes every waiting receiver, or tells the handler.
        func finish(_ ending: Ending) {
            typealias Waiters = [(id: UInt64, continuation: CheckedContinuation<[UInt8]?, any Error>)]
            let (waiters, handler) = state.withLock { state -> (Waiters, (@Sendable (ATTBearerInput) -> Void)?) in
                if case .closedLocally = ending {
                    state.pdus.removeAll()
                } else if state.ending != nil {
                    return ([], nil)
                }
                state.ending = ending
                // While handing over, handOver(to:) passes the ending on after the queued PDUs.
                var handler: (@Sendable (ATTBearerInput) -> Void)?
                if !state.isHandingOver {
                    handler = state.handler
                    state.handler = nil
                }
                defer { state.waiters.removeAll() }
                return (state.waiters, handler)
            }
            handler?(Self.input(ending))
            for waiter in waiters {
                if case .failed(let error) = ending {
                    waiter.continuation.resume(throwing: error)
                } else {
                    waiter.continuation.resume(returning: nil)
                }
            }
        }
    }
}

/// A first-in first-out queue of PDUs with O(1) amortized append and removal.
struct PDUQueue {
    private var storage: [[UInt8]] = []
    private var head = 0

    mutating func append(_ pdu: [UInt8]) {
        storage.append(pdu)
    }

    mutating func popFirst() -> [UInt8]? {
        guard head < storage.count else { return nil }
        let pdu = storage[head]
        storage[head] = []
        head += 1
        if head > 64 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return pdu
    }

    mutating func removeAll() {
        storage.removeAll()
        head = 0
    }

    /// Removes and returns every queued PDU, first to last.
    mutating func removeAllReturning() -> [[UInt8]] {
        guard head < storage.count else { return [] }
        defer { removeAll() }
        return Array(storage[head...])
    }
}
