// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// The rules of one sensor link, as a pure state machine: each event method takes the time and
/// returns the actions the I/O layer (`SensorLink`) performs, in order.
///
/// ```
/// idle ─start→ connecting ─connected→ discovering ─setupCompleted→ streaming
///                  │                       │                           │
///             setupFailed             setupFailed          bearerEnded / watchdogFired
///                  └───────────→ lost ←────┘───────────────────────────┘
///                                 │ bearerClosed
///                      ┌──────────┴──────────┐
///              waiting(retry at)          gaveUp
///                      │ retryTimerFired
///                  connecting …
/// any phase but gaveUp ─stopRequested→ stopped
/// ```
///
/// The watchdog (`LinkWatchdog`) is armed when streaming starts and moved by every notification;
/// the I/O layer sleeps until `watchdogDeadline` and reports `watchdogFired`, which only ends the
/// link when the deadline has really passed (a notification may have moved it meanwhile). The
/// backoff (`ReconnectBackoff`) decides the delay once the bearer of a failed attempt or lost link
/// is closed, so the retry delay starts when the old link is really gone. Events that do not
/// apply to the current phase are ignored and return no action.
public struct SensorLinkStateMachine<Instant: InstantProtocol, Generator: RandomNumberGenerator & Sendable>: Sendable
where Instant.Duration == Duration {
    /// Where the link is.
    public enum Phase: Hashable, Sendable {
        /// `start` not yet called.
        case idle
        /// Opening a bearer. `attempt` is 0 for the first connection, n for the n-th retry.
        case connecting(attempt: Int)
        /// Bearer open; exchanging the MTU, discovering, enabling notifications.
        case discovering(attempt: Int)
        /// Notifications enabled since `since`.
        case streaming(since: Instant)
        /// The attempt failed or the link went down; the bearer is being closed.
        case lost(SensorLinkError)
        /// Waiting until `retryAt` before attempt `attempt`.
        case waiting(retryAt: Instant, attempt: Int)
        /// The backoff gave up. Final.
        case gaveUp(SensorLinkError)
        /// Stopped on request. Final.
        case stopped
    }

    /// What the I/O layer must do.
    public enum Action: Hashable, Sendable {
        /// Open a bearer with the connector; report `connected` or `setupFailed`.
        case connect
        /// Exchange the MTU, find the accelerometer, enable notifications; report
        /// `setupCompleted` or `setupFailed`.
        case setUpGATT
        /// Feed notifications (`notificationReceived`) and sleep until `watchdogDeadline`
        /// (`watchdogFired`) until the stream ends (`bearerEnded`).
        case startStreaming
        /// Close the GATT client and bearer, if any; then report `bearerClosed`.
        case closeBearer
        /// Sleep until the instant, then report `retryTimerFired`.
        case sleep(until: Instant)
        /// Publish a state change.
        case publish(LinkState)
        /// The link is over: return from the run loop.
        case finish
    }

    /// The sensor this link is for.
    public let address: BluetoothAddress
    /// The current phase.
    public private(set) var phase: Phase = .idle
    /// The reconnect policy's state.
    public private(set) var backoff: ReconnectBackoff<Generator>
    /// The silence detector's state.
    public private(set) var watchdog: LinkWatchdog<Instant>
    /// How long the link had been streaming when it was lost; nil when the failed attempt never
    /// streamed.
    private var lostAfter: Duration?

    /// A machine for `address` in phase `.idle`.
    public init(address: BluetoothAddress, backoff: ReconnectBackoff<Generator>, watchdog: LinkWatchdog<Instant>) {
        self.address = address
        self.backoff = backoff
        self.watchdog = watchdog
    }

    /// When the watchdog declares the link dead; nil unless streaming.
    public var watchdogDeadline: Instant? { watchdog.deadline }

    /// True in `.gaveUp` and `.stopped`.
    public var isFinished: Bool {
        switch phase {
        case .gaveUp, .stopped: true
        default: false
        }
    }

    /// Starts the first connection attempt.
    public mutating func start(at now: Instant) -> [Action] {
        guard case .idle = phase else { return [] }
        phase = .connecting(attempt: 0)
        return [.connect]
    }

    /// The connector opened a bearer.
    public mutating func connected(at now: Instant) -> [Action] {
        guard case .connecting(let attempt) = phase else { return [] }
        phase = .discovering(attempt: attempt)
        return [.setUpGATT]
    }

    /// Notifications are enabled; `sampleRate` is the rate the watchdog starts from.
    public mutating func setupCompleted(at now: Instant, sampleRate: Double) -> [Action] {
        guard case .discovering = phase else { return [] }
        phase = .streaming(since: now)
        watchdog.arm(at: now, sampleRate: sampleRate)
        return [.publish(.connected(address)), .startStreaming]
    }

    /// Connecting or GATT setup failed.
    public mutating func setupFailed(_ error: SensorLinkError, at now: Instant) -> [Action] {
        switch phase {
        case .connecting, .discovering:
            phase = .lost(error)
            lostAfter = nil
            return [.closeBearer]
        default:
            return []
        }
    }

    /// A notification with `sampleCount` samples arrived at `now`: the watchdog's deadline moves.
    public mutating func notificationReceived(at now: Instant, sampleRate: Double, sampleCount: Int) -> [Action] {
        guard case .streaming = phase else { return [] }
        watchdog.notificationReceived(at: now, sampleRate: sampleRate, sampleCount: sampleCount)
        return []
    }

    /// The watchdog's sleep ended at `now`. Ends the link if the deadline has passed; otherwise
    /// returns nothing (sleep again until `watchdogDeadline`).
    public mutating func watchdogFired(at now: Instant) -> [Action] {
        guard case .streaming = phase, watchdog.isExpired(at: now), let timeout = watchdog.currentTimeout else {
            return []
        }
        return linkLost(
            SensorLinkError(
                .silent,
                "no notification for \(timeout) although the link is open: the sensor stopped streaming "
                    + "(low battery, firmware hang, out of range); reconnecting"),
            at: now)
    }

    /// The bearer or the notification stream ended while streaming.
    public mutating func bearerEnded(_ error: SensorLinkError, at now: Instant) -> [Action] {
        guard case .streaming = phase else { return [] }
        return linkLost(error, at: now)
    }

    /// The bearer of the failed attempt or lost link is closed: schedule the next attempt or give
    /// up.
    public mutating func bearerClosed(at now: Instant) -> [Action] {
        guard case .lost(let reason) = phase else { return [] }
        switch backoff.failed(upFor: lostAfter) {
        case .retry(let delay, let attempt):
            phase = .waiting(retryAt: now.advanced(by: delay), attempt: attempt)
            return [.publish(.retrying(in: delay, attempt: attempt)), .sleep(until: now.advanced(by: delay))]
        case .giveUp(let attempts):
            let error = SensorLinkError(
                .attemptsExhausted,
                "gave up on \(address) after \(attempts) reconnect attempt\(attempts == 1 ? "" : "s"), "
                    + "last failure: \(reason.message); check that the sensor is charged, switched on and in range, "
                    + "then start the link again",
                cause: reason)
            phase = .gaveUp(error)
            return [.publish(.gaveUp(error)), .finish]
        }
    }

    /// The retry timer ended at `now`: start the attempt (or sleep on if woken early).
    public mutating func retryTimerFired(at now: Instant) -> [Action] {
        guard case .waiting(let retryAt, let attempt) = phase else { return [] }
        guard now >= retryAt else { return [.sleep(until: retryAt)] }
        phase = .connecting(attempt: attempt)
        return [.connect]
    }

    /// Stop: close whatever is open and finish. Ignored once finished.
    public mutating func stopRequested() -> [Action] {
        guard !isFinished else { return [] }
        phase = .stopped
        watchdog.disarm()
        return [.closeBearer, .publish(.stopped), .finish]
    }

    private mutating func linkLost(_ error: SensorLinkError, at now: Instant) -> [Action] {
        if case .streaming(let since) = phase { lostAfter = since.duration(to: now) }
        phase = .lost(error)
        watchdog.disarm()
        return [.publish(.lost(error)), .closeBearer]
    }
}
