// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import GatewayCore
import Replication
import SessionStore

extension GatewayApplication {
    /// The replication service when `[replication]` is configured; without it, the store's
    /// triggers are removed so nothing is queued for nobody.
    func makeReplication(
        store: SessionStore, clock: ContinuousClock, metrics: GatewayMetrics
    ) async throws -> ReplicationService<ContinuousClock>? {
        guard let configuration = configuration.replication else {
            try await store.disableReplication()
            return nil
        }
        let url = try PostgresURL(parsing: configuration.postgresURL)
        let settings = ReplicationSettings(
            url: url, gatewayID: configuration.gatewayID, samples: configuration.samples,
            maxOutboxItems: configuration.maxOutboxItems)
        return ReplicationService(
            settings: settings, store: store, clock: clock, logger: logger.with(label: "replication"),
            onStatus: { metrics.record($0) })
    }
}

extension ReplicationStatusInfo {
    /// What `GET /v1/replication` reports of `status`.
    init(_ status: ReplicationStatus) {
        self.init(
            configured: true, state: status.state.rawValue, gatewayId: status.gatewayID, target: status.target,
            outboxItems: status.outboxItems, outboxLimit: status.outboxLimit, lagSeconds: status.lagSeconds,
            queueing: status.queueing, alarm: status.alarm, sentItems: status.sentItems,
            sentSamples: status.sentSamples,
            lastSuccess: status.lastSuccess, lastError: status.lastError, lastErrorCode: status.lastErrorCode)
    }
}
