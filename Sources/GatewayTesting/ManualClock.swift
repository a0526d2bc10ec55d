// SPDX-License-Identifier: GPL-2.0-or-later
import NIOConcurrencyHelpers

/// A clock whose time moves only when a test calls `advance(by:)` or `advance(to:)`.
///
/// Code under test is generic over `Clock`; with this clock a test decides exactly when a timeout
/// fires, without real-time sleeps. `sleep(until:tolerance:)` suspends until the clock has been
/// advanced to the deadline (a deadline already reached returns at once), and throws
/// `CancellationError` when the sleeping task is cancelled, removing the sleeper.
///
/// To avoid racing the code under test, wait until it is actually asleep before advancing:
///
/// ```swift
/// let clock = ManualClock()
/// async let result = client.read(handle: 3)      // arms a 30 s timer on `clock`
/// await clock.waitForSleepers(count: 1)
/// clock.advance(by: .seconds(30))                 // the timer fires now, not later
/// ```
///
/// Thread-safe: every operation takes one lock; continuations are resumed outside it.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual time line: the offset from the clock's origin.
    public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
        /// Time since the clock's origin.
        public var offset: Duration

        /// The instant `offset` after the origin.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Orders instants by offset.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// `t+1.5 seconds`.
        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        var count: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Instant
        var nextID: UInt64 = 0
        var sleepers: [UInt64: Sleeper] = [:]
        var watchers: [UInt64: Watcher] = [:]

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Removes and returns the watchers whose sleeper count has been reached.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, any Error>] {
            let ready = watchers.filter { $0.value.count <= sleepers.count }
            for id in ready.keys { watchers[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    private let state: NIOLockedValueBox<State>

    /// A clock that starts at `now` (the origin by default).
    public init(now: Instant = Instant(offset: .zero)) {
        state = NIOLockedValueBox(State(now: now))
    }

    /// The current manual time.
    public var now: Instant { state.withLockedValue { $0.now } }

    /// Zero: manual time has no granularity.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are currently suspended in `sleep(until:tolerance:)`.
    public var sleepers: Int { state.withLockedValue { $0.sleepers.count } }

    /// The deadlines of the current sleepers, earliest first.
    public var sleeperDeadlines: [Instant] {
        state.withLockedValue { $0.sleepers.values.map(\.deadline).sorted() }
    }

    /// Suspends until the clock reaches `deadline`. Returns at once when it already has; throws
    /// `CancellationError` when the task is cancelled (before or during the sleep). `tolerance` is
    /// ignored: manual time is exact.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLockedValue { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome {
                    case wake
                    case cancel
                    case wait([CheckedContinuation<Void, any Error>])
                }
                let outcome: Outcome = state.withLockedValue { state in
                    // Checked under the lock: the cancellation handler takes it too, so either it
                    // ran before (and the flag is already set) or it will find the sleeper.
                    if Task.isCancelled { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .wait(state.satisfiedWatchers())
                }
                switch outcome {
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait(let watchers): for watcher in watchers { watcher.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLockedValue { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline has been reached,
    /// earliest deadline first. A negative duration is a test bug and traps.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "ManualClock cannot go backwards (advance(by: \(duration)))")
        advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `instant` (no-op when it is not later than now) and wakes every
    /// sleeper whose deadline has been reached, earliest deadline first.
    public func advance(to instant: Instant) {
        let due: [Sleeper] = state.withLockedValue { state in
            guard instant > state.now else { return [] }
            state.now = instant
            let due = state.sleepers.filter { $0.value.deadline <= instant }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are asleep on this clock; returns at once when they
    /// already are. Throws `CancellationError` when the waiting task is cancelled.
    public func waitForSleepers(count: Int) async throws {
        let id = state.withLockedValue { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome {
                    case ready
                    case cancel
                    case wait
                }
                let outcome: Outcome = state.withLockedValue { state in
                    if Task.isCancelled { return .cancel }
                    if state.sleepers.count >= count { return .ready }
                    state.watchers[id] = Watcher(count: count, continuation: continuation)
                    return .wait
                }
                switch outcome {
                case .ready: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let watcher = state.withLockedValue { $0.watchers.removeValue(forKey: id) }
            watcher?.continuation.resume(throwing: CancellationError())
        }
    }
}
