// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayCore
import Replication

extension GatewayMetrics {
    /// Sets the replication gauges from `status`.
    public func record(_ status: ReplicationStatus) {
        replicationOutboxItems.record(status.outboxItems)
        replicationLagSeconds.record(status.lagSeconds)
        replicationOutboxAlarm.record(status.alarm ? 1 : 0)
        replicationConnected.record(status.state == .replicating ? 1 : 0)
    }
}
