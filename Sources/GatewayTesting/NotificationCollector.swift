// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient

/// A `GATTNotificationSink` for tests: every notification (copied out of its PDU) and then the
/// end of the link, as a stream a test reads at its own pace. Unbounded.
public final class NotificationCollector<Instant: InstantProtocol>: GATTNotificationSink {
    /// The notifications in arrival order; finishes when the client was closed, throws the
    /// `GATTError` the link ended with otherwise.
    public let notifications: AsyncThrowingStream<GATTNotification<Instant>, any Error>
    private let continuation: AsyncThrowingStream<GATTNotification<Instant>, any Error>.Continuation

    /// An empty collector.
    public init() {
        (notifications, continuation) = AsyncThrowingStream.makeStream()
    }

    public func notified(_ notification: GATTNotification<Instant>) {
        continuation.yield(notification.owned)
    }

    public func linkEnded(_ error: GATTError?) {
        if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
    }
}
