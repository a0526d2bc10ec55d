// SPDX-License-Identifier: GPL-2.0-or-later
import CBlueZ
import Glibc
import Synchronization
import SystemCalls

/// An `eventfd(2)` that wakes a thread sleeping in `poll(2)` or `epoll_wait(2)`: ``signal()`` may be called from any
/// task, any number of times, also during and after ``close()`` (it then does nothing), so a cancellation
/// handler or a late `close` can never write to a descriptor number that was closed and reused.
///
/// No lock is held around the `write` or the `close`: ``DescriptorUses`` counts the signals under
/// way in one atomic word, a signal starts only while the eventfd is not closing, and ``close()``
/// closes it once the signals under way (one non-blocking `write` each) have ended.
package final class WakeSignal: Sendable {
    /// The eventfd; readable once signalled.
    package let descriptor: Int32
    private let uses = DescriptorUses()

    /// Creates the eventfd.
    ///
    /// - Throws: ``TransportError`` when it cannot be created (`EMFILE`...).
    package init() throws(TransportError) {
        descriptor = try syscall("eventfd") { cbz_eventfd_nonblocking() }.transportValue("eventfd")
    }

    /// Makes the eventfd readable, waking a `poll` on it.
    package func signal() {
        guard uses.begin() else { return }
        var one: UInt64 = 1
        // A full counter (EAGAIN) is still readable, so the result does not matter.
        _ = syscall("write") { Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size) }
        uses.end()
    }

    /// Makes the eventfd unreadable again, for a thread that keeps waiting on it after a wake-up
    /// (the ``SocketReactor``'s); called by that thread only, before it closes the eventfd.
    package func drain() {
        var count: UInt64 = 0
        // EAGAIN: nothing was signalled since the last drain.
        _ = syscall("read") { Glibc.read(descriptor, &count, MemoryLayout<UInt64>.size) }
    }

    /// Closes the eventfd once no ``signal()`` is writing to it; later ``signal()`` calls do
    /// nothing. The first call closes it before it returns; later ones return at once.
    package func close() {
        guard uses.beginClosing() else { return }
        uses.waitUntilUnused()
        closeDescriptor(descriptor)
    }
}

/// The uses of a descriptor under way, and whether it is closing, in one atomic word: a use
/// starts only while the descriptor is not closing, and the closer waits for the uses under way
/// to end, so the descriptor is closed once and never while used, with no lock held around the
/// system calls.
///
/// Bit 0 is "closing"; the rest counts the uses under way.
package final class DescriptorUses: Sendable {
    private static let closing: UInt = 1
    private static let oneUse: UInt = 2
    private let word = Atomic<UInt>(0)

    /// Starts a use: true when the descriptor stays open until ``end()``; false once
    /// ``beginClosing()`` was called (do not touch the descriptor then).
    package func begin() -> Bool {
        var current = word.load(ordering: .relaxed)
        while current & Self.closing == 0 {
            let (exchanged, found) = word.compareExchange(
                expected: current, desired: current + Self.oneUse, successOrdering: .acquiring,
                failureOrdering: .relaxed)
            if exchanged { return true }
            current = found
        }
        return false
    }

    /// Ends a use that ``begin()`` started.
    package func end() {
        word.subtract(Self.oneUse, ordering: .releasing)
    }

    /// Refuses every later use: true for the first call, whose caller closes the descriptor after
    /// ``waitUntilUnused()``.
    package func beginClosing() -> Bool {
        word.bitwiseOr(Self.closing, ordering: .acquiringAndReleasing).oldValue & Self.closing == 0
    }

    /// True while a use that began is not ended.
    package var isUsed: Bool {
        word.load(ordering: .acquiring) >= Self.oneUse
    }

    /// Returns once every use under way has ended; after ``beginClosing()`` no new one starts, and
    /// each is one non-blocking system call, so the wait is that long.
    package func waitUntilUnused() {
        while isUsed { sched_yield() }
    }
}
