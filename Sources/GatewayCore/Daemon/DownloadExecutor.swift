// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Glibc

/// The one thread that makes file downloads: reading a store page, decoding its chunks and
/// formatting CSV run here (as the task executor preference of each `next()` of a download
/// stream, see ``DownloadStream``), never on Swift's cooperative pool or NIO's event loops.
///
/// Why: on a two-core machine the cooperative pool has two threads. Thirty downloads starting at
/// once each decode a page of 65 536 samples and format CSV until their socket is full; on the
/// pool, that work queued `/v1/status` and recording behind it for over a second. Here the pool
/// stays free, downloads take turns (jobs run in arrival order) and use one core at most, at a
/// lower scheduling priority (nice 10) than the daemon's other threads.
public final class DownloadExecutor: TaskExecutor, @unchecked Sendable {
    /// The daemon's downloads thread, started on first use.
    public static let shared = DownloadExecutor(name: "sportsensord-downloads")

    /// The nice value the thread runs at: downloads yield the CPU to recording and the API.
    static let niceness: Int32 = 10

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// An executor with a thread of its own named `name` (it runs for the life of the process).
    public init(name: String) {
        let thread = Thread { [self] in
            // On Linux a nice value belongs to a thread: who 0 is this thread alone.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            runJobs()
        }
        thread.name = name
        thread.start()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func runJobs() -> Never {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A download as an async stream whose every element is made on a download executor.
public enum DownloadStream {
    /// The stream of `next()`'s results until it returns nil; each call runs with `executor` as
    /// its task executor preference, so the actor and nonisolated async code it calls (store
    /// reads' decoding, formatting) run there and not on the consumer's executor.
    public static func make<Element: Sendable>(
        on executor: any TaskExecutor, _ next: @escaping @Sendable () async throws -> Element?
    ) -> AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream { try await withTaskExecutorPreference(executor) { try await next() } }
    }
}
