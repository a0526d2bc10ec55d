// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import NIOConcurrencyHelpers

/// One connection of a `SensorLink` as its GATT client's sink: notifications go into the link on
/// the thread that read them, and the end of the link is kept for the link's task to await.
///
/// A strong reference to the link (a weak load per notification costs more than the rest of the
/// hand-over): the link drops its client when it closes the bearer, which ends the cycle.
final class SensorLinkConnection<C: Clock>: GATTNotificationSink where C.Duration == Duration {
    typealias Instant = C.Instant

    private struct End {
        var ended = false
        var error: GATTError?
        var waiter: CheckedContinuation<GATTError?, Never>?
    }

    let link: SensorLink<C>
    private let end = NIOLockedValueBox(End())

    init(link: SensorLink<C>) {
        self.link = link
    }

    func notified(_ notification: GATTNotification<C.Instant>) {
        link.handle(notification)
    }

    func linkEnded(_ error: GATTError?) {
        let waiter = end.withLockedValue { end in
            end.ended = true
            end.error = error
            defer { end.waiter = nil }
            return end.waiter
        }
        waiter?.resume(returning: error)
    }

    /// Waits until the link ended: nil when this side closed it, the reason otherwise. Returns
    /// nil at once when the waiting task is cancelled.
    func ended() async -> GATTError? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<GATTError?, Never>) in
                let now = end.withLockedValue { end -> GATTError?? in
                    if end.ended { return .some(end.error) }
                    // Checked under the lock the cancellation handler takes.
                    if Task.isCancelled { return .some(nil) }
                    end.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = end.withLockedValue { end in
                defer { end.waiter = nil }
                return end.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
