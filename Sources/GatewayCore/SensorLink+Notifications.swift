// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import SDUSensor

/// The notification path: the GATT client calls `handle` on the thread that read each
/// notification; the gate, the watchdog's deadline and the hand-over of the samples run under
/// the link's lock, never on the actor.
extension SensorLink {
    /// Waits until the notification stream ends (the notifications themselves go to `handle`,
    /// from the GATT client's reading thread); returns the machine's actions for the end.
    nonisolated func consume(_ notifications: GATTClient<C>.Notifications) async -> [Action] {
        var failure: (any Error)?
        do {
            for try await notification in notifications { handle(GATTClient<C>.NotificationSlice(notification)) }
        } catch {
            failure = error
        }
        guard !Task.isCancelled else { return [] }
        return await streamEnded(failure)
    }

    /// One notification, on the thread that read it. Specialized for the daemon's clock: the
    /// generic entry finds the specialization with one type check, not a metadata lookup per
    /// generic type it touches.
    @_specialize(where C == ContinuousClock)
    nonisolated func handle(_ notification: GATTClient<C>.NotificationSlice) {
        core.withLock { core in
            guard notification.handle == core.accelerometerHandle else {
                logger.debug(
                    "ignoring a value from another characteristic", metadata: ["att.handle": "\(notification.handle)"])
                return
            }
            switch core.machine.phase {
            case .streaming:
                accept(notification, into: &core)
            case .discovering:
                if core.early.count < Self.earlyCapacity { core.early.append(notification.owned) }
            default:
                break
            }
        }
    }

    /// Runs `notification` through the gate, moves the watchdog's deadline and hands the samples
    /// on. Called under the lock, while streaming.
    nonisolated func accept(_ notification: GATTClient<C>.NotificationSlice, into core: inout Core) {
        let arrival = origin.duration(to: notification.receivedAt).inSeconds
        let result = notification.value.withUnsafeBytes { value in
            core.gate.accept(notification: value, arrivalTime: arrival, into: &core.samples)
        }
        switch result.outcome.event {
        case .malformed(let error):
            logger.debug("malformed notification dropped", metadata: ["error": "\(error)"])
        case .duplicate:
            logger.debug("replayed notification dropped")
        case .resync:
            logger.info(
                "sample counter restarted: indices continue", metadata: ["samples.skipped": "\(result.missingBefore)"])
        default:
            break
        }
        if result.droppedAsDuplicates > 0 {
            logger.debug(
                "samples already published dropped", metadata: ["samples.dropped": "\(result.droppedAsDuplicates)"])
        }
        // The watchdog counts from when the link handled the notification, so a backlog in the
        // gateway itself is never taken for a silent sensor.
        let samplesCarried = max(1, (notification.value.count - SDUProfile.headerLength) / SDUProfile.sampleLength)
        _ = core.machine.notificationReceived(
            at: clock.now, sampleRate: Self.watchdogRate(core.gate), sampleCount: samplesCarried)
        guard !core.samples.isEmpty else { return }
        if let handler = core.sampleHandler {
            // The handler does not keep the batch, so the buffer stays unshared and is reused.
            handler(core.samples)
        } else {
            emit(.samples(core.samples), counters: &core.counters)
        }
    }
}
