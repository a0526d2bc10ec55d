// SPDX-License-Identifier: GPL-2.0-or-later

/// When to try again after a failed connection attempt or a lost link: exponential backoff with
/// full jitter, capped, reset by a stable link. Pure: the caller says how long the link that just
/// ended had been up.
///
/// Attempt n (1-based, counted since the last reset) waits a uniformly random time in
/// `[0, min(maximumDelay, initialDelay × multiplier^(n−1))]`: with the defaults the ceilings are
/// 1, 2, 4, 8, 16, 30, 30, … seconds.
///
/// **Why full jitter.** The contention a sensor link backs off from is the local adapter, not a
/// remote server: when the adapter resets or the athlete walks out of range, every sensor link
/// drops at once, and the controller runs one LE connection attempt at a time. Full jitter spreads
/// those attempts over the whole window, which the well-known comparison of jitter schemes found
/// to need the least total work among contending clients. It is also stateless given n: the
/// bound for attempt n is exact (never above the cap, never below 0), so it can be tested and
/// reasoned about; decorrelated jitter derives each delay from the previous random one, so its
/// ceiling depends on history rather than on the attempt number and a reset is less clear-cut.
/// The price, an occasional near-zero delay, is harmless: one extra connection attempt.
///
/// **Reset.** A link that streamed for `stableDuration` (60 s by default) before it ended was
/// healthy: the next attempt is attempt 1 again. A link that keeps dropping sooner keeps backing
/// off, so a sensor at the edge of range is not hammered every second.
///
/// **Giving up.** With `maximumAttempts` set, the failure after attempt `maximumAttempts` gives
/// up instead of scheduling another one.
public struct ReconnectBackoff<Generator: RandomNumberGenerator & Sendable>: Sendable {
    /// The policy's parameters.
    public typealias Configuration = ReconnectBackoffConfiguration

    /// What to do after a failure.
    public enum Decision: Hashable, Sendable {
        /// Make attempt `attempt` after `delay`.
        case retry(after: Duration, attempt: Int)
        /// Stop: `attempts` attempts were made since the last reset.
        case giveUp(attempts: Int)
    }

    /// The parameters in use.
    public let configuration: Configuration
    /// Attempts scheduled since the last reset (0 after a reset).
    public private(set) var attempts = 0
    private var generator: Generator

    /// A backoff at attempt 0 that draws its jitter from `generator`.
    public init(configuration: Configuration = Configuration(), generator: Generator) {
        self.configuration = configuration
        self.generator = generator
    }

    /// The ceiling of attempt `attempt`'s delay (1-based): `initialDelay × multiplier^(attempt−1)`,
    /// capped at `maximumDelay`.
    public func ceiling(forAttempt attempt: Int) -> Duration {
        var delay = configuration.initialDelay
        var step = 1
        while step < attempt && delay < configuration.maximumDelay {
            delay = delay * configuration.multiplier
            step += 1
        }
        return min(delay, configuration.maximumDelay)
    }

    /// A connection attempt failed or a link ended. `upFor` is how long the link had been
    /// streaming (nil when the attempt never got that far); a link up for `stableDuration` or
    /// longer resets the backoff first. Returns the next attempt and its delay, or gives up.
    public mutating func failed(upFor: Duration?) -> Decision {
        if let upFor, upFor >= configuration.stableDuration { reset() }
        if let maximum = configuration.maximumAttempts, attempts >= maximum {
            return .giveUp(attempts: attempts)
        }
        attempts += 1
        let ceiling = ceiling(forAttempt: attempts)
        // One draw, no rejection loop: 53 random bits scaled onto [0, 1], both ends included.
        let fraction = Double(generator.next() >> 11) / Double((UInt64(1) << 53) - 1)
        return .retry(after: min(ceiling * fraction, ceiling), attempt: attempts)
    }

    /// Back to attempt 0: the next failure waits at most `initialDelay`.
    public mutating func reset() {
        attempts = 0
    }
}

/// The parameters of a `ReconnectBackoff`.
public struct ReconnectBackoffConfiguration: Hashable, Sendable {
    /// The ceiling of the first attempt's delay.
    public var initialDelay: Duration
    /// The factor by which the ceiling grows per attempt.
    public var multiplier: Int
    /// The largest delay ever chosen.
    public var maximumDelay: Duration
    /// A link that was up at least this long resets the backoff.
    public var stableDuration: Duration
    /// Attempts after which the policy gives up; nil retries forever.
    public var maximumAttempts: Int?

    /// Defaults: 1 s, ×2, capped at 30 s, reset after a stable minute, never give up.
    public init(
        initialDelay: Duration = .seconds(1), multiplier: Int = 2, maximumDelay: Duration = .seconds(30),
        stableDuration: Duration = .seconds(60), maximumAttempts: Int? = nil
    ) {
        self.initialDelay = max(.zero, initialDelay)
        self.multiplier = max(1, multiplier)
        self.maximumDelay = max(self.initialDelay, maximumDelay)
        self.stableDuration = max(.zero, stableDuration)
        self.maximumAttempts = maximumAttempts.map { max(0, $0) }
    }
}
