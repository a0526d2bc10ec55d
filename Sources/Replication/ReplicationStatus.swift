// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// What replication is doing, for `sportsensorctl replication status` and `/metrics`.
public struct ReplicationStatus: Hashable, Sendable {
    /// The sender's state.
    public enum State: String, Hashable, Sendable {
        /// Not yet connected.
        case connecting
        /// Connected; the outbox is empty or being sent.
        case replicating
        /// The last attempt failed; waiting before the next.
        case backingOff = "backing-off"
        /// The central database refused this gateway (id clash, newer schema): retried slowly.
        case refused
        /// Stopped (shutdown).
        case stopped
    }

    /// The state.
    public var state: State = .connecting
    /// The gateway id.
    public var gatewayID: String
    /// The URL without its password.
    public var target: String
    /// Items in the outbox.
    public var outboxItems = 0
    /// The outbox's bound.
    public var outboxLimit: Int
    /// Age of the oldest waiting item, seconds (0 when empty): the lag.
    public var lagSeconds: Double = 0
    /// False after the outbox reached its bound: changes wait for a resync.
    public var queueing = true
    /// The outbox is at or above the alarm fraction of its bound.
    public var alarm = false
    /// Items sent since start.
    public var sentItems: Int64 = 0
    /// Samples sent since start.
    public var sentSamples: Int64 = 0
    /// When a batch was last stored centrally.
    public var lastSuccess: Date?
    /// The last error (message with its fix), nil once a batch goes through.
    public var lastError: String?
    /// Its code.
    public var lastErrorCode: String?

    /// The starting status.
    public init(gatewayID: String, target: String, outboxLimit: Int) {
        self.gatewayID = gatewayID
        self.target = target
        self.outboxLimit = outboxLimit
    }
}

/// `[replication]`, validated.
public struct ReplicationSettings: Hashable, Sendable {
    /// Where to replicate to.
    public var url: PostgresURL
    /// This gateway's id, unique among the gateways replicating into `url`.
    public var gatewayID: String
    /// Replicate raw samples too.
    public var samples: Bool
    /// The outbox's bound, items; past it changes are not queued until a resync (local data kept).
    public var maxOutboxItems: Int
    /// Items per batch.
    public var batchItems = 5000
    /// Samples per batch (chunks are read until this many).
    public var batchSamples = 262_144
    /// Share of the bound at which the alarm goes on.
    public var alarmFraction = 0.8

    /// Creates settings.
    public init(url: PostgresURL, gatewayID: String, samples: Bool, maxOutboxItems: Int) {
        self.url = url
        self.gatewayID = gatewayID
        self.samples = samples
        self.maxOutboxItems = maxOutboxItems
    }
}

/// The delay before the next attempt after `failures` failures in a row: 0.5 s doubling to 30 s.
/// Deterministic (no jitter from a global generator): `spread` in 0..<1, e.g. from the gateway
/// id's hash, shifts it by up to 25 % so halls that lost the server together do not return in
/// step.
public struct ReplicationBackoff: Hashable, Sendable {
    /// First delay.
    public var initial: Duration = .milliseconds(500)
    /// Longest delay.
    public var maximum: Duration = .seconds(30)
    /// Spread, 0..<1.
    public var spread: Double = 0

    /// Creates a backoff.
    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30), spread: Double = 0) {
        self.initial = initial
        self.maximum = maximum
        self.spread = min(max(spread, 0), 0.999)
    }

    /// The delay after `failures` (≥ 1) failures in a row.
    public func delay(afterFailures failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 16)
        let base = min(initial * (1 << doublings), maximum)
        return base + base * (spread * 0.25)
    }
}
