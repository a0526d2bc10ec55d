// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import NIOConcurrencyHelpers

/// Wraps the sensor's end of a bearer to emulate a sensor that stops streaming while its radio
/// link stays up (a firmware hang, a brown-out of the accelerometer): after
/// `notificationsBeforeStall` Handle Value Notifications, the next notification's `send` never
/// delivers and hangs until its task is cancelled or the bearer is closed. Requests and responses
/// keep passing, and the link never closes by itself: only a watchdog on the other end can tell.
public final class StallingATTBearer: ATTBearer {
    /// The error a hung `send` throws once released.
    public struct StalledError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What happened.
        public var description: String { "the stalled notification was never delivered" }
    }

    private struct State {
        var sentNotifications = 0
        var stalled = false
        var closed = false
        var hung: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var stallWatchers: [CheckedContinuation<Void, Never>] = []
        var nextID: UInt64 = 0
    }

    private let inner: any ATTBearer
    private let limit: Int
    private let state = NIOLockedValueBox(State())

    /// Wraps `inner`; the notification after the first `notificationsBeforeStall` hangs.
    public init(_ inner: any ATTBearer, notificationsBeforeStall: Int) {
        self.inner = inner
        limit = max(0, notificationsBeforeStall)
    }

    /// Notifications delivered before the stall.
    public var deliveredNotifications: Int { state.withLockedValue { $0.sentNotifications } }

    /// True once a notification has hung.
    public var isStalled: Bool { state.withLockedValue { $0.stalled } }

    /// Sends `pdu`; a notification beyond the limit hangs instead, then throws `StalledError`.
    public func send(_ pdu: [UInt8]) async throws {
        if pdu.first == 0x1B {
            let (stall, watchers) = state.withLockedValue { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard state.sentNotifications >= limit else {
                    state.sentNotifications += 1
                    return (false, [])
                }
                state.stalled = true
                defer { state.stallWatchers = [] }
                return (true, state.stallWatchers)
            }
            if stall {
                for watcher in watchers { watcher.resume() }
                await hang()
                throw StalledError()
            }
        }
        try await inner.send(pdu)
    }

    /// Hands what the other end sends to `handler`.
    public func deliver(to handler: @escaping @Sendable (ATTBearerInput) -> Void) {
        inner.deliver(to: handler)
    }

    /// Releases hung sends and closes the wrapped bearer.
    public func close() async {
        let hung = state.withLockedValue { state in
            state.closed = true
            defer { state.hung = [:] }
            return Array(state.hung.values)
        }
        for continuation in hung { continuation.resume() }
        await inner.close()
    }

    /// Returns once a notification has hung.
    public func waitUntilStalled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state in
                if state.stalled { return true }
                state.stallWatchers.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func hang() async {
        let id = state.withLockedValue { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let release = state.withLockedValue { state in
                    if state.closed || Task.isCancelled { return true }
                    state.hung[id] = continuation
                    return false
                }
                if release { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLockedValue { $0.hung.removeValue(forKey: id) }
            continuation?.resume()
        }
    }
}
