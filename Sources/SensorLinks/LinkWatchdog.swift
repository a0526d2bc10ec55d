// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// Declares a streaming link dead when notifications stop, whatever the socket says. Pure: times
/// are passed in.
///
/// The deadline is the last notification's arrival plus
/// `max(minimumTimeout, samplePeriods / rate, notificationPeriods × k / rate)`, with the defaults
/// `max(2 s, 20 / rate, 3 k / rate)`:
///
/// - 20 sample periods is long enough that ordinary radio hiccups (a few missed connection events,
///   a retransmission, a burst of notifications delivered late) never trip it, and short enough
///   that a slow sensor is caught within a fraction of a second of a human noticing;
/// - the 2 s floor covers fast sensors, where 20 periods is only tens of milliseconds — less than
///   a supervision timeout, so the radio itself may still be recovering; at 25 Hz 20 periods are
///   0.8 s and at 400 Hz 0.05 s, so the floor decides for every rate the sensor supports;
/// - the `3 k / rate` term only matters with a large MTU and a slow rate, where one notification
///   carries so many samples (k = 40 at MTU 247) that notifications are more than 2 s / 3 apart:
///   the watchdog must allow a few notification intervals, not a few samples.
///
/// Why a watchdog at all: an LE link whose peer hangs (firmware fault, brown-out) or silently
/// stops notifying keeps its socket open until the supervision timeout, and a sensor that stops
/// notifying while its radio stays up never closes it at all. Only the absence of data tells.
///
/// The rate is the decoder clock's estimate once it is `.locked`, and the nominal rate before
/// (`sampleRate(of:)`): an early estimate from a few jittery points could make the timeout too
/// short.
public struct LinkWatchdog<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The timeout's terms.
    public typealias Configuration = LinkWatchdogConfiguration

    /// The timeout's terms.
    public let configuration: Configuration
    /// When the link is declared dead unless a notification arrives first; nil while disarmed.
    public private(set) var deadline: Instant?
    /// The timeout behind `deadline`; nil while disarmed.
    public private(set) var currentTimeout: Duration?

    /// A disarmed watchdog.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The timeout for a stream at `sampleRate` Hz with `samplesPerNotification` samples per
    /// notification. A rate that is not a positive finite number gives the floor.
    public func timeout(sampleRate: Double, samplesPerNotification: Int = 1) -> Duration {
        guard sampleRate.isFinite, sampleRate > 0 else { return configuration.minimumTimeout }
        let periods = max(
            configuration.samplePeriods, configuration.notificationPeriods * Double(samplesPerNotification))
        // Whole microseconds, so deadlines are exact; capped at a day so that an
        // absurd rate cannot overflow Duration.
        let microseconds = min((periods / sampleRate * 1e6).rounded(), 86_400e6)
        return max(configuration.minimumTimeout, .microseconds(Int64(microseconds)))
    }

    /// Starts watching at `now` (notifications were just enabled): the first notification is
    /// due within the timeout.
    public mutating func arm(at now: Instant, sampleRate: Double, samplesPerNotification: Int = 1) {
        let timeout = timeout(sampleRate: sampleRate, samplesPerNotification: samplesPerNotification)
        currentTimeout = timeout
        deadline = now.advanced(by: timeout)
    }

    /// A notification with `sampleCount` samples arrived at `now`: the deadline moves to `now`
    /// plus the timeout. Ignored while disarmed.
    public mutating func notificationReceived(at now: Instant, sampleRate: Double, sampleCount: Int) {
        guard deadline != nil else { return }
        arm(at: now, sampleRate: sampleRate, samplesPerNotification: max(1, sampleCount))
    }

    /// True when armed and `now` has reached the deadline.
    public func isExpired(at now: Instant) -> Bool {
        guard let deadline else { return false }
        return now >= deadline
    }

    /// Stops watching.
    public mutating func disarm() {
        deadline = nil
        currentTimeout = nil
    }

    /// The rate the watchdog should use for a stream decoded with `clock`: its estimate once
    /// locked, its nominal rate before.
    public static func sampleRate(of clock: SampleClock) -> Double {
        clock.quality == .locked ? clock.rate : clock.configuration.nominalRate
    }
}

/// The terms of a `LinkWatchdog`'s timeout.
public struct LinkWatchdogConfiguration: Hashable, Sendable {
    /// The floor of the timeout.
    public var minimumTimeout: Duration
    /// Sample periods without a notification after which the link is dead.
    public var samplePeriods: Double
    /// Notification intervals (k samples each) without a notification after which the link
    /// is dead.
    public var notificationPeriods: Double

    /// Defaults: 2 s, 20 sample periods, 3 notification intervals.
    public init(minimumTimeout: Duration = .seconds(2), samplePeriods: Double = 20, notificationPeriods: Double = 3) {
        self.minimumTimeout = max(.zero, minimumTimeout)
        self.samplePeriods = samplePeriods.isFinite ? max(0, samplePeriods) : 20
        self.notificationPeriods = notificationPeriods.isFinite ? max(0, notificationPeriods) : 3
    }
}
