// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import CBlueZ
import Glibc
import NIOConcurrencyHelpers
import SystemCalls
import SystemPackage

extension SeqPacketBearer {
    /// A bearer over an `AF_UNIX` `SOCK_SEQPACKET` connection to `path`, where a
    /// ``UnixSeqPacketListener`` of another process accepts: the dev-only way the gateway benchmark
    /// runs its emulated sensors outside the measured gateway (`sportsensor-dev bench-gateway-host`).
    /// One message is one ATT PDU, as on an L2CAP socket.
    ///
    /// - Parameters:
    ///   - path: the listening socket.
    ///   - hello: sent as the first message, before any PDU (the benchmark's sensor name), so the
    ///     listener knows which sensor this connection is for; nothing when empty.
    ///   - label: names the bearer's I/O thread.
    /// - Throws: ``TransportError`` when the socket cannot be made or the connect fails
    ///   (`ENOENT`: nothing listens at `path`).
    public static func connecting(
        toUnixSocket path: String, hello: [UInt8] = [], label: String = "unix-seqpacket"
    ) throws(TransportError) -> SeqPacketBearer {
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = try syscall("socket") { Glibc.socket(AF_UNIX, type, 0) }.transportValue("socket")
        do throws(TransportError) {
            _ = try UnixSocketAddress.with(path: path) { address, length throws(TransportError) in
                try syscall("connect") { Glibc.connect(descriptor, address, length) }.transportValue("connect")
            }
            if !hello.isEmpty {
                // A fresh connection's buffer is empty: this send cannot block.
                _ = try hello.withUnsafeBytes { bytes in
                    syscall("send") { Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
                }.transportValue("send")
            }
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        return try SeqPacketBearer(adopting: FileDescriptor(rawValue: descriptor), label: label)
    }
}

/// A listening `AF_UNIX` `SOCK_SEQPACKET` socket whose connections become ``SeqPacketBearer``s:
/// the benchmark's side of ``SeqPacketBearer/connecting(toUnixSocket:hello:label:)``. Development
/// only: the daemon links neither.
public final class UnixSeqPacketListener: Sendable {
    /// The socket file.
    public let path: String
    private let descriptor: Int32
    private let closed = NIOLockedValueBox(false)

    /// Binds `path` (which must not exist) and listens.
    public init(path: String, backlog: Int32 = 256) throws(TransportError) {
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = try syscall("socket") { Glibc.socket(AF_UNIX, type, 0) }.transportValue("socket")
        do throws(TransportError) {
            _ = try UnixSocketAddress.with(path: path) { address, length throws(TransportError) in
                try syscall("bind") { Glibc.bind(descriptor, address, length) }.transportValue("bind")
            }
            _ = try syscall("listen") { Glibc.listen(descriptor, backlog) }.transportValue("listen")
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        self.path = path
        self.descriptor = descriptor
    }

    /// Waits for the next connection and reads its hello message (empty when the peer sent its
    /// hello as nothing). Blocks the calling thread: call it from a dedicated one.
    ///
    /// - Throws: ``TransportError``: `closed` after ``close()``, or the failure of `accept`/`recv`.
    public func accept(
        label: String = "unix-seqpacket"
    ) throws(TransportError) -> (
        bearer: SeqPacketBearer, hello: [UInt8]
    ) {
        if closed.withLockedValue({ $0 }) { throw Self.closedError(path) }
        let result = syscall("accept") { Glibc.accept(descriptor, nil, nil) }
        // After `shutdown`, a blocked or later accept fails with EINVAL.
        if case .failure(let errno) = result, errno == .invalidArgument {
            throw Self.closedError(path)
        }
        let connection = try result.transportValue("accept")
        // Not inherited by the daemon the benchmark starts.
        _ = syscall("fcntl") { Glibc.fcntl(connection, F_SETFD, FD_CLOEXEC) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let received = buffer.withUnsafeMutableBytes { raw in
            syscall("recv") { Glibc.recv(connection, raw.baseAddress, raw.count, 0) }
        }
        let count: Int
        switch received {
        case .success(let value): count = value
        case .failure(let errno):
            closeDescriptor(connection)
            throw TransportError(syscall: "recv", errno: errno)
        }
        let bearer = try SeqPacketBearer(adopting: FileDescriptor(rawValue: connection), label: label)
        return (bearer, Array(buffer.prefix(count)))
    }

    /// Stops listening: a blocked ``accept(label:)`` returns `closed`; removes the socket file.
    /// The descriptor itself is closed when the listener is released, so no accept can ever reach
    /// a number the kernel has handed to someone else.
    public func close() {
        let wasClosed = closed.withLockedValue { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        _ = syscall("shutdown") { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        _ = syscall("unlink") { Glibc.unlink(path) }
    }

    deinit {
        closeDescriptor(descriptor)
    }

    private static func closedError(_ path: String) -> TransportError {
        TransportError(code: .closed, message: "the listener at \(path) was closed: make a new one to accept again")
    }
}

/// A `sockaddr_un` for a socket path.
enum UnixSocketAddress {
    static func with<T>(
        path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(TransportError) -> T
    ) throws(TransportError) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else {
            throw TransportError(
                code: .system,
                message: "the socket path \(path) is longer than \(capacity - 1) bytes: choose a shorter one")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        return try withUnsafePointer(to: &address) { pointer throws(TransportError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(TransportError) in
                try body(generic, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
