// SPDX-License-Identifier: GPL-2.0-or-later

/// Running counts of what an `SDUStreamDecoder` has seen on one sensor's stream.
public struct SDUStreamStatistics: Hashable, Sendable {
    /// Notifications passed to the decoder, well-formed or not.
    public var notifications = 0
    /// Samples delivered (duplicates and malformed notifications excluded).
    public var samplesReceived = 0
    /// Notifications dropped because their length was not 2 + 6k with k ≥ 1.
    public var malformedNotifications = 0
    /// Gaps reported by the counter (one per notification that followed a loss).
    public var gaps = 0
    /// Samples the counter says were lost (estimated as lost packets × k for a packet counter).
    public var lostSamples = 0
    /// Notifications dropped as duplicates or replays.
    public var duplicateNotifications = 0
    /// Samples in those duplicate notifications.
    public var duplicateSamples = 0
    /// Counter jumps too large to be a gap or a replay (sensor reset or reconnect).
    public var resyncs = 0
    /// What the header turned out to be.
    public var counterMode: SDUCounterMode = .detecting

    /// All counts zero, mode `.detecting`.
    public init() {}
}
