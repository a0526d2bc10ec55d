// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Logging
import ServiceLifecycle
import SystemCalls
import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// Tells systemd how the daemon is doing (`sd_notify` without libsystemd): one datagram per
/// message to `$NOTIFY_SOCKET`, a path or an abstract socket (`@name`). Without the variable
/// every call does nothing, so the daemon runs the same outside systemd.
///
/// Sends are non-blocking (`MSG_DONTWAIT`): a full socket loses the message instead of stalling
/// the caller, so the notifier is safe to call from the cooperative pool.
public struct SystemdNotifier: Sendable {
    /// The socket address from `NOTIFY_SOCKET`; nil when not under `Type=notify`.
    public let socketPath: String?
    /// Half of `WATCHDOG_USEC` (systemd's advice), nil when the watchdog is off or meant for
    /// another process (`WATCHDOG_PID`).
    public let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, processID: Int32 = getpid()
    ) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        var interval: Duration?
        if path != nil, let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 {
            let forUs = environment["WATCHDOG_PID"].flatMap { Int32($0) }.map { $0 == processID } ?? true
            if forUs { interval = .microseconds(Int64(clamping: usec / 2)) }
        }
        watchdogInterval = interval
    }

    /// True when there is somewhere to send to.
    public var isEnabled: Bool { socketPath != nil }

    /// `READY=1` with a status line.
    public func ready(status: String? = nil) -> Errno? {
        send(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }

    /// `STATUS=…`.
    public func status(_ text: String) -> Errno? { send(["STATUS=\(text)"]) }

    /// `WATCHDOG=1`.
    public func watchdog() -> Errno? { send(["WATCHDOG=1"]) }

    /// `STOPPING=1`.
    public func stopping() -> Errno? { send(["STOPPING=1"]) }

    /// Sends the assignments as one datagram; nil on success (or when disabled), else the error.
    @discardableResult
    public func send(_ assignments: [String]) -> Errno? {
        guard let socketPath else { return nil }
        let message = Array(assignments.joined(separator: "\n").utf8)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        let abstract = pathBytes.first == UInt8(ascii: "@")
        if abstract { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return .fileNameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count + (abstract ? 0 : 1)

        let descriptor: Int32
        switch syscall("socket", { socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }) {
        case .success(let opened): descriptor = opened
        case .failure(let error): return error
        }
        defer { _ = syscall("close", retryingOnEINTR: false) { close(descriptor) } }
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    syscall("sendto") {
                        sendto(
                            descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL),
                            socketAddress, socklen_t(length))
                    }
                }
            }
        }
        if case .failure(let error) = sent { return error }
        return nil
    }
}

/// Tells systemd when the daemon is ready, pings the watchdog from the daemon's main loop and
/// keeps `STATUS=` current.
///
/// It sends `READY=1` once `waitUntilReady` returns (the store is open, the links are started and
/// the control socket listens). Then every `watchdogInterval` (half of `WATCHDOG_USEC`) it asks `statusLine` for the current
/// status: only when that answers (the gateway is responsive) does it send `WATCHDOG=1`,
/// so a hung gateway is restarted by systemd. Without the watchdog it still refreshes `STATUS=`
/// every `statusInterval`. Sends `STOPPING=1` on graceful shutdown.
public struct SystemdNotifierService<C: Clock>: Service where C.Duration == Duration {
    private let notifier: SystemdNotifier
    private let clock: C
    private let statusInterval: Duration
    private let statusLine: @Sendable () async -> String
    private let waitUntilReady: @Sendable () async -> Void
    private let logger: Logger

    /// A service over `notifier` that reads the status with `statusLine`.
    public init(
        notifier: SystemdNotifier, clock: C, statusInterval: Duration = .seconds(5),
        logger: Logger = Logger(label: "sportsensord.systemd"),
        waitUntilReady: @escaping @Sendable () async -> Void = {},
        statusLine: @escaping @Sendable () async -> String
    ) {
        self.notifier = notifier
        self.clock = clock
        self.statusInterval = statusInterval
        self.statusLine = statusLine
        self.waitUntilReady = waitUntilReady
        self.logger = logger
    }

    /// Runs until graceful shutdown or cancellation.
    public func run() async throws {
        guard notifier.isEnabled else {
            try? await gracefulShutdown()
            return
        }
        let interval = notifier.watchdogInterval.map { min($0, statusInterval) } ?? statusInterval
        await cancelWhenGracefulShutdown {
            await waitUntilReady()
            guard !Task.isCancelled else { return }
            if let error = notifier.ready(status: await statusLine()) {
                logger.warning("cannot tell systemd the daemon is ready", metadata: ["error": "\(error)"])
            }
            while !Task.isCancelled {
                do { try await clock.sleep(for: interval) } catch { break }
                let status = await statusLine()
                if notifier.watchdogInterval != nil, let error = notifier.watchdog() {
                    logger.warning("cannot ping the systemd watchdog", metadata: ["error": "\(error)"])
                }
                _ = notifier.status(status)
            }
        }
        _ = notifier.stopping()
    }
}
