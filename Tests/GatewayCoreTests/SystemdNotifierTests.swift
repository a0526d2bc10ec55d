// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayCore
import GatewayTesting
import ServiceLifecycle
import SystemCalls
import SystemPackage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An `AF_UNIX SOCK_DGRAM` socket bound in a temporary directory: what systemd listens on.
final class NotifySocket {
    let directory: String
    let path: String
    let descriptor: Int32

    init() throws {
        directory = NSTemporaryDirectory() + "notify-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/notify.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard descriptor >= 0, result == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
    }

    /// The next datagram, if one is queued (never waits).
    func receive() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Waits (in real time, briefly) for the next datagram.
    func next() async throws -> String? {
        for _ in 0..<500 {
            if let message = receive() { return message }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    deinit {
        close(descriptor)
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite("SystemdNotifier", .timeLimit(.minutes(5)))
struct SystemdNotifierTests {
    @Test("READY=1 and STATUS= arrive as one datagram on $NOTIFY_SOCKET")
    func ready() throws {
        let socket = try NotifySocket()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(notifier.isEnabled)
        #expect(notifier.ready(status: "2 of 2 sensors connected") == nil)
        #expect(socket.receive() == "READY=1\nSTATUS=2 of 2 sensors connected")
        #expect(notifier.watchdog() == nil)
        #expect(socket.receive() == "WATCHDOG=1")
    }

    @Test("without NOTIFY_SOCKET nothing is sent and nothing fails")
    func disabled() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        #expect(notifier.ready() == nil)
        #expect(notifier.watchdogInterval == nil)
    }

    @Test("WATCHDOG_USEC is halved; WATCHDOG_PID for another process turns the watchdog off")
    func watchdogInterval() {
        let ours = SystemdNotifier(environment: ["NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "3000000"], processID: 42)
        #expect(ours.watchdogInterval == .milliseconds(1500))
        let other = SystemdNotifier(
            environment: ["NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "7"], processID: 42)
        #expect(other.watchdogInterval == nil)
    }

    @Test("a failing socket or send comes back as its errno; an interrupted send is retried")
    func sendFailures() throws {
        let socket = try NotifySocket()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path])
        let noSocket = SyscallScript(["socket": [.fails(.tooManyOpenFiles)]])
        #expect(SyscallScript.$current.withValue(noSocket) { notifier.ready() } == .tooManyOpenFiles)
        #expect(noSocket.calls == ["socket"])
        let full = SyscallScript(["sendto": [.fails(.resourceTemporarilyUnavailable)]])
        #expect(SyscallScript.$current.withValue(full) { notifier.watchdog() } == .resourceTemporarilyUnavailable)
        #expect(full.calls == ["socket", "sendto", "close"])
        #expect(socket.receive() == nil)
        let interrupted = SyscallScript(["sendto": [.fails(.interrupted)]])
        #expect(SyscallScript.$current.withValue(interrupted) { notifier.status("busy") } == nil)
        #expect(interrupted.calls == ["socket", "sendto", "sendto", "close"])
        #expect(socket.receive() == "STATUS=busy")
    }

    @Test("a socket path too long for sockaddr_un is ENAMETOOLONG, with no system call made")
    func pathTooLong() {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/tmp/" + String(repeating: "n", count: 200)])
        let script = SyscallScript([:])
        #expect(SyscallScript.$current.withValue(script) { notifier.stopping() } == .fileNameTooLong)
        #expect(script.calls.isEmpty)
    }

    @Test("an abstract socket (@name) is reached too")
    func abstractSocket() throws {
        let name = "sportsensord-test-\(UUID().uuidString.prefix(8))"
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = [UInt8(0)] + Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(length)) }
        }
        try #require(bound == 0)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "@" + name])
        #expect(notifier.status("ok") == nil)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        #expect(count > 0 && String(decoding: buffer[..<max(0, count)], as: UTF8.self) == "STATUS=ok")
    }

    @Test("the service sends READY=1 when ready, then WATCHDOG=1 every WATCHDOG_USEC / 2 on its clock")
    func serviceWatchdog() async throws {
        let socket = try NotifySocket()
        let clock = ManualClock()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "2000000"])
        let service = SystemdNotifierService(
            notifier: notifier, clock: clock, statusInterval: .seconds(5), statusLine: { "all well" })
        let running = Task { try await service.run() }
        #expect(try await socket.next() == "READY=1\nSTATUS=all well")
        try await clock.waitForSleepers(count: 1)
        #expect(clock.sleeperDeadlines == [clock.now.advanced(by: .seconds(1))])
        #expect(socket.receive() == nil)
        clock.advance(by: .seconds(1))
        #expect(try await socket.next() == "WATCHDOG=1")
        #expect(try await socket.next() == "STATUS=all well")
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(1))
        #expect(try await socket.next() == "WATCHDOG=1")
        running.cancel()
        _ = try? await running.value
        #expect(try await socket.next() == "STATUS=all well")
        #expect(try await socket.next() == "STOPPING=1")
    }
}
