// SPDX-License-Identifier: GPL-2.0-or-later

/// One adapter's LE connection attempts as a pure state machine: at most one attempt in flight,
/// the others waiting first come, first served, each attempt bounded by a timeout, and a pause
/// after attempts that failed through the adapter's fault. No clock, no tasks: instants are
/// passed in, and ``QueuedSensorConnector`` performs the actions.
///
/// **Why one at a time.** A controller runs one LE Create Connection at a time; the kernel
/// answers a second direct attempt with `EBUSY`, and several pending ones compete for its
/// connection scan. A training group's sensors all reconnect together after an adapter reset, so
/// the gateway queues them itself and gives each its turn.
///
/// **Fair.** Each request is one attempt. A sensor whose attempt failed asks again (its link's
/// own backoff decides when) and joins the back of the queue, so every waiting sensor gets an
/// attempt before any gets a second.
///
/// **Timeout.** An attempt still running ``Configuration/attemptTimeout`` after it started is
/// cancelled (``Action/cancel(_:)``); the slot is free once the attempt reports that it ended, so
/// there is never a second attempt beside a cancelled one that has not let go yet.
///
/// **Backoff.** After an attempt that failed through the adapter's fault (the kernel or the
/// controller refused it: busy, out of connection slots), the next attempt waits
/// ``Configuration/adapterBackoffInitial``, doubling with every further such failure up to
/// ``Configuration/adapterBackoffMaximum``, and a success resets it. A sensor that is switched
/// off fails without the adapter's fault and delays nobody.
public struct ConnectionAttemptQueue<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// A request's identity, chosen by the caller (unique among its requests).
    public typealias RequestID = UInt64

    /// The queue's parameters.
    public struct Configuration: Sendable, Hashable {
        /// How long one attempt may run before it is cancelled.
        public var attemptTimeout: Duration
        /// The pause after the first attempt that failed through the adapter's fault.
        public var adapterBackoffInitial: Duration
        /// The longest pause.
        public var adapterBackoffMaximum: Duration

        /// Parameters; the defaults suit a kernel whose own LE connection timeout is about 20 s.
        public init(
            attemptTimeout: Duration = .seconds(15),
            adapterBackoffInitial: Duration = .milliseconds(500),
            adapterBackoffMaximum: Duration = .seconds(8)
        ) {
            self.attemptTimeout = attemptTimeout
            self.adapterBackoffInitial = adapterBackoffInitial
            self.adapterBackoffMaximum = adapterBackoffMaximum
        }
    }

    /// How an attempt ended.
    public enum Outcome: Sendable, Hashable {
        /// The link is up.
        case connected
        /// It failed because of the sensor (out of range, switched off, refused) or was cancelled.
        case failed
        /// It failed because of the adapter (the kernel or controller refused to try).
        case failedByAdapter
    }

    /// What the driver must do, in order.
    public enum Action: Sendable, Hashable {
        /// Run this request's attempt now.
        case start(RequestID)
        /// Cancel this request's running attempt (its timeout passed).
        case cancel(RequestID)
        /// Call ``timerFired(at:)`` at this instant, replacing any earlier timer; nil: no timer.
        case setTimer(Instant?)
    }

    /// The parameters in use.
    public let configuration: Configuration
    /// The requests waiting for their turn, first to be served first.
    public private(set) var waiting: [RequestID] = []
    /// The request whose attempt runs, if any.
    public private(set) var inFlight: RequestID?
    /// Whether the running attempt's timeout passed and it was told to cancel.
    public private(set) var inFlightCancelled = false
    /// Attempts that failed through the adapter's fault in a row.
    public private(set) var adapterFailures = 0

    private var inFlightDeadline: Instant?
    private var pausedUntil: Instant?

    /// An empty queue.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The pause after `failures` adapter failures in a row.
    public func backoff(afterAdapterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        var delay = configuration.adapterBackoffInitial
        for _ in 1..<min(failures, 30) where delay < configuration.adapterBackoffMaximum { delay *= 2 }
        return min(delay, configuration.adapterBackoffMaximum)
    }

    // MARK: - Events

    /// A sensor asks for an attempt.
    public mutating func enqueue(_ id: RequestID, at now: Instant) -> [Action] {
        guard inFlight != id, !waiting.contains(id) else { return [] }
        waiting.append(id)
        return next(at: now)
    }

    /// The caller gave up (its task was cancelled): a waiting request leaves the queue, a running
    /// attempt is cancelled (and still reports ``attemptEnded(_:outcome:at:)``).
    public mutating func withdraw(_ id: RequestID, at now: Instant) -> [Action] {
        if let position = waiting.firstIndex(of: id) {
            waiting.remove(at: position)
            return []
        }
        guard inFlight == id, !inFlightCancelled else { return [] }
        inFlightCancelled = true
        return [.cancel(id)]
    }

    /// The running attempt ended; the next request may start (after a pause if the adapter failed).
    public mutating func attemptEnded(_ id: RequestID, outcome: Outcome, at now: Instant) -> [Action] {
        guard inFlight == id else { return [] }
        inFlight = nil
        inFlightCancelled = false
        inFlightDeadline = nil
        switch outcome {
        case .connected:
            adapterFailures = 0
        case .failed:
            break
        case .failedByAdapter:
            adapterFailures += 1
            pausedUntil = now.advanced(by: backoff(afterAdapterFailures: adapterFailures))
        }
        return next(at: now)
    }

    /// The timer set by the last ``Action/setTimer(_:)`` fired.
    public mutating func timerFired(at now: Instant) -> [Action] {
        var actions: [Action] = []
        if let id = inFlight, !inFlightCancelled, let deadline = inFlightDeadline, deadline <= now {
            inFlightCancelled = true
            inFlightDeadline = nil
            actions.append(.cancel(id))
        }
        return actions + next(at: now)
    }

    // MARK: - Internals

    /// Starts the first waiting request when the slot is free and no pause runs, and says which
    /// timer must run.
    private mutating func next(at now: Instant) -> [Action] {
        if let until = pausedUntil, until <= now { pausedUntil = nil }
        var actions: [Action] = []
        if inFlight == nil, pausedUntil == nil, !waiting.isEmpty {
            let id = waiting.removeFirst()
            inFlight = id
            inFlightDeadline = now.advanced(by: configuration.attemptTimeout)
            actions.append(.start(id))
        }
        let timer: Instant? = inFlight != nil ? inFlightDeadline : (waiting.isEmpty ? nil : pausedUntil)
        actions.append(.setTimer(timer))
        return actions
    }
}
