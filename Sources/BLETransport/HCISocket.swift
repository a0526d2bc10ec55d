// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CBlueZ
import Foundation
import Glibc
import Logging
import Synchronization
import SystemPackage

/// An HCI socket with a dedicated I/O thread that hands each packet read to a callback, bound to
/// one of two channels (``Channel``):
///
/// - **raw**: `socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI)` bound to one adapter on
///   `HCI_CHANNEL_RAW`, with an `HCI_FILTER` that passes event packets with the listed event
///   codes only; writes and reads H4 packets (type byte first). The socket is new, so there is no
///   earlier filter to save and restore. The kernel sends every matching event of the adapter to
///   every raw socket, including answers to other programs' commands; telling them apart is the
///   caller's job.
/// - **control**: the same socket bound to `HCI_DEV_NONE` on `HCI_CHANNEL_CONTROL`, the kernel's
///   management interface; writes mgmt commands and reads mgmt events (no type byte, no filter).
///   Events about every adapter arrive, and Device Found and Discovering go to every trusted
///   socket whichever program started the discovery.
///
/// The I/O thread follows ``SeqPacketBearer``: it sleeps in `poll(2)` on the socket and a wake-up
/// `eventfd(2)`, reads with `recv(MSG_DONTWAIT | MSG_TRUNC)` under the descriptor lock, and is
/// the only one to close the descriptors. ``write(_:)`` runs under the same lock, so a command is
/// either written before the socket closes or fails with `closed`, never reaches a reused
/// descriptor number. Commands written are queued by the kernel and reach the controller even if
/// the socket is closed right after.
final class HCISocket: Sendable {
    /// Which channel the socket is bound to.
    enum Channel: Sendable {
        /// One adapter's raw HCI traffic, filtered to these events.
        case raw(adapterIndex: UInt16, events: [HCIEventCode])
        /// The management interface of every adapter.
        case control

        /// The largest packet delivered: an HCI event is at most 2 + 255 bytes plus the type byte;
        /// a mgmt event's length field allows 64 KiB (Device Found carries up to 1650 bytes of
        /// extended advertising data).
        var receiveCapacity: Int {
            switch self {
            case .raw: 1024
            case .control: 6 + 0xFFFF
            }
        }
    }

    private struct Descriptors {
        var isOpen = true
        var isClosing = false
    }

    private struct Exit {
        var hasExited = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let socket: Int32
    private let wake: Int32
    private let logger: Logger
    private let descriptors = Mutex(Descriptors())
    private let exit = Mutex(Exit())
    private let onPacket: @Sendable ([UInt8]) -> Void
    private let onEnd: @Sendable (TransportError) -> Void
    private let receiveCapacity: Int

    /// Opens a raw HCI socket on adapter `index` and starts its I/O thread.
    ///
    /// - Parameters:
    ///   - index: the adapter, 0 for `hci0`.
    ///   - events: the event codes the filter lets through.
    ///   - label: names the I/O thread.
    ///   - onPacket: called on the I/O thread with each packet read, H4 type byte first.
    ///   - onEnd: called on the I/O thread, at most once, when reading fails; the socket is still
    ///     open during the call, so a last command can be written from it.
    /// - Throws: ``TransportError``: `noBluetoothSupport`, `permissionDenied`, `noSuchAdapter`,
    ///   `tooManyOpenFiles`, `system` (a failing `setsockopt`...). Nothing stays open.
    convenience init(
        adapterIndex index: UInt16,
        events: [HCIEventCode],
        label: String,
        logger: Logger,
        onPacket: @escaping @Sendable ([UInt8]) -> Void,
        onEnd: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try self.init(
            channel: .raw(adapterIndex: index, events: events), label: label, logger: logger, onPacket: onPacket,
            onEnd: onEnd)
    }

    /// Opens an HCI socket on `channel` and starts its I/O thread; see ``init(adapterIndex:events:label:logger:onPacket:onEnd:)``.
    init(
        channel: Channel,
        label: String,
        logger: Logger,
        onPacket: @escaping @Sendable ([UInt8]) -> Void,
        onEnd: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let socket = try syscall("socket") { Glibc.socket(cbz_af_bluetooth(), type, cbz_btproto_hci()) }
            .transportValue("socket")
        do throws(TransportError) {
            switch channel {
            case .raw(let index, let events):
                try Self.bind(socket, device: index, channel: UInt16(cbz_hci_channel_raw()))
                try Self.setFilter(socket, events: events)
            case .control:
                try Self.bind(socket, device: cbz_hci_dev_none(), channel: UInt16(cbz_hci_channel_control()))
            }
        } catch {
            _ = syscall("close", retryingOnEINTR: false) { Glibc.close(socket) }
            var error = error
            if error.code == .noSuchAdapter, case .raw(let index, _) = channel {
                error.message = "hci\(index): " + error.message
            }
            throw error
        }
        let wake: Int32
        switch syscall("eventfd", { cbz_eventfd_nonblocking() }) {
        case .success(let fd):
            wake = fd
        case .failure(let errno):
            _ = syscall("close", retryingOnEINTR: false) { Glibc.close(socket) }
            throw TransportError(syscall: "eventfd", errno: errno)
        }
        self.socket = socket
        self.wake = wake
        self.logger = logger
        self.onPacket = onPacket
        self.onEnd = onEnd
        self.receiveCapacity = channel.receiveCapacity
        #if DEBUG
        let script = SyscallScript.current
        let thread = Thread { [self] in SyscallScript.$current.withValue(script) { self.run() } }
        #else
        let thread = Thread { [self] in self.run() }
        #endif
        thread.name = label
        thread.stackSize = 1 << 19
        thread.start()
    }

    /// Writes one H4 packet (type byte first) without blocking.
    ///
    /// - Throws: ``TransportError`` `closed` once the socket is closing; the error of `send`
    ///   otherwise (`adapterDown` for `ENETDOWN`, `permissionDenied` without `CAP_NET_RAW`...).
    func write(_ packet: [UInt8]) throws(TransportError) {
        let result: Result<Int, Errno>? = descriptors.withLock { state in
            guard state.isOpen && !state.isClosing else { return nil }
            return packet.withUnsafeBytes { bytes in
                syscall("send") {
                    Glibc.send(socket, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                }
            }
        }
        switch result {
        case nil:
            throw TransportError(code: .closed, message: "the HCI socket was closed by this process: start a new scan")
        case .success(let sent) where sent == packet.count:
            return
        case .success(let sent):
            throw TransportError(
                code: .system, message: "the HCI socket took \(sent) of \(packet.count) bytes of one command")
        case .failure(let errno):
            throw TransportError(syscall: "send", errno: errno)
        }
    }

    /// Asks the I/O thread to close the socket and returns without waiting. Later writes throw
    /// `closed`. Safe to call more than once, from any thread.
    func close() {
        descriptors.withLock { state in
            guard state.isOpen && !state.isClosing else { return }
            state.isClosing = true
            var one: UInt64 = 1
            // A full eventfd (EAGAIN) still wakes the thread, so the result does not matter.
            _ = syscall("write") { Glibc.write(wake, &one, MemoryLayout<UInt64>.size) }
        }
    }

    /// Waits until the I/O thread has closed both descriptors.
    func waitForExit() async {
        await withCheckedContinuation { continuation in
            let hasExited = exit.withLock { state in
                if !state.hasExited { state.waiters.append(continuation) }
                return state.hasExited
            }
            if hasExited { continuation.resume() }
        }
    }

    // MARK: - Setup

    private static func bind(_ socket: Int32, device: UInt16, channel: UInt16) throws(TransportError) {
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(cbz_af_bluetooth())
        address.hci_dev = device
        address.hci_channel = channel
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                syscall("bind") { Glibc.bind(socket, generic, socklen_t(MemoryLayout<sockaddr_hci>.size)) }
            }
        }
        _ = try result.transportValue("bind")
    }

    private static func setFilter(_ socket: Int32, events: [HCIEventCode]) throws(TransportError) {
        var filter = hci_filter()
        cbz_hci_filter_clear(&filter)
        cbz_hci_filter_set_ptype(cbz_hci_event_pkt(), &filter)
        for event in events { cbz_hci_filter_set_event(Int32(event.rawValue), &filter) }
        let result = withUnsafePointer(to: &filter) { pointer in
            syscall("setsockopt") {
                Glibc.setsockopt(
                    socket, cbz_sol_hci(), cbz_hci_filter_opt(), pointer, socklen_t(MemoryLayout<hci_filter>.size))
            }
        }
        _ = try result.transportValue("setsockopt")
    }

    // MARK: - I/O thread

    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: receiveCapacity, alignment: 8)
        defer { buffer.deallocate() }
        if let error = readLoop(into: buffer) { onEnd(error) }
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

    /// Reads until closed (nil) or a failure (the error).
    private func readLoop(into buffer: UnsafeMutableRawBufferPointer) -> TransportError? {
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
            if case .failure(let errno) = polled { return TransportError(syscall: "poll", errno: errno) }
            if fds[1].revents != 0 { return nil }
            if fds[0].revents == 0 { continue }
            let received: Result<Int, Errno>? = descriptors.withLock { state in
                guard !state.isClosing else { return nil }
                return syscall("recv") {
                    Glibc.recv(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT | MSG_TRUNC))
                }
            }
            switch received {
            case nil:
                return nil
            case .success(0):
                return TransportError(
                    code: .noSuchAdapter,
                    message: "the HCI socket was closed by the kernel (adapter removed?): plug the adapter in and "
                        + "start the scan again"
                )
            case .success(let length) where length > buffer.count:
                logger.warning(
                    "dropped an HCI packet longer than the receive buffer",
                    metadata: ["hci.length": "\(length)", "buffer.capacity": "\(buffer.count)"])
            case .success(let length):
                onPacket(Array(buffer[..<length]))
            case .failure(.resourceTemporarilyUnavailable):
                continue
            case .failure(let errno):
                return Self.readError(errno)
            }
        }
    }

    /// A read error of a raw HCI socket: `EPIPE`, `ENODEV` and `ENETDOWN` mean the adapter went
    /// away (unplugged, unregistered or powered down), not a lost link.
    static func readError(_ errno: Errno) -> TransportError {
        switch errno {
        case .brokenPipe, .operationNotSupportedByDevice, .networkDown:
            return TransportError(
                code: .adapterDown,
                message: "the adapter was removed or powered down while scanning: plug it in or power it on "
                    + "(`btmgmt power on`), check `rfkill list`, then start the scan again",
                errno: errno,
                syscall: "recv"
            )
        default:
            return TransportError(syscall: "recv", errno: errno)
        }
    }
}
