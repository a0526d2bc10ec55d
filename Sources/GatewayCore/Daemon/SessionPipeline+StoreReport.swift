// SPDX-License-Identifier: GPL-2.0-or-later
import NIOConcurrencyHelpers
import SessionStore

/// The session's share of the gateway's store gauges: what its recorder has queued, failed and
/// written, reported as changes once a second and taken back out when the session ends.
extension SessionPipeline {
    /// Adds this session's change of queue depth to the gateway's total, and the latest write's
    /// duration when a write happened since the last tick.
    func reportStore(_ statistics: SessionRecorder<C>.Statistics) {
        let (depthChange, newWrite, newFailures, degradedChange) = state.withLockedValue {
            state -> (Int, Bool, Int, Int) in
            // After finish, `finish(reason:)` takes the session's share back out of the total.
            guard !state.finished else { return (0, false, 0, 0) }
            defer {
                state.reportedQueueDepth = statistics.queueDepth
                state.reportedFlushes = statistics.flushes
                state.reportedFailures = statistics.failedFlushes
                state.reportedDegraded = statistics.isDegraded
            }
            let degradedChange = statistics.isDegraded == state.reportedDegraded ? 0 : statistics.isDegraded ? 1 : -1
            return (
                statistics.queueDepth - state.reportedQueueDepth, statistics.flushes != state.reportedFlushes,
                statistics.failedFlushes - state.reportedFailures, degradedChange
            )
        }
        if newFailures > 0 { metrics.storeFailedWrites.increment(by: Int64(newFailures)) }
        if degradedChange > 0 { metrics.storeDegradedSessions.increment(by: 1.0) }
        if degradedChange < 0 { metrics.storeDegradedSessions.decrement(by: 1.0) }
        // A meter takes positive steps only, up or down.
        if depthChange > 0 { metrics.storeQueueDepth.increment(by: Double(depthChange)) }
        if depthChange < 0 { metrics.storeQueueDepth.decrement(by: Double(-depthChange)) }
        if newWrite { metrics.storeWriteSeconds.recordNanoseconds(Self.nanoseconds(statistics.lastFlushLatency)) }
    }

    /// Takes this session's share out of the gateway's store gauges, once it has ended.
    func withdrawStoreReport() {
        let (depth, degraded) = state.withLockedValue { state in
            defer {
                state.reportedQueueDepth = 0
                state.reportedDegraded = false
            }
            return (state.reportedQueueDepth, state.reportedDegraded)
        }
        if depth > 0 { metrics.storeQueueDepth.decrement(by: Double(depth)) }
        if depth < 0 { metrics.storeQueueDepth.increment(by: Double(-depth)) }
        if degraded { metrics.storeDegradedSessions.decrement(by: 1.0) }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
