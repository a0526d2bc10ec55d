// SPDX-License-Identifier: GPL-2.0-or-later
import CBlueZ
import Foundation
import GATTClient
import Glibc
import Logging
import Synchronization
import SystemCalls
import SystemPackage

/// An ``ATTBearer`` over a connected `SOCK_SEQPACKET` socket: one ATT PDU per message.
///
/// In production the socket is an L2CAP LE socket on the ATT channel (CID 4); in tests it is one
/// end of an `AF_UNIX` `SOCK_SEQPACKET` socket pair. Both keep message boundaries, so one `recv`
/// is one PDU and one `send` is one PDU.
///
/// ## Design
///
/// - **Reading on a dedicated thread.** Each bearer owns one I/O thread that sleeps in `poll(2)`
///   (no timeout) on the socket and a wake-up `eventfd(2)`, then reads with
///   `recv(MSG_DONTWAIT)`. Blocking never happens on Swift's cooperative thread pool. Received
///   PDUs go into an unbounded in-memory queue that ``receive()`` drains; ATT traffic is a few
///   kilobytes per second, so the queue stays small, and a fast reader keeps the kernel's socket
///   buffer empty so the peer never stalls.
/// - **Link loss is seen at once.** `poll` reports `POLLHUP`/`POLLERR` as soon as the kernel
///   knows, and the thread then calls `recv`, which returns 0 (peer closed: ``receive()`` returns
///   nil) or the socket's error (``receive()`` throws a ``TransportError``, `linkLost` for
///   `ECONNRESET`, `ENOTCONN`, `ECONNABORTED`, `EHOSTDOWN` and `ETIMEDOUT`, the supervision
///   timeout; see ``TransportError/init(onLink:errno:)``). There is no polling interval, so the latency is the kernel's own
///   (for Bluetooth, the link supervision timeout), never an extra second.
/// - **Sending without blocking.** ``send(_:)`` calls `send(MSG_DONTWAIT | MSG_NOSIGNAL)` from the
///   calling task; if the socket buffer is full (`EAGAIN`), it sleeps asynchronously with a short
///   exponential backoff (50 µs to 5 ms) and tries again. `MSG_NOSIGNAL` turns a write to a dead
///   link into `EPIPE` instead of `SIGPIPE`.
/// - **Closing.** ``close()`` ends the queue (pending and later ``receive()`` calls return nil at
///   once), writes to the eventfd so the thread leaves `poll`, and waits for the thread to close
///   the socket and the eventfd. Only the I/O thread closes descriptors, exactly once, and every
///   use of the socket (`send`, `recv`, `close`) happens under one lock, so no call can reach a
///   descriptor number the kernel has already handed to someone else. ``close()`` may be called
///   any number of times, from any task, concurrently with ``receive()`` and ``send(_:)``.
/// - **Oversized messages.** `recv` is called with `MSG_TRUNC`, which makes it return a
///   message's real length; a message longer than ``receiveCapacity`` (far above the largest ATT
///   PDU, 517 bytes) is dropped with a warning instead of being delivered truncated.
///
/// Dropping the last reference without calling ``close()`` also stops the thread and closes the
/// socket, but asynchronously; call ``close()`` to know when the descriptors are gone.
public final class SeqPacketBearer: ATTBearer {
    /// The largest message delivered; longer ones are dropped. ATT PDUs are at most 517 bytes.
    public static let receiveCapacity = 4096

    private let core: Core

    /// Takes ownership of a connected `SOCK_SEQPACKET` socket and starts its I/O thread.
    ///
    /// The bearer closes `descriptor`; the caller must not use or close it afterwards, also not
    /// when this initializer throws (it closes the socket then).
    ///
    /// - Parameters:
    ///   - descriptor: a connected `SOCK_SEQPACKET` socket (L2CAP LE on CID 4, or `AF_UNIX`).
    ///   - label: names the I/O thread and the log messages, e.g. the peer's address.
    ///   - logger: where the bearer logs dropped messages.
    /// - Throws: ``TransportError`` when the wake-up eventfd cannot be created (`EMFILE`...).
    public init(
        adopting descriptor: FileDescriptor,
        label: String = "att-bearer",
        logger: Logger = Logger(label: "sportsensord.transport")
    ) throws(TransportError) {
        let wake: Int32
        switch syscall("eventfd", { cbz_eventfd_nonblocking() }) {
        case .success(let fd):
            wake = fd
        case .failure(let errno):
            _ = syscall("close", retryingOnEINTR: false) { Glibc.close(descriptor.rawValue) }
            throw TransportError(syscall: "eventfd", errno: errno)
        }
        var logger = logger
        logger[metadataKey: "ble.bearer"] = "\(label)"
        core = Core(socket: descriptor.rawValue, wake: wake, logger: logger)
        let core = self.core
        #if DEBUG
        let script = SyscallScript.current
        let thread = Thread { SyscallScript.$current.withValue(script) { core.runReader() } }
        #else
        let thread = Thread { core.runReader() }
        #endif
        thread.name = label
        thread.stackSize = 1 << 19
        thread.start()
    }

    deinit {
        core.requestClose()
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
        while try !core.trySend(pdu) {
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
        try await core.receive()
    }

    /// Closes the link and waits until the socket is closed. A pending ``receive()`` returns nil
    /// immediately; later ``send(_:)`` calls throw `closed`. Safe to call more than once.
    public func close() async {
        core.requestClose()
        await core.waitForExit()
    }
}

// MARK: - Shared state of a bearer and its I/O thread

extension SeqPacketBearer {
    /// How the flow of PDUs ended.
    enum Ending {
        case closedLocally
        case peerClosed
        case failed(TransportError)
    }

    /// The state the I/O thread and the bearer's callers share. The thread holds a strong
    /// reference, so it outlives the bearer until the thread has closed the descriptors.
    final class Core: Sendable {
        /// Descriptors, guarded: every use of them happens with this lock held.
        struct Descriptors {
            var isOpen = true
            var isClosing = false
        }

        /// Received PDUs and the tasks waiting for them.
        struct Inbox {
            var pdus = PDUQueue()
            var waiters: [(id: UInt64, continuation: CheckedContinuation<[UInt8]?, any Error>)] = []
            var ending: Ending?
            var nextWaiterID: UInt64 = 0
        }

        /// Whether the I/O thread has finished, and who waits for it.
        struct Exit {
            var hasExited = false
            var waiters: [CheckedContinuation<Void, Never>] = []
        }

        let socket: Int32
        let wake: Int32
        let logger: Logger
        let descriptors = Mutex(Descriptors())
        let inbox = Mutex(Inbox())
        let exit = Mutex(Exit())

        init(socket: Int32, wake: Int32, logger: Logger) {
            self.socket = socket
            self.wake = wake
            self.logger = logger
        }

        // MARK: Called by the bearer

        /// Sends without blocking: true when sent, false when the socket buffer is full.
        func trySend(_ pdu: [UInt8]) throws(TransportError) -> Bool {
            let result: Result<Int, Errno>? = descriptors.withLock { state in
                guard state.isOpen && !state.isClosing else { return nil }
                return pdu.withUnsafeBytes { bytes in
                    syscall("send") {
                        Glibc.send(socket, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                    }
                }
            }
            switch result {
            case nil:
                throw endedError()
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

        /// The error a send gets after the flow of PDUs ended.
        func endedError() -> TransportError {
            switch inbox.withLock({ $0.ending }) {
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
            let id = inbox.withLock { state in
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
                    let immediate: Immediate = inbox.withLock { state in
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
                let cancelled = inbox.withLock { state in
                    state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
                }
                cancelled?.resume(throwing: CancellationError())
            }
        }

        /// Ends the queue, asks the thread to stop, and returns without waiting.
        func requestClose() {
            finish(.closedLocally)
            descriptors.withLock { state in
                guard state.isOpen && !state.isClosing else { return }
                state.isClosing = true
                var one: UInt64 = 1
                // A full eventfd (EAGAIN) still wakes the thread, so the result does not matter.
                _ = syscall("write") { Glibc.write(wake, &one, MemoryLayout<UInt64>.size) }
            }
        }

        func waitForExit() async {
            await withCheckedContinuation { continuation in
                let hasExited = exit.withLock { state in
                    if !state.hasExited { state.waiters.append(continuation) }
                    return state.hasExited
                }
                if hasExited { continuation.resume() }
            }
        }

        // MARK: Called by the I/O thread

        func deliver(_ pdu: [UInt8]) {
            let waiter: CheckedContinuation<[UInt8]?, any Error>? = inbox.withLock { state in
                guard state.ending == nil else { return nil }
                if state.waiters.isEmpty {
                    state.pdus.append(pdu)
                    return nil
                }
                return state.waiters.removeFirst().continuation
            }
            waiter?.resume(returning: pdu)
        }

        /// Records how the flow ended (a local close overrides an earlier ending and discards
        /// undelivered PDUs) and wakes every waiting receiver.
        func finish(_ ending: Ending) {
            let waiters = inbox.withLock { state in
                if case .closedLocally = ending {
                    state.pdus.removeAll()
                } else if state.ending != nil {
                    return [(id: UInt64, continuation: CheckedContinuation<[UInt8]?, any Error>)]()
                }
                state.ending = ending
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters {
                if case .failed(let error) = ending {
                    waiter.continuation.resume(throwing: error)
                } else {
                    waiter.continuation.resume(returning: nil)
                }
            }
        }

        /// The I/O thread's body: poll, read, deliver, until closed or the link ends; then
        /// close both descriptors and signal the waiters of ``waitForExit()``.
        func runReader() {
            let buffer = UnsafeMutableRawBufferPointer.allocate(
                byteCount: SeqPacketBearer.receiveCapacity, alignment: 8)
            defer { buffer.deallocate() }
            readLoop(into: buffer)
            descriptors.withLock { state in
                _ = syscall("close", retryingOnEINTR: false) { Glibc.close(socket) }
                _ = syscall("close", retryingOnEINTR: false) { Glibc.close(wake) }
                state.isOpen = false
            }
            let waiters = exit.withLock { state in
                state.hasExited = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }

        private func readLoop(into buffer: UnsafeMutableRawBufferPointer) {
            var fds = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            while true {
                fds[0].revents = 0
                fds[1].revents = 0
                let polled = fds.withUnsafeMutableBufferPointer { fds in
                    syscall("poll") { Glibc.poll(fds.baseAddress, nfds_t(fds.count), -1) }
                }
                if case .failure(let errno) = polled {
                    finish(.failed(TransportError(syscall: "poll", errno: errno)))
                    return
                }
                if fds[1].revents != 0 { return }
                if fds[0].revents == 0 { continue }
                // Under the lock, so close() cannot interleave; MSG_DONTWAIT keeps it short.
                let received: Result<Int, Errno>? = descriptors.withLock { state in
                    guard !state.isClosing else { return nil }
                    return syscall("recv") {
                        Glibc.recv(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_TRUNC))
                    }
                }
                switch received {
                case nil:
                    return
                case .success(0):
                    finish(.peerClosed)
                    return
                case .success(let length) where length > buffer.count:
                    logger.warning(
                        "dropped a message longer than the receive buffer",
                        metadata: ["pdu.length": "\(length)", "buffer.capacity": "\(buffer.count)"]
                    )
                case .success(let length):
                    deliver(Array(buffer[..<length]))
                case .failure(.resourceTemporarilyUnavailable):
                    continue
                case .failure(let errno):
                    finish(.failed(TransportError(onLink: "recv", errno: errno)))
                    return
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
}
