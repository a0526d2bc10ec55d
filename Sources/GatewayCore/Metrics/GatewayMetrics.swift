// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Metrics

/// Every series the gateway reports (Docs/API.md lists them), made once with its name and type.
///
/// Services receive this value and emit through its handles; nobody spells a metric label
/// elsewhere, because the Prometheus backend refuses one name under two types and a typo makes a
/// series that never moves. Creating the value registers every series, so a scrape shows each at
/// zero from the start.
public struct GatewayMetrics: Sendable {
    /// The series' names.
    public enum Name {
        /// Counter: notifications received from sensors (well-formed or not).
        public static let notifications = "sportsensord_notifications_total"
        /// Counter: samples decoded from notifications.
        public static let samples = "sportsensord_samples_total"
        /// Counter: samples the sensor's counter says never arrived.
        public static let lostSamples = "sportsensord_lost_samples_total"
        /// Counter: notifications dropped because their length is not 2 + 6k.
        public static let malformedNotifications = "sportsensord_malformed_notifications_total"
        /// Counter with dimension `type` (`hit`, `jump`, `throw`, `step`): detected events.
        public static let events = "sportsensord_events_total"
        /// Counter: sensor links that came back after they were lost.
        public static let reconnects = "sportsensord_reconnects_total"
        /// Counter: event-stream items a slow subscriber lost.
        public static let eventBusDropped = "sportsensord_event_bus_dropped_total"
        /// Gauge: sensors with a link up.
        public static let sensorsConnected = "sportsensord_sensors_connected"
        /// Gauge: sessions recording.
        public static let liveSessions = "sportsensord_live_sessions"
        /// Gauge: samples waiting for the store, over every live session.
        public static let storeQueueDepth = "sportsensord_store_queue_depth"
        /// Timer (histogram in seconds): one store write of a session's buffered samples and events.
        public static let storeWriteSeconds = "sportsensord_store_write_seconds"
        /// Counter: store writes of a live session that failed (disk full, I/O error); the rows stay
        /// in memory and are retried.
        public static let storeFailedWrites = "sportsensord_store_failed_writes_total"
        /// Gauge: live sessions whose last store write failed (`store_degraded`).
        public static let storeDegradedSessions = "sportsensord_store_degraded_sessions"
        /// Counter: samples spilled to a recovery file because a session's end could not be stored.
        public static let storeSpilledSamples = "sportsensord_store_spilled_samples_total"
        /// The dimension of ``events``.
        public static let eventType = "type"
        /// Gauge: changes waiting in the replication outbox (Docs/REPLICATION.md).
        public static let replicationOutboxItems = "sportsensord_replication_outbox_items"
        /// Gauge: age of the oldest waiting change, seconds (the replication lag).
        public static let replicationLagSeconds = "sportsensord_replication_lag_seconds"
        /// Gauge: 1 while the outbox is near (or at) its bound.
        public static let replicationOutboxAlarm = "sportsensord_replication_outbox_alarm"
        /// Gauge: 1 while connected to the central database.
        public static let replicationConnected = "sportsensord_replication_connected"

        /// Every series' name, as Docs/API.md lists them.
        public static let all = [
            notifications, samples, lostSamples, malformedNotifications, events, reconnects, eventBusDropped,
            sensorsConnected, liveSessions, storeQueueDepth, storeWriteSeconds,
            storeFailedWrites, storeDegradedSessions, storeSpilledSamples,
            replicationOutboxItems, replicationLagSeconds, replicationOutboxAlarm, replicationConnected,
        ]
    }

    /// Notifications received.
    public let notifications: Counter
    /// Samples decoded.
    public let samples: Counter
    /// Samples lost on the air.
    public let lostSamples: Counter
    /// Malformed notifications dropped.
    public let malformedNotifications: Counter
    /// Links that came back.
    public let reconnects: Counter
    /// Event-stream items dropped for slow subscribers.
    public let eventBusDropped: Counter
    /// Sensors connected.
    public let sensorsConnected: Gauge
    /// Live sessions.
    public let liveSessions: Gauge
    /// Samples waiting for the store; each session adds the change of its own queue.
    public let storeQueueDepth: Meter
    /// Store write durations.
    public let storeWriteSeconds: Metrics.Timer
    /// Failed store writes of live sessions.
    public let storeFailedWrites: Counter
    /// Live sessions whose store writes fail now; each session adds its own change.
    public let storeDegradedSessions: Meter
    /// Samples spilled to recovery files.
    public let storeSpilledSamples: Counter
    private let eventCounters: [EventKind: Counter]
    /// Replication outbox items.
    public let replicationOutboxItems: Gauge
    /// Replication lag, seconds.
    public let replicationLagSeconds: Gauge
    /// Replication outbox alarm (0/1).
    public let replicationOutboxAlarm: Gauge
    /// Connected to the central database (0/1).
    public let replicationConnected: Gauge

    /// Creates (and so registers) every series through `factory`, by default the bootstrapped
    /// swift-metrics backend (tests pass their own, so what one gateway emits is theirs alone).
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        notifications = Counter(label: Name.notifications, factory: factory)
        samples = Counter(label: Name.samples, factory: factory)
        lostSamples = Counter(label: Name.lostSamples, factory: factory)
        malformedNotifications = Counter(label: Name.malformedNotifications, factory: factory)
        reconnects = Counter(label: Name.reconnects, factory: factory)
        eventBusDropped = Counter(label: Name.eventBusDropped, factory: factory)
        sensorsConnected = Gauge(label: Name.sensorsConnected, factory: factory)
        liveSessions = Gauge(label: Name.liveSessions, factory: factory)
        storeQueueDepth = Meter(label: Name.storeQueueDepth, factory: factory)
        storeWriteSeconds = Metrics.Timer(label: Name.storeWriteSeconds, factory: factory)
        storeFailedWrites = Counter(label: Name.storeFailedWrites, factory: factory)
        storeDegradedSessions = Meter(label: Name.storeDegradedSessions, factory: factory)
        storeSpilledSamples = Counter(label: Name.storeSpilledSamples, factory: factory)
        var counters: [EventKind: Counter] = [:]
        for kind in EventKind.allCases {
            counters[kind] = Counter(
                label: Name.events, dimensions: [(Name.eventType, kind.rawValue)], factory: factory)
        }
        eventCounters = counters
        replicationOutboxItems = Gauge(label: Name.replicationOutboxItems, factory: factory)
        replicationLagSeconds = Gauge(label: Name.replicationLagSeconds, factory: factory)
        replicationOutboxAlarm = Gauge(label: Name.replicationOutboxAlarm, factory: factory)
        replicationConnected = Gauge(label: Name.replicationConnected, factory: factory)
    }

    /// The counter of detected events of `kind`.
    public func events(_ kind: EventKind) -> Counter {
        eventCounters[kind]!
    }

    /// Shows every counter and gauge at zero (the timer shows once it is created).
    public func registerAtZero() {
        for counter in [
            notifications, samples, lostSamples, malformedNotifications, reconnects, eventBusDropped, storeFailedWrites,
            storeSpilledSamples,
        ] {
            counter.increment(by: 0)
        }
        for counter in eventCounters.values { counter.increment(by: 0) }
        for gauge in [sensorsConnected, liveSessions] { gauge.record(0) }
        for gauge in [replicationOutboxItems, replicationLagSeconds, replicationOutboxAlarm, replicationConnected] {
            gauge.record(0)
        }
        storeQueueDepth.increment(by: 0.0)
        storeDegradedSessions.increment(by: 0.0)
    }
}
