// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import NIOConcurrencyHelpers
import SDUSensor

/// The notification path: the GATT client's sink (``SensorLinkConnection``) calls `handle` on
/// the thread that read each notification; the gate and the watchdog's deadline run under the link's lock, and the
/// samples go to the sink after it is released.
extension SensorLink {
    /// Samples to hand to a sink, once the lock is released.
    typealias Delivery = (sink: any SensorSampleSink, batch: [IndexedSample])

    /// One step of ``handOverEarly()``.
    enum EarlyStep {
        case deliver(Delivery)
        case next
        case done
    }

    /// One notification, on the thread that read it. Specialized for the daemon's clock: the
    /// generic entry finds the specialization with one type check, not a metadata lookup per
    /// generic type it touches.
    @_specialize(where C == ContinuousClock)
    func handle(_ notification: GATTClient<C>.Notification) {
        let delivery = core.withLockedValue { core -> Delivery? in
            guard notification.handle == core.accelerometerHandle else {
                logger.debug(
                    "ignoring a value from another characteristic", metadata: ["att.handle": "\(notification.handle)"])
                return nil
            }
            switch core.machine.phase {
            case .streaming where !core.drainingEarly:
                return accept(notification, into: &core)
            case .discovering, .streaming:
                if core.early.count < Self.earlyCapacity { core.early.append(notification.owned) }
                return nil
            default:
                return nil
            }
        }
        // The batch is the link's buffer: the sink does not keep it, so it stays unshared and the
        // next notification reuses it.
        if let delivery { delivery.sink.samplesArrived(delivery.batch) }
    }

    /// Hands the notifications that came during set-up to the sink, one at a time, then lets
    /// later ones through (`drainingEarly`).
    func handOverEarly() {
        while true {
            let step = core.withLockedValue { core -> EarlyStep in
                guard case .streaming = core.machine.phase, !core.early.isEmpty else {
                    core.early = []
                    core.drainingEarly = false
                    return .done
                }
                let notification = core.early.removeFirst()
                return accept(notification, into: &core).map(EarlyStep.deliver) ?? .next
            }
            switch step {
            case .deliver(let delivery): delivery.sink.samplesArrived(delivery.batch)
            case .next: continue
            case .done: return
            }
        }
    }

    /// Runs `notification` through the gate and moves the watchdog's deadline; returns the
    /// samples to hand over, if any. Called under the lock, while streaming.
    func accept(_ notification: GATTClient<C>.Notification, into core: inout Core) -> Delivery? {
        let arrival = origin.duration(to: notification.receivedAt).inSeconds
        let verdict = notification.value.withUnsafeBytes { value in
            core.gate.accept(notification: value, arrivalTime: arrival, into: &core.samples)
        }
        switch verdict.outcome.event {
        case .malformed(let error):
            logger.debug("malformed notification dropped", metadata: ["error": "\(error)"])
        case .duplicate:
            logger.debug("replayed notification dropped")
        case .resync:
            logger.info(
                "sample counter restarted: indices continue", metadata: ["samples.skipped": "\(verdict.missingBefore)"])
        default:
            break
        }
        if verdict.droppedAsDuplicates > 0 {
            logger.debug(
                "samples already published dropped", metadata: ["samples.dropped": "\(verdict.droppedAsDuplicates)"])
        }
        // The watchdog counts from when the link handled the notification, so a backlog in the
        // gateway itself is never taken for a silent sensor.
        let samplesCarried = max(1, (notification.value.count - SDUProfile.headerLength) / SDUProfile.sampleLength)
        _ = core.machine.notificationReceived(
            at: clock.now, sampleRate: Self.watchdogRate(core.gate), sampleCount: samplesCarried)
        guard !core.samples.isEmpty, let sink = core.sink else { return nil }
        return (sink, core.samples)
    }
}
