// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol

extension Gateway {
    /// `GET /v1/replication`: the replication service's status; `configured: false` without
    /// `[replication]`.
    public func replicationStatus() async throws(ControlError) -> ReplicationStatusInfo {
        dependencies.replicationStatus?() ?? ReplicationStatusInfo(configured: false)
    }
}
