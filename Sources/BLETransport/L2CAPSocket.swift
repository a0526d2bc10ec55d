// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CBlueZ
import Glibc
import SystemCalls
import SystemPackage

/// What ``L2CAPConnector`` and ``L2CAPListener`` share: opening an L2CAP LE socket on the ATT
/// fixed channel and the `sockaddr_l2` it is addressed with.
///
/// The sequence is the one BlueZ's `bt_io` uses for LE ATT (btio/btio.c: `l2cap_bind`, then
/// `l2cap_set` with the security level, then `connect` or `listen`): a `SOCK_SEQPACKET` socket of
/// protocol `BTPROTO_L2CAP`, bound to the adapter's address (or `BDADDR_ANY`) with `l2_cid` 4 and
/// address type `BDADDR_LE_PUBLIC`, then `BT_SECURITY` set to `BT_SECURITY_LOW` (no pairing, no
/// encryption: the sensor needs none).
package enum L2CAPSocket {
    /// `SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK`: message boundaries, no descriptor leaking
    /// into child processes, and a `connect` that returns `EINPROGRESS` instead of blocking.
    package static let socketType =
        Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        | Int32(SOCK_NONBLOCK.rawValue)

    /// The kernel's address type for an LE address of this kind.
    package static func addressType(of kind: BluetoothAddress.Kind) -> UInt8 {
        UInt8(kind == .random ? cbz_bdaddr_le_random() : cbz_bdaddr_le_public())
    }

    /// Calls `body` with a `sockaddr_l2` for the ATT channel (CID 4, PSM 0) of `address` (nil:
    /// `BDADDR_ANY`) and address type `type`: as the `sockaddr` pointer and length the socket
    /// calls take, and as its 14 bytes for a ``SyscallScript`` to record.
    ///
    /// The address is built in place in zeroed memory by the C helper and never copied as a Swift
    /// value, which would not preserve the padding byte: the kernel sees exactly what C would pass.
    package static func withATTAddress<T>(
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
    package static func peerAddress(of address: sockaddr_l2) -> BluetoothAddress? {
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
    package static func openATTSocket(localAddress: BluetoothAddress?) throws(TransportError) -> Int32 {
        let socket = try syscall("socket") { Glibc.socket(cbz_af_bluetooth(), socketType, cbz_btproto_l2cap()) }
            .transportValue("socket")
        let bound = withATTAddress(localAddress, type: UInt8(cbz_bdaddr_le_public())) { pointer, length, bytes in
            syscall("bind", input: bytes) { Glibc.bind(socket, pointer, length) }
        }
        if case .failure(let errno) = bound {
            closeDescriptor(socket)
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
            closeDescriptor(socket)
            throw TransportError(syscall: "setsockopt(BT_SECURITY)", errno: errno)
        }
        return socket
    }
}
