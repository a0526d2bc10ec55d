// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CBlueZ
import Glibc
import Logging
import SystemCalls
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
/// Reading and writing go through a ``PolledSocket``: one I/O thread sleeps in `poll(2)` on the
/// socket and a wake-up eventfd, reads with `recv(MSG_DONTWAIT | MSG_TRUNC)` under the descriptor
/// lock, and is the only one to close the descriptors. ``write(_:)`` runs under the same lock, so
/// a command is either written before the socket closes or fails with `closed`, never reaches a
/// reused descriptor number. Commands written are queued by the kernel and reach the controller
/// even if the socket is closed right after.
package final class HCISocket: Sendable {
    /// Which channel the socket is bound to.
    package enum Channel: Sendable {
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

    private let socket: PolledSocket

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
    package convenience init(
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

    /// Opens an HCI socket on `channel` and starts its I/O thread; see
    /// ``init(adapterIndex:events:label:logger:onPacket:onEnd:)``.
    package init(
        channel: Channel,
        label: String,
        logger: Logger,
        onPacket: @escaping @Sendable ([UInt8]) -> Void,
        onEnd: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = try syscall("socket") { Glibc.socket(cbz_af_bluetooth(), type, cbz_btproto_hci()) }
            .transportValue("socket")
        do throws(TransportError) {
            switch channel {
            case .raw(let index, let events):
                try Self.bind(descriptor, device: index, channel: UInt16(cbz_hci_channel_raw()))
                try Self.setFilter(descriptor, events: events)
            case .control:
                try Self.bind(descriptor, device: cbz_hci_dev_none(), channel: UInt16(cbz_hci_channel_control()))
            }
        } catch {
            closeDescriptor(descriptor)
            var error = error
            if error.code == .noSuchAdapter, case .raw(let index, _) = channel {
                error.message = "hci\(index): " + error.message
            }
            throw error
        }
        socket = try PolledSocket(
            adopting: descriptor, label: label, receiveCapacity: channel.receiveCapacity, logger: logger,
            onMessage: onPacket,
            onEnd: { ending in onEnd(Self.endingError(ending)) }
        )
    }

    /// Writes one H4 packet (type byte first) without blocking.
    ///
    /// - Throws: ``TransportError`` `closed` once the socket is closing; the error of `send`
    ///   otherwise (`adapterDown` for `ENETDOWN`, `permissionDenied` without `CAP_NET_RAW`...).
    package func write(_ packet: [UInt8]) throws(TransportError) {
        switch socket.send(packet) {
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
    package func close() {
        socket.close()
    }

    /// Waits until the I/O thread has closed the socket.
    package func waitForExit() async {
        await socket.waitForExit()
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

    // MARK: - Reading

    /// What the end of reading means for a raw HCI socket. The kernel closes it (end of file) when
    /// the adapter is unregistered.
    static func endingError(_ ending: PolledSocket.Ending) -> TransportError {
        switch ending {
        case .endOfFile:
            return TransportError(
                code: .noSuchAdapter,
                message: "the HCI socket was closed by the kernel (adapter removed?): plug the adapter in and "
                    + "start the scan again"
            )
        case .failed(let syscall, let errno) where syscall == "recv":
            return readError(errno)
        case .failed(let syscall, let errno):
            return TransportError(syscall: syscall, errno: errno)
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
