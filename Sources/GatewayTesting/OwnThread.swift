// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// Runs CPU-bound test work on a thread of its own and returns its result. Swift's cooperative
/// pool has one thread per core (two on the project machine): a synchronous test that computes
/// for tens of seconds holds one of them, and the async tests running beside it, whose
/// continuations queue behind the other tests' jobs, can wait past their time limits. The
/// kernel shares the cores between this thread and the pool's, so they go on meanwhile.
public func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
