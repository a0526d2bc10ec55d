// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CBlueZ
import Foundation
import Glibc
import Synchronization
import SystemCalls
import SystemPackage

/// What ``L2CAPConnector`` and ``L2CAPListener`` share: opening an L2CAP LE socket on the ATT
/// fixed channel, the `sockaddr_l2` it is addressed with, and closing descriptors.
///
/// The sequence is the one BlueZ's `bt_io` uses for LE ATT (btio/btio.c: `l2cap_bind`, then
/// `l2cap_set` with the security level, then `connect` or `listen`): a `SOCK_SEQPACKET` socket of
/// protocol `BTPROTO_L2CAP`, bound to the adapter's address (or `BDADDR_ANY`) with `l2_cid` 4 and
/// address type `BDADDR_LE_PUBLIC`, then `BT_SECURITY` set to `BT_SECURITY_LOW` (no pairing, no
/// encryption: the sensor needs none).
enum L2CAPSocket {
    /// `SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK`: message boundaries, no descriptor leaking
    /// into child processes, and a `connect` that returns `EINPROGRESS` instead of blocking.
    static let socketType =
        Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        | Int32(SOCK_NONBLOCK.rawValue)

    /// The kernel's address type for an LE address of this kind.
    static func addressType(of kind: BluetoothAddress.Kind) -> UInt8 {
        UInt8(kind == .random ? cbz_bdaddr_le_random() : cbz_bdaddr_le_public())
    }

    /// Calls `body` with a `sockaddr_l2` for the ATT channel (CID 4, PSM 0) of `address` (nil:
    /// `BDADDR_ANY`) and address type `type`: as the `sockaddr` pointer and length the socket
    /// calls take, and as its 14 bytes for a ``SyscallScript`` to record.
    ///
    /// The address is built in place in zeroed memory by the C helper and never copied as a Swift
    /// value, which would not preserve the padding byte: the kernel sees exactly what C would pass.
    static func withATTAddress<T>(
        _ address: BluetoothAddress?,
        type: UInt8,
        _ body: (UnsafePointer<sockaddr>, socklen_t, UnsafeRawBufferPointer) -> T
    ) -> T {
        let size = MemoryLayout<sockaddr_l2>.size
        return withUnsafeTemporaryAllocation(byteCount: size, alignment: MemoryLayout<sockaddr_l2>.alignment) {
            raw in
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            let l2 = raw.baseAddress!.bindMemory(to: sockaddr_l2.self, capacity: 1)
            if let address {
                address.octets.withUnsafeBufferPointer { octets in
                    cbz_sockaddr_l2_fixed_channel(l2, octets.baseAddress, cbz_att_cid(), type)
                }
            } else {
                cbz_sockaddr_l2_fixed_channel(l2, nil, cbz_att_cid(), type)
            }
            let generic = UnsafeRawPointer(l2).assumingMemoryBound(to: sockaddr.self)
            return body(generic, socklen_t(size), UnsafeRawBufferPointer(raw))
        }
    }

    /// The LE address in a `sockaddr_l2` the kernel filled in (`accept`), or nil when it is not
    /// an LE address.
    static func peerAddress(of address: sockaddr_l2) -> BluetoothAddress? {
        let type = Int32(address.l2_bdaddr_type)
        guard type == cbz_bdaddr_le_public() || type == cbz_bdaddr_le_random() else { return nil }
        var octets = [UInt8](repeating: 0, count: 6)
        withUnsafePointer(to: address.l2_bdaddr) { bdaddr in
            octets.withUnsafeMutableBufferPointer { cbz_bdaddr_to_bytes(bdaddr, $0.baseAddress) }
        }
        return BluetoothAddress(octets: octets, kind: type == cbz_bdaddr_le_random() ? .random : .public)
    }

    /// Opens a non-blocking L2CAP socket bound to the ATT channel of the local adapter with
    /// security level low: `socket`, `bind`, `setsockopt(BT_SECURITY)`.
    ///
    /// - Parameter localAddress: the adapter's address; nil binds to `BDADDR_ANY` (any adapter,
    ///   the kernel picks the route).
    /// - Returns: the socket, which the caller owns.
    /// - Throws: ``TransportError``; nothing is left open then.
    static func openATTSocket(localAddress: BluetoothAddress?) throws(TransportError) -> Int32 {
        let socket = try syscall("socket") { Glibc.socket(cbz_af_bluetooth(), socketType, cbz_btproto_l2cap()) }
            .transportValue("socket")
        let bound = withATTAddress(localAddress, type: UInt8(cbz_bdaddr_le_public())) { pointer, length, bytes in
            syscall("bind", input: bytes) { Glibc.bind(socket, pointer, length) }
        }
        if case .failure(let errno) = bound {
            close(socket)
            throw TransportError(syscall: "bind", errno: errno)
        }
        var security = bt_security(level: UInt8(cbz_bt_security_low()), key_size: 0)
        let secured = withUnsafeBytes(of: &security) { bytes in
            syscall("setsockopt", input: bytes) {
                Glibc.setsockopt(
                    socket, cbz_sol_bluetooth(), cbz_bt_security(), bytes.baseAddress, socklen_t(bytes.count))
            }
        }
        if case .failure(let errno) = secured {
            close(socket)
            throw TransportError(syscall: "setsockopt(BT_SECURITY)", errno: errno)
        }
        return socket
    }

    /// Closes a descriptor once (no `EINTR` retry: Linux has released it either way). The
    /// descriptor number is recorded by a ``SyscallScript``, so tests can tell which one closed.
    static func close(_ descriptor: Int32) {
        withUnsafeBytes(of: descriptor) { bytes in
            _ = syscall("close", retryingOnEINTR: false, input: bytes) { Glibc.close(descriptor) }
        }
    }
}

/// An `eventfd(2)` that wakes a thread sleeping in `poll(2)`: ``signal()`` may be called from any
/// task, any number of times, also after ``close()`` (it then does nothing), so a cancellation
/// handler can never write to a descriptor number that was closed and reused.
final class WakeSignal: Sendable {
    /// The eventfd; readable once signalled.
    let descriptor: Int32
    private let isOpen = Mutex(true)

    /// Creates the eventfd.
    ///
    /// - Throws: ``TransportError`` when it cannot be created (`EMFILE`...).
    init() throws(TransportError) {
        descriptor = try syscall("eventfd") { cbz_eventfd_nonblocking() }.transportValue("eventfd")
    }

    /// Makes the eventfd readable, waking a `poll` on it.
    func signal() {
        isOpen.withLock { isOpen in
            guard isOpen else { return }
            var one: UInt64 = 1
            // A full counter (EAGAIN) is still readable, so the result does not matter.
            _ = syscall("write") { Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size) }
        }
    }

    /// Closes the eventfd; later ``signal()`` calls do nothing.
    func close() {
        isOpen.withLock { isOpen in
            guard isOpen else { return }
            isOpen = false
            L2CAPSocket.close(descriptor)
        }
    }
}

/// Runs `body` on a new thread, off Swift's cooperative pool, and returns its result. A
/// ``SyscallScript`` installed on the calling task is installed on the thread too.
func runOnDedicatedThread<T: Sendable>(named name: String, _ body: @escaping @Sendable () -> T) async -> T {
    #if DEBUG
    let script = SyscallScript.current
    #endif
    return await withCheckedContinuation { continuation in
        let thread = Thread {
            #if DEBUG
            let value = SyscallScript.$current.withValue(script) { body() }
            #else
            let value = body()
            #endif
            continuation.resume(returning: value)
        }
        thread.name = name
        thread.stackSize = 1 << 19
        thread.start()
    }
}

/// Polls `fds` once and stores each entry's `revents`. `timeout` is asked again on every `EINTR`
/// retry, so a deadline-based timeout does not restart. Under a ``SyscallScript`` a
/// ``SyscallOutcome/returns(_:writing:)`` outcome writes the whole `pollfd` array.
func pollOnce(
    _ fds: inout [pollfd],
    timeout: () -> Int32
) -> Result<Int32, Errno> {
    // Poll a copy and take back only `revents`, so nothing (a scripted outcome included) can
    // change which descriptors are polled next time.
    var polled = fds
    for index in polled.indices { polled[index].revents = 0 }
    let result = polled.withUnsafeMutableBufferPointer { polled in
        let raw = UnsafeMutableRawBufferPointer(polled)
        return syscall("poll", output: raw) { Glibc.poll(polled.baseAddress, nfds_t(polled.count), timeout()) }
    }
    for index in fds.indices { fds[index].revents = polled[index].revents }
    return result
}
