// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import Glibc
import SystemPackage

/// Two connected ``SeqPacketBearer``s over an `AF_UNIX` `SOCK_SEQPACKET` socket pair: whatever
/// one end sends, the other receives as one message, exactly like an L2CAP LE socket on the ATT
/// channel. Tests run the GATT client on one end and a GATT server (or a scripted peer) on the
/// other, through the same bearer code production uses.
///
/// The socket pair is created through the transport's syscall wrapper, so a ``SyscallScript``
/// installed by the test applies (and can make it fail). Close both bearers when done.
///
/// - Parameter label: names the two bearers' I/O threads (`<label>.a`, `<label>.b`).
/// - Returns: the two ends of the pair.
/// - Throws: ``TransportError`` when the socket pair or a bearer cannot be created.
public func makeSocketPairBearers(
    label: String = "socketpair"
) throws(TransportError) -> (SeqPacketBearer, SeqPacketBearer) {
    var fds: [Int32] = [-1, -1]
    let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    _ = try syscall("socketpair") {
        fds.withUnsafeMutableBufferPointer { Glibc.socketpair(AF_UNIX, type, 0, $0.baseAddress) }
    }.transportValue("socketpair")
    let first: SeqPacketBearer
    do {
        first = try SeqPacketBearer(adopting: FileDescriptor(rawValue: fds[0]), label: "\(label).a")
    } catch {
        _ = syscall("close", retryingOnEINTR: false) { Glibc.close(fds[1]) }
        throw error
    }
    // If this throws, `first` is released and closes its end when it deinitializes.
    let second = try SeqPacketBearer(adopting: FileDescriptor(rawValue: fds[1]), label: "\(label).b")
    return (first, second)
}
