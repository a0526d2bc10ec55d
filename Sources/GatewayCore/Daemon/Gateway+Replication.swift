// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Replication

extension Gateway {
    /// `GET /v1/replication`: the replication service's status; `configured: false` without
    /// `[replication]`.
    public func replicationStatus() async throws(ControlError) -> ReplicationStatusInfo {
        guard let status = dependencies.replicationStatus?() else { return ReplicationStatusInfo(configured: false) }
        return ReplicationStatusInfo(
            configured: true, state: status.state.rawValue, gatewayId: status.gatewayID, target: status.target,
            outboxItems: status.outboxItems, outboxLimit: status.outboxLimit, lagSeconds: status.lagSeconds,
            queueing: status.queueing, alarm: status.alarm, sentItems: status.sentItems,
            sentSamples: status.sentSamples,
            lastSuccess: status.lastSuccess, lastError: status.lastError, lastErrorCode: status.lastErrorCode)
    }
}
