// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CBlueZ
import Glibc
import Logging
import SystemCalls
import SystemPackage

/// Connects to an LE peripheral on the ATT fixed channel (L2CAP CID 4) and returns the link as a
/// ``SeqPacketBearer``: the central side of GATT, how the gateway reaches a sensor.
///
/// ## What happens
///
/// 1. `socket(AF_BLUETOOTH, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, BTPROTO_L2CAP)`.
/// 2. `bind` to the adapter's address (or `BDADDR_ANY`), `l2_cid` 4, `BDADDR_LE_PUBLIC`.
/// 3. `setsockopt(SOL_BLUETOOTH, BT_SECURITY)` with `BT_SECURITY_LOW`: no pairing, no encryption.
/// 4. `connect` to the sensor: `l2_cid` 4, PSM 0, `BDADDR_LE_PUBLIC` or `BDADDR_LE_RANDOM` from
///    the address's ``BluetoothAddress/Kind``. The socket is non-blocking, so the kernel starts
///    LE Create Connection and `connect` returns `EINPROGRESS` at once.
/// 5. On a dedicated thread: `poll` for `POLLOUT` on the socket and on a wake-up eventfd, with the
///    timeout; then `getsockopt(SO_ERROR)` says whether the link came up.
/// 6. The connected socket (still non-blocking, which ``SeqPacketBearer`` is fine with: it only
///    uses `MSG_DONTWAIT` calls after `poll`) is adopted by a ``SeqPacketBearer``.
///
/// Cancelling the calling task signals the eventfd; the thread leaves `poll` and the socket is
/// closed, which makes the kernel cancel the pending LE Create Connection. A timeout does the same.
/// ATT has a fixed channel, so there is no PSM to look up and nothing to negotiate: the ATT MTU is
/// exchanged later, in ATT itself.
public struct L2CAPConnector: Sendable {
    /// The local adapter's address; nil lets the kernel pick an adapter (`BDADDR_ANY`).
    public var adapterAddress: BluetoothAddress?
    /// How long to wait for the link to come up before giving up.
    public var timeout: Duration
    /// Where connection attempts are logged (metadata `ble.address`).
    public var logger: Logger

    /// A connector through the adapter with this address.
    ///
    /// - Parameters:
    ///   - adapterAddress: the local adapter's address; nil for any adapter.
    ///   - timeout: how long one attempt may take; the kernel gives up by itself after about 20 s
    ///     (its LE connection timeout), so longer values do not wait longer.
    ///   - logger: where attempts are logged.
    public init(
        adapterAddress: BluetoothAddress? = nil,
        timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "sportsensord.transport")
    ) {
        self.adapterAddress = adapterAddress
        self.timeout = timeout
        self.logger = logger
    }

    /// A connector through `adapter`.
    public init(
        adapter: HCIAdapter,
        timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "sportsensord.transport")
    ) {
        self.init(adapterAddress: adapter.address, timeout: timeout, logger: logger)
    }

    /// Connects to `peer` with a connector built from the arguments; see ``connect(to:)``.
    public static func connect(
        to peer: BluetoothAddress,
        adapter: HCIAdapter? = nil,
        timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "sportsensord.transport")
    ) async throws(TransportError) -> SeqPacketBearer {
        try await L2CAPConnector(adapterAddress: adapter?.address, timeout: timeout, logger: logger)
            .connect(to: peer)
    }

    /// Connects to the ATT channel of `peer`.
    ///
    /// - Parameter peer: the sensor's address; its ``BluetoothAddress/kind`` must match what the
    ///   sensor advertises with (public or random), or the controller never finds it.
    /// - Returns: a bearer over the connected channel; close it when done.
    /// - Throws: ``TransportError``: `timedOut` when the sensor did not answer in time,
    ///   `cancelled` when the task was cancelled, `connectionRefused`, `connectionLimit`,
    ///   `adapterBusy`, `hostUnreachable`, `noBluetoothSupport`, `permissionDenied`... each with
    ///   the fix in its message (see ``TransportError/init(connecting:errno:)``). The socket is
    ///   closed whenever this throws.
    public func connect(to peer: BluetoothAddress) async throws(TransportError) -> SeqPacketBearer {
        var logger = logger
        logger[metadataKey: "ble.address"] = "\(peer)"
        if Task.isCancelled { throw Self.cancelledError(peer) }
        logger.debug(
            "connecting on the ATT channel",
            metadata: ["ble.adapter": "\(adapterAddress?.description ?? "any")", "timeout": "\(timeout)"]
        )
        let socket = try L2CAPSocket.openATTSocket(localAddress: adapterAddress)
        do throws(TransportError) {
            try await establish(socket: socket, peer: peer)
        } catch {
            closeDescriptor(socket)
            logger.debug("connection failed", metadata: ["error": "\(error)"])
            throw error
        }
        logger.info("connected on the ATT channel")
        return try SeqPacketBearer(adopting: FileDescriptor(rawValue: socket), label: "\(peer)", logger: logger)
    }

    /// Starts the non-blocking connect and waits until it finishes, times out or is cancelled.
    private func establish(socket: Int32, peer: BluetoothAddress) async throws(TransportError) {
        let type = L2CAPSocket.addressType(of: peer.kind)
        let started = L2CAPSocket.withATTAddress(peer, type: type) { pointer, length, bytes in
            // No EINTR retry: an interrupted connect goes on in the background, like EINPROGRESS.
            syscall("connect", retryingOnEINTR: false, input: bytes) { Glibc.connect(socket, pointer, length) }
        }
        switch started {
        case .success:
            return  // The LE link already existed (another channel uses it): ATT is up at once.
        case .failure(.nowInProgress), .failure(.interrupted), .failure(.resourceTemporarilyUnavailable):
            break
        case .failure(let errno):
            throw TransportError(connecting: "connect", errno: errno)
        }
        let wake = try WakeSignal()
        defer { wake.close() }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let outcome = await withTaskCancellationHandler {
            await runOnDedicatedThread(named: "l2cap-connect") {
                Self.waitForConnection(socket: socket, wake: wake.descriptor, deadline: deadline)
            }
        } onCancel: {
            wake.signal()
        }
        switch outcome {
        case .connected:
            return
        case .failed(let error):
            throw error
        case .timedOut:
            throw TransportError(
                code: .timedOut,
                message:
                    "the sensor did not answer within \(timeout): is it switched on, in range and not connected "
                    + "to a phone? Check that it advertises (scan for it), then retry"
            )
        case .cancelled:
            throw Self.cancelledError(peer)
        }
    }

    /// How waiting for a non-blocking connect ended.
    enum WaitOutcome: Sendable {
        case connected
        case failed(TransportError)
        case timedOut
        case cancelled
    }

    /// Blocks in `poll` until the socket is writable (connected) or has an error, the deadline
    /// passes, or `wake` is signalled; then reads `SO_ERROR`. Runs on a dedicated thread.
    static func waitForConnection(socket: Int32, wake: Int32, deadline: ContinuousClock.Instant) -> WaitOutcome {
        var fds = [
            pollfd(fd: socket, events: Int16(POLLOUT), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let polled = pollOnce(&fds) {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero else { return 0 }
                let (seconds, attoseconds) = left.components
                // Round up, so the wait never ends a fraction of a millisecond early.
                let milliseconds: Int64 =
                    seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                return Int32(clamping: milliseconds)
            }
            switch polled {
            case .failure(let errno):
                return .failed(TransportError(syscall: "poll", errno: errno))
            case .success(0):
                return .timedOut
            case .success:
                break
            }
            if fds[1].revents != 0 { return .cancelled }
            let events = Int32(fds[0].revents)
            if events == 0 { continue }
            var pending: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            let read = withUnsafeMutableBytes(of: &pending) { bytes in
                syscall("getsockopt", output: bytes) {
                    Glibc.getsockopt(socket, SOL_SOCKET, SO_ERROR, bytes.baseAddress, &length)
                }
            }
            if case .failure(let errno) = read {
                return .failed(TransportError(syscall: "getsockopt(SO_ERROR)", errno: errno))
            }
            if pending != 0 {
                return .failed(TransportError(connecting: "connect", errno: Errno(rawValue: pending)))
            }
            if events & Int32(POLLOUT) != 0 { return .connected }
            // Hung up without an error: the link went away while it was being set up.
            return .failed(TransportError(connecting: "connect", errno: .connectionReset))
        }
    }

    private static func cancelledError(_ peer: BluetoothAddress) -> TransportError {
        TransportError(
            code: .cancelled,
            message: "the connection attempt to \(peer) was cancelled; its socket is closed"
        )
    }
}
