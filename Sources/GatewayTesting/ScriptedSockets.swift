// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
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

    /// A descriptor that stands in for an `eventfd(2)` a script hands out: a pipe opened for
    /// reading and writing (close-on-exec), so a write makes it readable as it makes a signalled
    /// eventfd readable. Unlike eventfds, which share one anonymous inode, a pipe has an inode of
    /// its own, so ``identity(of:)`` tells it apart from every other open file.
    public static func eventFDStandIn() -> Int32 {
        let (read, write) = pipe()
        defer {
            Glibc.close(read)
            Glibc.close(write)
        }
        let both = Glibc.open("/proc/self/fd/\(read)", O_RDWR | O_CLOEXEC)
        precondition(both >= 0, "reopening a pipe read-write failed: errno \(Glibc.errno)")
        return both
    }

    /// What `descriptor` refers to, as `/proc/self/fd` shows it: `socket:[81234]`, `pipe:[81240]`.
    /// For sockets and pipes the number is an inode no other open file has, so it names the open
    /// file itself, whichever descriptor numbers other code in the process closes and reuses.
    public static func identity(of descriptor: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
    }

    /// The ``identity(of:)`` of every descriptor open in this process now.
    public static func openIdentities() -> Set<String> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(entries.compactMap { Int32($0).flatMap(identity(of:)) })
    }

    #if DEBUG
    /// The descriptors passed to `close` while `script` was installed, in order.
    public static func closedDescriptors(_ script: SyscallScript) -> [Int32] {
        script.inputs(for: "close").map { bytes in
            bytes.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
        }
    }
    #endif

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
