// SPDX-License-Identifier: GPL-2.0-or-later
import Glibc
import Logging
import NIOConcurrencyHelpers
import SystemCalls
import SystemPackage

/// A message socket (a raw HCI socket) and the one I/O thread that reads it: what ``HCISocket`` is
/// built on (bearers share a ``SocketReactor`` instead).
///
/// - **Reading.** The thread sleeps in `poll(2)`, without a timeout, on the socket and a
///   ``WakeSignal``, and reads one message per readiness with `recv(MSG_DONTWAIT | MSG_TRUNC)`.
///   `POLLHUP` and `POLLERR` wake it like `POLLIN`; `recv` then returns 0 or the socket's error,
///   so the end of a link is reported as soon as the kernel knows it. A message longer than the
///   receive capacity (`MSG_TRUNC` makes `recv` return the real length) is dropped with a
///   warning, never delivered truncated.
/// - **One closer.** The lock guards the state only; no `recv`, `send` or `close` runs under it.
///   A send is admitted under the lock and counted in flight until `send(2)` returns. The thread
///   alone reads and, after ``close()`` or the end of reading, claims the close: with no send in
///   flight it closes the socket itself, else the last send to return does. No call can reach a
///   descriptor number the kernel has handed to someone else. ``waitForExit()`` returns once the
///   socket and the eventfd are closed.
/// - **Scripts.** The thread starts with ``startDedicatedThread(named:_:)``, so a
///   ``SyscallScript`` installed when the socket is adopted applies to the thread's calls too.
///
/// The thread keeps the object alive until it has closed the descriptors. It alone holds the
/// callbacks, so they may refer to the owner without making a reference cycle.
final class PolledSocket: Sendable {
    /// How reading ended, when not by ``close()``.
    enum Ending: Sendable {
        /// `recv` returned 0: the peer (or the kernel) closed the connection.
        case endOfFile
        /// `poll` or `recv` (the `syscall`) failed with this errno.
        case failed(syscall: String, Errno)
    }

    private let socket: Int32
    private let wake: WakeSignal
    private let descriptor = NIOLockedValueBox(SocketCloseState())
    private let exit = ExitLatch()
    private let sendMessage: @Sendable (Int32, [UInt8]) -> Result<Int, Errno>

    /// Takes ownership of `socket` and starts its I/O thread.
    ///
    /// - Parameters:
    ///   - socket: a connected message socket; closed by this object, also when this throws.
    ///   - label: names the thread.
    ///   - receiveCapacity: the longest message delivered.
    ///   - logger: where dropped messages are logged.
    ///   - onMessage: called on the I/O thread with each message, outside the lock.
    ///   - onEnd: called on the I/O thread, at most once, when reading ends other than by
    ///     ``close()``; the socket is still open during the call, so a last message can be sent.
    /// - Throws: ``TransportError`` when the wake-up eventfd cannot be created (`EMFILE`...).
    init(
        adopting socket: Int32,
        label: String,
        receiveCapacity: Int,
        logger: Logger,
        onMessage: @escaping @Sendable ([UInt8]) -> Void,
        onEnd: @escaping @Sendable (Ending) -> Void,
        sendMessage: @escaping @Sendable (Int32, [UInt8]) -> Result<Int, Errno> = sendWithoutBlocking
    ) throws(TransportError) {
        self.sendMessage = sendMessage
        do throws(TransportError) {
            wake = try WakeSignal()
        } catch {
            closeDescriptor(socket)
            throw error
        }
        self.socket = socket
        startDedicatedThread(named: label) { [self] in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: receiveCapacity, alignment: 8)
            defer { buffer.deallocate() }
            if let ending = readLoop(into: buffer, logger: logger, onMessage: onMessage) { onEnd(ending) }
            closeOnce()
        }
    }

    /// Sends one message without blocking (`MSG_DONTWAIT | MSG_NOSIGNAL`: a dead link is
    /// `EPIPE`, never `SIGPIPE`).
    ///
    /// - Returns: the bytes sent or the errno; nil once ``close()`` was called or reading ended.
    func send(_ message: [UInt8]) -> Result<Int, Errno>? {
        // Outside the lock: the in-flight count keeps the socket open until this returns.
        descriptor.sendAdmitted({ sendMessage(socket, message) }, thenClose: finishClose)
    }

    /// Asks the thread to close the descriptors and returns without waiting; later sends return
    /// nil. Safe to call more than once, from any thread.
    func close() {
        let isFirst = descriptor.withLockedValue { $0.requestClose() }
        if isFirst { wake.signal() }
    }

    /// Waits until the thread has closed both descriptors.
    func waitForExit() async {
        await exit.wait()
    }

    // MARK: - I/O thread

    /// Reads until closed (nil) or the end of the connection.
    private func readLoop(
        into buffer: UnsafeMutableRawBufferPointer, logger: Logger, onMessage: ([UInt8]) -> Void
    ) -> Ending? {
        var fds = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if case .failure(let errno) = pollOnce(&fds, timeout: { -1 }) { return .failed(syscall: "poll", errno) }
            if fds[1].revents != 0 { return nil }
            if fds[0].revents == 0 { continue }
            // close() was called: nothing more is delivered. Only this thread closes the socket,
            // so `recv` needs no lock.
            if descriptor.withLockedValue({ $0.isClosing }) { return nil }
            let received = syscall("recv") {
                Glibc.recv(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_TRUNC))
            }
            switch received {
            case .success(0):
                return .endOfFile
            case .success(let length) where length > buffer.count:
                logger.warning(
                    "dropped a message longer than the receive buffer",
                    metadata: ["message.length": "\(length)", "buffer.capacity": "\(buffer.count)"])
            case .success(let length):
                onMessage(Array(buffer[..<length]))
            case .failure(.resourceTemporarilyUnavailable):
                continue
            case .failure(let errno):
                return .failed(syscall: "recv", errno)
            }
        }
    }

    /// Claims the close when reading has ended: now with no send in flight, else the last send
    /// closes (see the type's notes). Sends are refused from here on.
    private func closeOnce() {
        let closesNow = descriptor.withLockedValue { $0.claimClose() }
        if closesNow { finishClose() }
    }

    /// The one `close(2)` of the socket, by whoever claimed it under the lock, then the eventfd
    /// (whose own counter lets a late ``close()`` signal safely) and the waiters.
    private func finishClose() {
        closeDescriptor(socket)
        wake.close()
        exit.open()
    }
}
