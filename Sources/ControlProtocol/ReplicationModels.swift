// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// `GET /v1/replication`: what replication into the central PostgreSQL is doing.
public struct ReplicationStatusInfo: Codable, Hashable, Sendable {
    /// False when `[replication]` is not configured (every other field is then empty).
    public var configured: Bool
    /// `connecting`, `replicating`, `backing-off`, `refused` or `stopped`.
    public var state: String?
    /// The configured gateway id.
    public var gatewayId: String?
    /// The central database's URL without its password.
    public var target: String?
    /// Changes waiting in the outbox: the lag in items.
    public var outboxItems: Int
    /// The outbox's bound.
    public var outboxLimit: Int
    /// Age of the oldest waiting change, seconds: the lag in time.
    public var lagSeconds: Double
    /// False after the bound was reached: changes wait for a resync.
    public var queueing: Bool
    /// The outbox is near its bound.
    public var alarm: Bool
    /// Items and samples sent since the daemon started.
    public var sentItems: Int64
    /// Samples sent since the daemon started.
    public var sentSamples: Int64
    /// When a batch last reached the central database.
    public var lastSuccess: Date?
    /// The last error with its fix; nil once a batch goes through.
    public var lastError: String?
    /// The last error's code.
    public var lastErrorCode: String?

    /// Creates a status.
    public init(
        configured: Bool, state: String? = nil, gatewayId: String? = nil, target: String? = nil, outboxItems: Int = 0,
        outboxLimit: Int = 0, lagSeconds: Double = 0, queueing: Bool = true, alarm: Bool = false, sentItems: Int64 = 0,
        sentSamples: Int64 = 0, lastSuccess: Date? = nil, lastError: String? = nil, lastErrorCode: String? = nil
    ) {
        self.configured = configured
        self.state = state
        self.gatewayId = gatewayId
        self.target = target
        self.outboxItems = outboxItems
        self.outboxLimit = outboxLimit
        self.lagSeconds = lagSeconds
        self.queueing = queueing
        self.alarm = alarm
        self.sentItems = sentItems
        self.sentSamples = sentSamples
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.lastErrorCode = lastErrorCode
    }
}
