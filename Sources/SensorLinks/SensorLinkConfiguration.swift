// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// The settings of one sensor link.
public struct SensorLinkConfiguration: Hashable, Sendable {
    /// The reconnect policy.
    public var backoff: ReconnectBackoffConfiguration
    /// The silence detector.
    public var watchdog: LinkWatchdogConfiguration
    /// The decoder (counter tracking and clock recovery; its nominal rate is what the watchdog
    /// assumes until the clock locks).
    public var decoder: SDUStreamDecoder.Configuration
    /// The client receive MTU offered in the MTU exchange.
    public var preferredMTU: UInt16
    /// How long a GATT request may go unanswered before the link is given up.
    public var transactionTimeout: Duration
    /// Events held for a slow consumer of `SensorLink.events` before new ones are dropped (and
    /// counted in `eventsDropped`).
    public var eventBufferCapacity: Int
    /// Seed of the backoff's jitter; nil draws one from the system's generator.
    public var jitterSeed: UInt64?

    /// Defaults: 1 s → 30 s backoff reset after a stable minute, never giving up; watchdog
    /// max(2 s, 20 periods); 100 Hz nominal; MTU 247; 30 s ATT timeout; 4096 buffered events.
    public init(
        backoff: ReconnectBackoffConfiguration = .init(),
        watchdog: LinkWatchdogConfiguration = .init(),
        decoder: SDUStreamDecoder.Configuration = .init(),
        preferredMTU: UInt16 = 247,
        transactionTimeout: Duration = .seconds(30),
        eventBufferCapacity: Int = 4096,
        jitterSeed: UInt64? = nil
    ) {
        self.backoff = backoff
        self.watchdog = watchdog
        self.decoder = decoder
        self.preferredMTU = max(23, preferredMTU)
        self.transactionTimeout = transactionTimeout
        self.eventBufferCapacity = max(1, eventBufferCapacity)
        self.jitterSeed = jitterSeed
    }
}
