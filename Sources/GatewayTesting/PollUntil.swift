// SPDX-License-Identifier: GPL-2.0-or-later

/// Waits until `condition` holds, checking every millisecond, for state that another thread
/// (an I/O thread, a driver's task) changes. The outcome never depends on timing; the limit only
/// turns a hang into a failure, and is far above what a machine busy with builds needs.
///
/// - Throws: ``PollTimeoutError`` when the condition does not hold within `limit`;
///   `CancellationError` when the task is cancelled.
public func pollUntil(limit: Duration = .seconds(300), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now.advanced(by: limit)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw PollTimeoutError(limit: limit) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// The condition of ``pollUntil(limit:_:)`` did not hold in time.
public struct PollTimeoutError: Error, CustomStringConvertible {
    /// How long was waited.
    public var limit: Duration
    /// Says so.
    public var description: String { "the awaited condition did not hold within \(limit)" }
}
