// SPDX-License-Identifier: GPL-2.0-or-later

/// The swift-metrics labels the gateway reports under, which `GET /metrics` exposes in the
/// Prometheus text format (Docs/API.md lists them). Services emit through swift-metrics with
/// exactly these labels and the metric type named on each, because the Prometheus backend
/// refuses one name under two types. `ControlAPIMetrics.bootstrap()` registers all of them at
/// zero, so a scrape sees every series from the start.
public enum GatewayMetricNames {
    /// `Counter`: notifications received from sensors (well-formed or not).
    public static let notifications = "sportsensord_notifications_total"
    /// `Counter`: samples decoded from notifications.
    public static let samples = "sportsensord_samples_total"
    /// `Counter`: samples the sensor's counter says never arrived.
    public static let lostSamples = "sportsensord_lost_samples_total"
    /// `Counter`: notifications dropped because their length is not 2 + 6k.
    public static let malformedNotifications = "sportsensord_malformed_notifications_total"
    /// `Counter` with dimension ``eventTypeDimension``: detected events per type.
    public static let events = "sportsensord_events_total"
    /// The dimension of ``events``: `hit`, `jump`, `throw` or `step`.
    public static let eventTypeDimension = "type"
    /// The values ``eventTypeDimension`` takes.
    public static let eventTypes = ["hit", "jump", "throw", "step"]
    /// `Counter`: sensor link reconnect attempts.
    public static let reconnects = "sportsensord_reconnects_total"
    /// `Gauge` (a non-aggregating `Recorder`): samples waiting for the store.
    public static let queueDepth = "sportsensord_store_queue_depth"
    /// `Timer`: how long one store write (a batch or chunk) takes; a histogram in seconds.
    public static let storeWriteLatency = "sportsensord_store_write_seconds"
}
