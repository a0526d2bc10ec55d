// SPDX-License-Identifier: GPL-2.0-or-later
import Dispatch
import NIOConcurrencyHelpers

/// A task executor that holds every job it is given until `release()`, then runs them (and every
/// later one) in order on a queue of its own. A test gives it to the code under test as the
/// executor its work must run on: while held, nothing of that work can run, so whatever still
/// answers does not depend on it, and `waitUntilHolding(_:)` tells how many tasks wait on it.
public final class HeldTaskExecutor: TaskExecutor, Sendable {
    private struct State {
        var released = false
        var held: [UnownedJob] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())
    private let queue = DispatchQueue(label: "HeldTaskExecutor")

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (run, ready) = state.withLockedValue { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard !state.released else { return (true, []) }
            state.held.append(job)
            let count = state.held.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return (false, ready)
        }
        for waiter in ready { waiter.resume() }
        if run { queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }

    /// Returns once `count` jobs are held.
    public func waitUntilHolding(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Bool in
                guard state.held.count < count else { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Runs the held jobs, in the order they came, and every later job as it comes.
    public func release() {
        let held = state.withLockedValue { state -> [UnownedJob] in
            state.released = true
            defer { state.held = [] }
            return state.held
        }
        for job in held { queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }
}
