// SPDX-License-Identifier: GPL-2.0-or-later

/// Counters of one sensor link over its whole life, across reconnects.
public struct SensorLinkStatistics: Hashable, Sendable {
    /// Connection attempts started (the first one included).
    public var connectAttempts = 0
    /// Times the link reached streaming.
    public var connects = 0
    /// Times it reached streaming again after the first (`connects − 1` once connected).
    public var reconnects = 0
    /// Attempts that failed before streaming (connector or GATT setup).
    public var failedAttempts = 0
    /// Times a streaming link was lost (bearer ended or watchdog).
    public var linksLost = 0
    /// Times the watchdog declared a silent link dead (a subset of `linksLost`).
    public var watchdogTrips = 0
    /// Accelerometer notifications received, well-formed or not.
    public var notifications = 0
    /// Samples published.
    public var samples = 0
    /// Samples dropped because their index had been published already (replays, duplicates).
    public var duplicateSamplesDropped = 0
    /// Notifications dropped because their length was not 2 + 6k.
    public var malformedNotifications = 0
    /// Sample indices skipped between published samples: what was really lost.
    public var missingSamples = 0
    /// Counter resyncs (the sensor's counter restarted far from where it was).
    public var resyncs = 0
    /// Events dropped because the consumer of `events` fell behind.
    public var eventsDropped = 0
    /// The most recent failure (attempt failure or loss); nil while there has been none.
    public var lastFailure: SensorLinkError?

    /// All zero.
    public init() {}
}
