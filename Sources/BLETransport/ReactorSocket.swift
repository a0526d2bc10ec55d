// SPDX-License-Identifier: GPL-2.0-or-later
import CBlueZ
import Glibc
import Logging
import NIOConcurrencyHelpers
import SystemCalls
import SystemPackage

/// A message socket read by a ``SocketReactor``: what ``SeqPacketBearer`` is built on.
///
/// - **Reading.** The reactor's thread calls ``readReady(into:limit:)`` when `epoll` reports the
///   socket readable (or hung up, or failed), which reads up to `limit` messages with one
///   `recvmmsg(MSG_DONTWAIT | MSG_TRUNC)`: one system call per wake-up, not one per message plus
///   the one that finds `EAGAIN`. A zero-length message (end of file) or an error ends reading at
///   once; a message longer than the receive capacity (`MSG_TRUNC` makes the kernel report the
///   real length) is dropped with a warning, never delivered truncated.
/// - **One close, never under a send.** The socket is closed once, after the reactor removed it
///   from the `epoll` set (after ``close()`` or the end of reading). The lock guards only the
///   state, never a system call: ``send(_:)`` registers itself as in flight under the lock, then
///   sends without it; a close that finds sends in flight leaves the `close(2)` to the last of
///   them. So the descriptor number stays this socket's until no send is between its check and
///   its call, and no call can reach a number the kernel has handed to someone else; `recvmmsg`
///   runs on the reactor's thread, which stops reading a socket before it closes it.
///   ``waitForExit()`` returns once the socket is closed.
final class ReactorSocket: Sendable {
    /// How reading ended, when not by ``close()``: the same as a ``PolledSocket``'s.
    typealias Ending = PolledSocket.Ending

    /// The socket.
    let descriptor: Int32
    /// What the reactor's `epoll` set knows the socket by; never reused.
    let token: UInt64
    private let receiveCapacity: Int
    private let logger: Logger
    private let onMessage: @Sendable (ArraySlice<UInt8>) -> Void
    private let onEnd: @Sendable (Ending) -> Void
    private let sendMessage: @Sendable (Int32, [UInt8]) -> Result<Int, Errno>
    private let reactor: SocketReactor
    private let state = NIOLockedValueBox(SocketCloseState())
    private let exit = ExitLatch()

    init(
        descriptor: Int32, token: UInt64, reactor: SocketReactor, receiveCapacity: Int, logger: Logger,
        onMessage: @escaping @Sendable (ArraySlice<UInt8>) -> Void, onEnd: @escaping @Sendable (Ending) -> Void,
        sendMessage: @escaping @Sendable (Int32, [UInt8]) -> Result<Int, Errno> = sendWithoutBlocking
    ) {
        self.descriptor = descriptor
        self.token = token
        self.reactor = reactor
        self.receiveCapacity = receiveCapacity
        self.logger = logger
        self.onMessage = onMessage
        self.onEnd = onEnd
        self.sendMessage = sendMessage
    }

    /// Sends one message without blocking (`MSG_DONTWAIT | MSG_NOSIGNAL`: a dead link is
    /// `EPIPE`, never `SIGPIPE`).
    ///
    /// - Returns: the bytes sent or the errno; nil once ``close()`` was called or reading ended.
    func send(_ message: [UInt8]) -> Result<Int, Errno>? {
        // Outside the lock: the in-flight count keeps the descriptor open until this returns.
        state.sendAdmitted({ sendMessage(descriptor, message) }, thenClose: finishClose)
    }

    /// Asks the reactor to close the socket and returns without waiting; later sends return nil
    /// and nothing more is delivered. Safe to call more than once, from any thread.
    func close() {
        let isFirst = state.withLockedValue { $0.requestClose() }
        if isFirst { reactor.requestClose(self) }
    }

    /// Waits until the socket is closed.
    func waitForExit() async {
        await exit.wait()
    }

    // MARK: - On the reactor's thread

    /// Reads the messages waiting, at most `limit` of them (the other sockets' turn comes first,
    /// level-triggered `epoll` reports this one again), with one `recvmmsg(2)` into `buffer`, the
    /// reactor's one receive buffer cut into slots of the receive capacity: each message goes to
    /// `onMessage` as a slice of it, not a copy. A receiver that keeps a slice makes the next read
    /// copy the buffer first (copy-on-write), so nothing it holds is ever overwritten.
    ///
    /// - Returns: false when reading ended (end of file or an error, already reported to
    ///   `onEnd`): the reactor then closes the socket.
    func readReady(into buffer: inout [UInt8], limit: Int) -> Bool {
        let slot = min(buffer.count, receiveCapacity)
        let count = max(1, min(limit, buffer.count / slot, Int(cbz_recv_batch_capacity)))
        // close() was called: the reactor closes the socket after this round.
        guard state.withLockedValue({ !$0.isClosing }) else { return true }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { lengths in
            let received = buffer.withUnsafeMutableBytes { raw in
                syscall("recvmmsg") {
                    cbz_recv_batch(descriptor, raw.baseAddress, slot, Int32(count), lengths.baseAddress)
                }
            }
            switch received {
            case .failure(.resourceTemporarilyUnavailable):
                return true
            case .failure(let errno):
                onEnd(.failed(syscall: "recvmmsg", errno))
                return false
            case .success(let messages):
                for index in 0..<min(Int(messages), count) {
                    if index > 0, state.withLockedValue({ $0.isClosing }) { return true }
                    let length = lengths[index]
                    // A zero-length message is how a message socket reports the peer's close.
                    if length == 0 {
                        onEnd(.endOfFile)
                        return false
                    }
                    guard length <= slot else {
                        logger.warning(
                            "dropped a message longer than the receive buffer",
                            metadata: ["message.length": "\(length)", "buffer.capacity": "\(slot)"])
                        continue
                    }
                    let start = index * slot
                    onMessage(buffer[start..<(start + length)])
                }
                return true
            }
        }
    }

    /// Reports `ending` to `onEnd` unless the socket is closed or closing, for a reactor that
    /// stops reading; the reactor closes the socket next.
    func abandon(_ ending: Ending) {
        if state.withLockedValue({ $0.isDelivering }) { onEnd(ending) }
    }

    /// Closes the socket, once, and wakes the tasks waiting in ``waitForExit()``. The reactor has
    /// removed it from its `epoll` set.
    /// With a send in flight, that send closes it when it returns (see the type's notes).
    func closeDescriptorOnce() {
        let closesNow = state.withLockedValue { $0.claimClose() }
        if closesNow { finishClose() }
    }

    /// The one `close(2)`, by whoever claimed it under the lock, then the waiters.
    private func finishClose() {
        closeDescriptor(descriptor)
        exit.open()
    }
}
