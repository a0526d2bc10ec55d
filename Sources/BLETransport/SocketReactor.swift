// SPDX-License-Identifier: GPL-2.0-or-later
import CBlueZ
import Glibc
import Logging
import NIOConcurrencyHelpers
import SystemCalls
import SystemPackage

/// One thread that reads every registered message socket: it sleeps in `epoll_wait(2)` on all of
/// them and on a wake-up `eventfd`, and hands each message to its socket's callback on that
/// thread. The daemon's bearers share ``shared()``, so a notification costs one wake-up of one
/// thread, however many sensors are connected, instead of waking each bearer's own thread.
///
/// - **Registering** (``register(adopting:label:receiveCapacity:logger:onMessage:onEnd:)``) adds
///   the socket to the `epoll` set from the caller's thread, under a token that is never reused,
///   so an event can never be taken for a later socket with the same descriptor number.
/// - **Fairness.** `epoll` is level-triggered; each ready socket is read with one `recvmmsg` of
///   at most 16 messages, then the next one's turn comes, and a socket with more waiting is reported again.
/// - **Closing.** ``ReactorSocket/close()`` queues the socket and wakes the thread, which removes
///   it from the set and closes it after the current round: only this thread closes sockets, and
///   a callback never runs after its socket's close was requested.
/// - **Scripts.** The thread starts with ``startDedicatedThread(named:_:)``, so a reactor made
///   under a ``SyscallScript`` runs its `epoll_wait`, `recvmmsg` and `close` calls under it; the shared
///   reactor is made without one, whatever the task that first asks for it.
///
/// A reactor's thread runs until ``shutDown()``; the shared one runs as long as the process.
public final class SocketReactor: Sendable {
    /// Messages read from one socket before the next ready socket's turn.
    static let messagesPerTurn = 16
    /// The longest message any socket may ask for (``SeqPacketBearer/receiveCapacity`` is 4096).
    static let largestReceiveCapacity = 65_536
    private static let wakeToken: UInt64 = 0
    private static let sharedReactor = NIOLockedValueBox<SocketReactor?>(nil)

    private struct State {
        var sockets: [UInt64: ReactorSocket] = [:]
        var closing: [ReactorSocket] = []
        var nextToken: UInt64 = 1
        var isShuttingDown = false
    }

    private let epoll: Int32
    private let wake: WakeSignal
    private let state = NIOLockedValueBox(State())
    private let exit = ExitLatch()

    /// Creates the `epoll` set and the eventfd and starts the thread.
    ///
    /// - Parameter label: names the thread.
    /// - Throws: ``TransportError`` when `epoll_create1` or `eventfd` fails (`EMFILE`...).
    public init(label: String = "socket-reactor") throws(TransportError) {
        let epoll = try syscall("epoll_create1") { cbz_epoll_create() }.transportValue("epoll_create1")
        let wake: WakeSignal
        do throws(TransportError) {
            wake = try WakeSignal()
        } catch {
            closeDescriptor(epoll)
            throw error
        }
        if case .failure(let errno) = syscall(
            "epoll_ctl", { cbz_epoll_add_readable(epoll, wake.descriptor, Self.wakeToken) })
        {
            wake.close()
            closeDescriptor(epoll)
            throw TransportError(syscall: "epoll_ctl", errno: errno)
        }
        self.epoll = epoll
        self.wake = wake
        startDedicatedThread(named: label) { [self] in run() }
    }

    /// The reactor the daemon's bearers share, started on first use (without the caller's
    /// ``SyscallScript``). A new one is started if the last one stopped.
    ///
    /// - Throws: ``TransportError`` when it cannot be started (`EMFILE`...).
    public static func shared() throws(TransportError) -> SocketReactor {
        let outcome = sharedReactor.withLockedValue { reactor -> Result<SocketReactor, TransportError> in
            if let reactor, !reactor.state.withLockedValue({ $0.isShuttingDown }) { return .success(reactor) }
            #if DEBUG
            let made = SyscallScript.$current.withValue(nil) {
                Result { () throws(TransportError) in try SocketReactor(label: "bearer-reactor") }
            }
            #else
            let made = Result { () throws(TransportError) in try SocketReactor(label: "bearer-reactor") }
            #endif
            if case .success(let started) = made { reactor = started }
            return made
        }
        return try outcome.get()
    }

    /// How many sockets are registered and not yet closed.
    public var socketCount: Int { state.withLockedValue { $0.sockets.count } }

    /// Ends every socket's reading as if its peer had closed, closes the sockets, then the `epoll`
    /// set and the eventfd, and returns when the thread has ended. Later registrations fail with
    /// `closed`.
    public func shutDown() async {
        let sockets = state.withLockedValue { state in
            state.isShuttingDown = true
            return Array(state.sockets.values)
        }
        for socket in sockets {
            socket.abandon(.endOfFile)
            socket.close()
        }
        wake.signal()
        await exit.wait()
    }

    /// Takes ownership of `descriptor` and reads it on the reactor's thread.
    ///
    /// - Parameters:
    ///   - descriptor: a connected message socket; closed by the reactor, also when this throws.
    ///   - receiveCapacity: the longest message delivered (at most 64 KiB).
    ///   - logger: where dropped messages are logged.
    ///   - onMessage: called on the reactor's thread with each message, outside every lock, as a
    ///     slice of the reactor's receive buffer (see ``ReactorSocket/readReady(into:limit:)``).
    ///   - onEnd: called on the reactor's thread, at most once, when reading ends other than by
    ///     ``ReactorSocket/close()``; the socket is still open during the call.
    ///   - sendMessage: makes one non-blocking send (tests hold a send in it to close meanwhile).
    /// - Throws: ``TransportError`` when `epoll_ctl` fails, or `closed` after ``shutDown()``.
    func register(
        adopting descriptor: Int32, receiveCapacity: Int, logger: Logger,
        onMessage: @escaping @Sendable (ArraySlice<UInt8>) -> Void,
        onEnd: @escaping @Sendable (ReactorSocket.Ending) -> Void,
        sendMessage: @escaping @Sendable (Int32, [UInt8]) -> Result<Int, Errno> = sendWithoutBlocking
    ) throws(TransportError) -> ReactorSocket {
        let token: UInt64? = state.withLockedValue { state in
            guard !state.isShuttingDown else { return nil }
            defer { state.nextToken += 1 }
            return state.nextToken
        }
        guard let token else {
            closeDescriptor(descriptor)
            throw TransportError(
                code: .closed, message: "the socket reactor was shut down: no socket can be read through it any more")
        }
        let socket = ReactorSocket(
            descriptor: descriptor, token: token, reactor: self,
            receiveCapacity: min(receiveCapacity, Self.largestReceiveCapacity), logger: logger,
            onMessage: onMessage, onEnd: onEnd, sendMessage: sendMessage)
        state.withLockedValue { $0.sockets[token] = socket }
        let added = syscall("epoll_ctl") { cbz_epoll_add_readable(epoll, descriptor, token) }
        if case .failure(let errno) = added {
            state.withLockedValue { _ = $0.sockets.removeValue(forKey: token) }
            socket.closeDescriptorOnce()
            throw TransportError(syscall: "epoll_ctl", errno: errno)
        }
        return socket
    }

    /// Queues `socket` to be closed by the thread after its current round.
    func requestClose(_ socket: ReactorSocket) {
        state.withLockedValue { $0.closing.append(socket) }
        wake.signal()
    }

    // MARK: - The thread

    private func run() {
        // One receive buffer for every socket, reused: messages go out as slices of it.
        var buffer = [UInt8](repeating: 0, count: Self.largestReceiveCapacity)
        var ready = [cbz_epoll_ready](repeating: cbz_epoll_ready(), count: Int(cbz_epoll_wait_capacity))
        var failure: Errno?
        while true {
            let waited = ready.withUnsafeMutableBufferPointer { ready in
                syscall("epoll_wait", output: UnsafeMutableRawBufferPointer(ready)) {
                    cbz_epoll_wait(epoll, ready.baseAddress, Int32(ready.count), -1)
                }
            }
            guard case .success(let count) = waited else {
                if case .failure(let errno) = waited { failure = errno }
                break
            }
            for index in 0..<min(Int(count), ready.count) {
                let token = ready[index].token
                if token == Self.wakeToken {
                    wake.drain()
                    continue
                }
                // Nil for a socket retired earlier in this round.
                guard let socket = state.withLockedValue({ $0.sockets[token] }) else { continue }
                if !socket.readReady(into: &buffer, limit: Self.messagesPerTurn) { retire(socket) }
            }
            let closing = state.withLockedValue { state in
                defer { state.closing.removeAll() }
                return state.closing
            }
            for socket in closing { retire(socket) }
            if state.withLockedValue({ $0.isShuttingDown && $0.sockets.isEmpty }) { break }
        }
        if let failure {
            // Nothing can be read any more: every socket ends with the error.
            let sockets = state.withLockedValue { state in
                state.isShuttingDown = true
                return Array(state.sockets.values) + state.closing
            }
            for socket in sockets {
                socket.abandon(.failed(syscall: "epoll_wait", failure))
                retire(socket)
            }
        }
        closeDescriptor(epoll)
        wake.close()
        exit.open()
    }

    /// Removes `socket` from the set and closes it (idempotent).
    private func retire(_ socket: ReactorSocket) {
        let wasRegistered = state.withLockedValue { $0.sockets.removeValue(forKey: socket.token) != nil }
        // A failed removal changes nothing: closing the descriptor removes it from the set.
        if wasRegistered { _ = syscall("epoll_ctl") { cbz_epoll_remove(epoll, socket.descriptor) } }
        socket.closeDescriptorOnce()
    }
}
