// SPDX-License-Identifier: GPL-2.0-or-later
import Glibc

/// The controller's end of a pretend raw HCI socket: an `AF_UNIX` `SOCK_SEQPACKET` socket pair
/// whose other end (``hostDescriptor``) a test hands to the scanner by scripting `socket(2)` to
/// return it. Like a raw HCI socket, each message is one H4 packet, so the test reads every
/// command the scanner writes, byte for byte, and answers with recorded events.
///
/// The fake's own calls use Glibc directly, not the transport's syscall wrapper, so they never
/// consume outcomes a ``SyscallScript`` holds for the code under test.
public final class FakeHCIController: Sendable {
    /// The end the code under test owns and closes.
    public let hostDescriptor: Int32
    private let descriptor: Int32

    /// A connected pair; the controller's end is non-blocking.
    public init() throws(FakeHCIControllerError) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let result = fds.withUnsafeMutableBufferPointer { Glibc.socketpair(AF_UNIX, type, 0, $0.baseAddress) }
        guard result == 0 else { throw FakeHCIControllerError(message: "socketpair failed: errno \(errno)") }
        hostDescriptor = fds[0]
        descriptor = fds[1]
        _ = Glibc.fcntl(descriptor, F_SETFL, Glibc.fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        _ = Glibc.close(descriptor)
    }

    /// The next packet the host wrote (H4 type byte first), or nil once the host closed its end.
    ///
    /// - Throws: ``FakeHCIControllerError`` when nothing arrives within `timeout` (30 s by default: the
    ///   tests check what the host writes and in which order, not how fast, and a machine busy with
    ///   parallel builds can hold the host task back for several seconds).
    public func nextPacket(timeout: Duration = .seconds(30)) async throws -> [UInt8]? {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Array(buffer[..<count]) }
            if count == 0 { return nil }
            // A host that closes with packets still unread makes the kernel report ECONNRESET
            // once, before the packets the host wrote last (its final disable): read on to them.
            if errno == ECONNRESET { continue }
            // The end is non-blocking: recv never sleeps, so no signal interrupts it (no EINTR).
            guard errno == EAGAIN else {
                throw FakeHCIControllerError(message: "recv failed: errno \(errno)")
            }
            guard ContinuousClock.now < deadline else {
                throw FakeHCIControllerError(message: "the host wrote nothing within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Sends one packet (an H4 event, type byte first) to the host.
    public func send(_ packet: [UInt8]) throws(FakeHCIControllerError) {
        let sent = packet.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == packet.count else { throw FakeHCIControllerError(message: "send failed: errno \(errno)") }
    }
}

/// A failure of the fake controller itself (not of the code under test).
public struct FakeHCIControllerError: Error, CustomStringConvertible {
    /// What failed.
    public var message: String
    /// The message.
    public var description: String { message }
}
