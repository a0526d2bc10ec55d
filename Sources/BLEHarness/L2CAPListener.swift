// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import CBlueZ
import Glibc
import Logging
import NIOConcurrencyHelpers
import SystemCalls
import SystemPackage

/// Accepts LE connections on the ATT fixed channel (L2CAP CID 4): the peripheral side of GATT,
/// how the virtual sensor serves a real adapter. BlueZ's own GATT server listens the same way
/// (src/gatt-database.c: `bt_io_listen` with CID 4, `BDADDR_LE_PUBLIC`, security low).
///
/// ## What happens
///
/// - ``init(adapterAddress:backlog:logger:)``: `socket(AF_BLUETOOTH, SOCK_SEQPACKET |
///   SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_L2CAP)`, `bind` to the adapter's address with
///   `l2_cid` 4 and `BDADDR_LE_PUBLIC`, `setsockopt(BT_SECURITY)` low, `listen`. The kernel then
///   hands every incoming LE link's ATT channel to this socket (a central must still find the
///   adapter: something has to advertise, e.g. `btmgmt advertising on`).
/// - ``accept()``: on a dedicated thread, `poll` on the listening socket, the listener's close
///   eventfd and the call's own cancel eventfd; then `accept4(SOCK_CLOEXEC | SOCK_NONBLOCK)`. The
///   accepted socket becomes a ``SeqPacketBearer``; the peer's address and address type come from
///   the `sockaddr_l2` the kernel fills in.
/// - ``close()`` signals the close eventfd, so every pending ``accept()`` returns with `closed`;
///   the listening socket is closed once no accept is using it, so no thread can ever poll a
///   descriptor number the kernel reused. Cancelling the task of one ``accept()`` ends only that
///   call.
public final class L2CAPListener: Sendable {
    /// The adapter address the listener is bound to; nil for every adapter (`BDADDR_ANY`).
    public let adapterAddress: BluetoothAddress?

    private let core: Core

    /// Starts listening for ATT connections.
    ///
    /// - Parameters:
    ///   - adapterAddress: the local adapter's address; nil listens on every adapter.
    ///   - backlog: how many links the kernel queues before ``accept()`` takes them.
    ///   - logger: where accepted connections are logged (metadata `ble.address`).
    /// - Throws: ``TransportError`` (`noBluetoothSupport`, `permissionDenied`, `system` for
    ///   `EADDRINUSE` when another ATT server, such as bluetoothd's, is already bound to the
    ///   adapter...). Nothing is left open then.
    public init(
        adapterAddress: BluetoothAddress? = nil,
        backlog: Int32 = 4,
        logger: Logger = Logger(label: "sportsensord.transport")
    ) throws(TransportError) {
        let socket = try L2CAPSocket.openATTSocket(localAddress: adapterAddress)
        if case .failure(let errno) = syscall("listen", { Glibc.listen(socket, backlog) }) {
            closeDescriptor(socket)
            throw TransportError(syscall: "listen", errno: errno)
        }
        let closing: WakeSignal
        do {
            closing = try WakeSignal()
        } catch {
            closeDescriptor(socket)
            throw error
        }
        self.adapterAddress = adapterAddress
        core = Core(socket: socket, closing: closing, logger: logger)
        logger.info(
            "listening on the ATT channel", metadata: ["ble.adapter": "\(adapterAddress?.description ?? "any")"])
    }

    /// Starts listening on `adapter`.
    public convenience init(
        adapter: HCIAdapter,
        backlog: Int32 = 4,
        logger: Logger = Logger(label: "sportsensord.transport")
    ) throws(TransportError) {
        try self.init(adapterAddress: adapter.address, backlog: backlog, logger: logger)
    }

    deinit {
        core.requestClose()
    }

    /// Waits for the next central to connect.
    ///
    /// Several tasks may wait at once; each connection goes to one of them.
    ///
    /// - Returns: a bearer over the accepted ATT channel (close it when done) and the central's
    ///   address with its type.
    /// - Throws: ``TransportError``: `closed` once ``close()`` was called, `cancelled` when the
    ///   waiting task is cancelled, or the failure of `poll`/`accept` (`tooManyOpenFiles`...).
    public func accept() async throws(TransportError) -> (bearer: SeqPacketBearer, peer: BluetoothAddress) {
        if Task.isCancelled {
            throw TransportError(code: .cancelled, message: "the accept was cancelled before it started")
        }
        try core.beginAccept()
        let cancel: WakeSignal
        do {
            cancel = try WakeSignal()
        } catch {
            core.endAccept()
            throw error
        }
        let core = self.core
        let outcome = await withTaskCancellationHandler {
            await runOnDedicatedThread(named: "l2cap-accept") { core.acceptOnce(cancel: cancel.descriptor) }
        } onCancel: {
            cancel.signal()
        }
        cancel.close()
        core.endAccept()
        switch outcome {
        case .accepted(let descriptor, let peer):
            var logger = core.logger
            logger[metadataKey: "ble.address"] = "\(peer)"
            logger.info("accepted a connection on the ATT channel")
            let bearer = try SeqPacketBearer(
                adopting: FileDescriptor(rawValue: descriptor), label: "\(peer)", logger: logger)
            return (bearer, peer)
        case .failed(let error):
            throw error
        case .closed:
            throw Core.closedError
        case .cancelled:
            throw TransportError(code: .cancelled, message: "the accept was cancelled; the listener stays open")
        }
    }

    /// Stops listening: pending ``accept()`` calls throw `closed`, and this returns once the
    /// listening socket is closed. Accepted bearers stay open. Safe to call more than once.
    public func close() async {
        core.requestClose()
        await core.waitUntilClosed()
    }
}

// MARK: - Shared state of a listener and its accept threads

extension L2CAPListener {
    /// How one accept ended.
    enum AcceptOutcome: Sendable {
        case accepted(Int32, BluetoothAddress)
        case failed(TransportError)
        case closed
        case cancelled
    }

    final class Core: Sendable {
        struct State {
            var isClosing = false
            var isOpen = true
            var activeAccepts = 0
            var closeWaiters: [CheckedContinuation<Void, Never>] = []
        }

        static let closedError = TransportError(
            code: .closed, message: "the listener was closed by this process: open a new one to accept again")

        let socket: Int32
        let closing: WakeSignal
        let logger: Logger
        let state = NIOLockedValueBox(State())

        init(socket: Int32, closing: WakeSignal, logger: Logger) {
            self.socket = socket
            self.closing = closing
            self.logger = logger
        }

        /// Registers an accept in progress; the descriptors stay open until it ends.
        func beginAccept() throws(TransportError) {
            let isClosing = state.withLockedValue { state in
                if !state.isClosing { state.activeAccepts += 1 }
                return state.isClosing
            }
            if isClosing { throw Self.closedError }
        }

        /// Ends an accept; the last one out after ``requestClose()`` closes the descriptors.
        func endAccept() {
            let waiters = state.withLockedValue { state in
                state.activeAccepts -= 1
                return closeIfIdle(&state)
            }
            for waiter in waiters { waiter.resume() }
        }

        func requestClose() {
            let waiters = state.withLockedValue { state in
                if !state.isClosing {
                    state.isClosing = true
                    closing.signal()
                }
                return closeIfIdle(&state)
            }
            for waiter in waiters { waiter.resume() }
        }

        func waitUntilClosed() async {
            await withCheckedContinuation { continuation in
                let isOpen = state.withLockedValue { state in
                    if state.isOpen { state.closeWaiters.append(continuation) }
                    return state.isOpen
                }
                if !isOpen { continuation.resume() }
            }
        }

        /// Closes both descriptors when closing was asked for and no accept uses them; returns
        /// the tasks waiting for that.
        private func closeIfIdle(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
            guard state.isClosing && state.isOpen && state.activeAccepts == 0 else { return [] }
            closeDescriptor(socket)
            closing.close()
            state.isOpen = false
            defer { state.closeWaiters.removeAll() }
            return state.closeWaiters
        }

        /// Waits for and accepts one connection. Runs on a dedicated thread, between
        /// ``beginAccept()`` and ``endAccept()``, so the descriptors are open throughout.
        func acceptOnce(cancel: Int32) -> AcceptOutcome {
            var fds = [
                pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                pollfd(fd: closing.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: cancel, events: Int16(POLLIN), revents: 0),
            ]
            while true {
                if case .failure(let errno) = pollOnce(&fds, timeout: { -1 }) {
                    return .failed(TransportError(syscall: "poll", errno: errno))
                }
                if fds[1].revents != 0 { return .closed }
                if fds[2].revents != 0 { return .cancelled }
                if fds[0].revents == 0 { continue }
                var peer = sockaddr_l2()
                var length = socklen_t(MemoryLayout<sockaddr_l2>.size)
                let accepted = withUnsafeMutableBytes(of: &peer) { bytes in
                    syscall("accept", output: bytes) {
                        cbz_accept4_cloexec_nonblock(
                            socket, bytes.baseAddress!.assumingMemoryBound(to: sockaddr_l2.self), &length)
                    }
                }
                switch accepted {
                case .success(let descriptor):
                    guard let address = L2CAPSocket.peerAddress(of: peer) else {
                        logger.warning(
                            "closed an accepted connection that is not an LE link",
                            metadata: ["l2.bdaddr_type": "\(peer.l2_bdaddr_type)"])
                        closeDescriptor(descriptor)
                        continue
                    }
                    return .accepted(descriptor, address)
                case .failure(.resourceTemporarilyUnavailable), .failure(.connectionAbort), .failure(.protocolError):
                    // Gone before it was accepted, or another thread took it: wait for the next.
                    continue
                case .failure(let errno):
                    return .failed(TransportError(syscall: "accept", errno: errno))
                }
            }
        }
    }
}
