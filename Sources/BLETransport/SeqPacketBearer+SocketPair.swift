// SPDX-License-Identifier: GPL-2.0-or-later
import CBlueZ
import Glibc
import SystemCalls
import SystemPackage

extension SeqPacketBearer {
    /// Two connected bearers over an `AF_UNIX` `SOCK_SEQPACKET` socket pair: whatever
    /// one end sends, the other receives as one message, exactly like an L2CAP LE socket on the ATT
    /// channel. The daemon runs virtual sensors on one end and the GATT client on the other, and the
    /// tests do the same with scripted peers, all through the bearer code the radio uses.
    ///
    /// The socket pair is created through the transport's syscall wrapper, so a ``SyscallScript``
    /// installed by the test applies (and can make it fail). Close both bearers when done.
    ///
    /// - Parameters:
    ///   - label: names the two bearers in log messages (`<label>.a`, `<label>.b`).
    ///   - reactor: the thread that reads both sockets; nil for ``SocketReactor/shared()``.
    /// - Returns: the two ends of the pair.
    /// - Throws: ``TransportError`` when the socket pair or a bearer cannot be created.
    public static func socketPair(
        label: String = "socketpair", reactor: SocketReactor? = nil
    ) throws(TransportError) -> (SeqPacketBearer, SeqPacketBearer) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        // The descriptors are the call's output, so a script can hand out descriptors a test made.
        _ = try fds.withUnsafeMutableBufferPointer { fds in
            syscall("socketpair", output: UnsafeMutableRawBufferPointer(fds)) {
                Glibc.socketpair(AF_UNIX, type, 0, fds.baseAddress)
            }
        }.transportValue("socketpair")
        let first: SeqPacketBearer
        do {
            first = try SeqPacketBearer(
                adopting: FileDescriptor(rawValue: fds[0]), label: "\(label).a", reactor: reactor)
        } catch {
            closeDescriptor(fds[1])
            throw error
        }
        // If this throws, `first` is released and closes its end when it deinitializes.
        let second = try SeqPacketBearer(
            adopting: FileDescriptor(rawValue: fds[1]), label: "\(label).b", reactor: reactor)
        return (first, second)
    }
}
