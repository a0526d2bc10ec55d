// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import Logging
import NIOConcurrencyHelpers
import SystemPackage

/// An ``ATTBearer`` over a connected `SOCK_SEQPACKET` socket: one ATT PDU per message.
///
/// In production the socket is an L2CAP LE socket on the ATT channel (CID 4); in tests it is one
/// end of an `AF_UNIX` `SOCK_SEQPACKET` socket pair. Both keep message boundaries, so one `recv`
/// is one PDU and one `send` is one PDU.
///
/// ## Design
///
/// - **Reading on the reactor's thread, handing over on it.** The bearer registers its socket
///   with a ``SocketReactor`` (``SocketReactor/shared()`` unless one is given): one thread for
///   every bearer, asleep in `epoll_wait(2)` on all their sockets, that reads each ready socket
///   with `recvmmsg(MSG_DONTWAIT)`, up to 16 messages a call. Blocking never happens on Swift's
///   cooperative thread pool. Each PDU goes to the handler installed with ``deliver(to:)`` (the
///   GATT client's) on that thread, so a notification costs no task switch; PDUs read before the
///   handler was installed wait in a queue and are handed over first, in order. ATT traffic is a
///   few kilobytes per second and the handler never blocks, so the kernel's socket buffer stays
///   empty and the peer never stalls.
/// - **Link loss is seen at once.** `epoll` reports `EPOLLHUP`/`EPOLLERR` as soon as the kernel
///   knows, and the reactor then calls `recvmmsg`, which returns an empty message (peer closed:
///   the handler gets ``ATTBearerInput/ended(_:)`` with nil) or the socket's error (`ended` with
///   a ``TransportError``, `linkLost` for `ECONNRESET`, `ENOTCONN`, `ECONNABORTED`, `EHOSTDOWN`
///   and `ETIMEDOUT`, the supervision timeout; see ``TransportError/init(onLink:errno:)``). There
///   is no polling interval, so the latency is the kernel's own (for Bluetooth, the link
///   supervision timeout), never an extra second.
/// - **Sending without blocking.** ``send(_:)`` calls `send(MSG_DONTWAIT | MSG_NOSIGNAL)` from the
///   calling task; if the socket buffer is full (`EAGAIN`), it sleeps asynchronously with a short
///   exponential backoff (50 µs to 5 ms) and tries again. `MSG_NOSIGNAL` turns a write to a dead
///   link into `EPIPE` instead of `SIGPIPE`.
/// - **Closing.** ``close()`` ends the flow (undelivered PDUs are discarded and the handler is
///   told the end), asks the reactor to close the socket and waits until it has. Only the reactor's
///   thread closes descriptors, exactly once, after removing the socket from its `epoll` set;
///   `send` and that close happen under one lock, so no call can reach a descriptor number the
///   kernel has already handed to someone else. ``close()`` may be called any number of times,
///   from any task, concurrently with ``send(_:)`` and the handler's calls.
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

    /// Hands every PDU not yet handed over, and then the end of the flow, to `handler` on the
    /// reactor's thread: the GATT client's way to handle notifications without a task switch.
    /// PDUs read before the call are handed over first, in order. Call it once.
    public func deliver(to handler: @escaping @Sendable (ATTBearerInput) -> Void) {
        inbox.handOver(to: handler)
    }

    /// Closes the link and waits until the socket is closed. The handler is told the end (nil)
    /// at once; later ``send(_:)`` calls throw `closed`. Safe to call more than once.
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

    /// The received PDUs' way to the handler, shared by the bearer's callers and the reactor's
    /// thread: a queue until the handler is installed, then the handler.
    final class Inbox: Sendable {
        private struct State {
            var pdus: [[UInt8]] = []
            var ending: Ending?
            /// Takes every PDU once installed; nil again after it was handed the end.
            var handler: Handler?
            /// While the PDUs queued before the handler are handed to it, new ones queue behind
            /// them, so the handler sees every PDU in order and never two at once.
            var isHandingOver = false
        }

        /// The installed handler in a struct: a bare function value read out of the lock's generic
        /// closure is reabstracted on the way, one allocation per PDU on the reactor's thread.
        private struct Handler: Sendable {
            let call: @Sendable (ATTBearerInput) -> Void
        }

        private let state = NIOLockedValueBox(State())

        /// The error a send gets after the flow of PDUs ended.
        func endedError() -> TransportError {
            switch state.withLockedValue({ $0.ending }) {
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

        /// Installs `handler` and hands it the PDUs queued so far (see
        /// ``SeqPacketBearer/deliver(to:)``).
        func handOver(to handler: @escaping @Sendable (ATTBearerInput) -> Void) {
            var batch: [[UInt8]] = state.withLockedValue { state in
                precondition(state.handler == nil, "a bearer has one reader: deliver(to:) was called twice")
                state.handler = Handler(call: handler)
                state.isHandingOver = true
                defer { state.pdus.removeAll() }
                return state.pdus
            }
            while true {
                for pdu in batch { handler(.pdu(pdu[...])) }
                let (more, ending): ([[UInt8]], Ending?) = state.withLockedValue { state in
                    let more = state.pdus
                    state.pdus.removeAll()
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

        /// `pdu` is a slice of the reactor's receive buffer: the handler gets it as it is, the
        /// queue a copy (a kept slice would make the reactor copy its whole buffer).
        func deliver(_ pdu: ArraySlice<UInt8>) {
            let handler: Handler? = state.withLockedValue { state in
                guard state.ending == nil else { return nil }
                if let handler = state.handler, !state.isHandingOver { return handler }
                state.pdus.append(Array(pdu))
                return nil
            }
            handler?.call(.pdu(pdu))
        }

        /// Records how the flow ended (a local close overrides an earlier ending and discards
        /// undelivered PDUs) and tells the handler.
        func finish(_ ending: Ending) {
            let handler = state.withLockedValue { state -> Handler? in
                if case .closedLocally = ending {
                    state.pdus.removeAll()
                } else if state.ending != nil {
                    return nil
                }
                state.ending = ending
                // While handing over, handOver(to:) passes the ending on after the queued PDUs.
                guard !state.isHandingOver else { return nil }
                defer { state.handler = nil }
                return state.handler
            }
            handler?.call(Self.input(ending))
        }
    }
}
