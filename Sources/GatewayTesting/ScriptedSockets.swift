// SPDX-License-Identifier: GPL-2.0-or-later
import Glibc
import SystemCalls

/// Real descriptors and kernel-shaped bytes for tests that script the Bluetooth socket calls
/// with ``SyscallScript``.
///
/// A scripted `socket` or `accept` returns a descriptor number the code under test then owns
/// (polls, adopts into a bearer, closes). Returning one end of a real `AF_UNIX` `SOCK_SEQPACKET`
/// pair keeps that honest: closing it is a real close, a bearer over it really carries PDUs, and
/// the test sees the close as end-of-file on the other end.
public enum ScriptedSockets {
    /// A connected `AF_UNIX` `SOCK_SEQPACKET` pair (close-on-exec), created without the syscall
    /// wrapper so no installed script sees or changes it. The caller closes what the code under
    /// test does not.
    public static func seqPacketPair() -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let result = fds.withUnsafeMutableBufferPointer { Glibc.socketpair(AF_UNIX, type, 0, $0.baseAddress) }
        precondition(result == 0, "socketpair failed: errno \(Glibc.errno)")
        return (fds[0], fds[1])
    }

    /// A pipe: its read end never becomes writable, so a connect waiting for
    /// `POLLOUT` on it waits until its timeout or cancellation.
    public static func pipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        let result = fds.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) }
        precondition(result == 0, "pipe failed: errno \(Glibc.errno)")
        return (fds[0], fds[1])
    }

    /// The bytes `poll` writes back for an array of `pollfd` with these `revents`: per entry the
    /// descriptor (4 bytes), the requested events (2) and the returned events (2).
    public static func pollResult(_ revents: [Int16]) -> [UInt8] {
        var bytes: [UInt8] = []
        for events in revents {
            bytes += [0, 0, 0, 0, 0, 0]
            bytes += withUnsafeBytes(of: events) { Array($0) }
        }
        return bytes
    }

    /// The bytes of a native-endian `int`, as `getsockopt(SO_ERROR)` writes it.
    public static func int32Bytes(_ value: Int32) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    /// Whether `end` sees that its peer in a socket pair was closed: `recv` returns 0 (end of
    /// file) or fails with `ECONNRESET` (the peer was closed with unread data). Waits up to a
    /// second for it.
    public static func seesPeerClosed(_ end: Int32) -> Bool {
        var entry = pollfd(fd: end, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&entry, 1, 1000) == 1 else { return false }
        var byte: UInt8 = 0
        let received = Glibc.recv(end, &byte, 1, Int32(MSG_DONTWAIT))
        return received == 0 || (received == -1 && Glibc.errno == ECONNRESET)
    }
}
