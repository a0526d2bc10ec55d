// SPDX-License-Identifier: GPL-2.0-or-later
import CBlueZ
import Glibc
import Synchronization
import SystemCalls

/// An `eventfd(2)` that wakes a thread sleeping in `poll(2)` or `epoll_wait(2)`: ``signal()`` may be called from any
/// task, any number of times, also after ``close()`` (it then does nothing), so a cancellation
/// handler or a late `close` can never write to a descriptor number that was closed and reused.
final class WakeSignal: Sendable {
    /// The eventfd; readable once signalled.
    let descriptor: Int32
    private let isOpen = Mutex(true)

    /// Creates the eventfd.
    ///
    /// - Throws: ``TransportError`` when it cannot be created (`EMFILE`...).
    init() throws(TransportError) {
        descriptor = try syscall("eventfd") { cbz_eventfd_nonblocking() }.transportValue("eventfd")
    }

    /// Makes the eventfd readable, waking a `poll` on it.
    func signal() {
        isOpen.withLock { isOpen in
            guard isOpen else { return }
            var one: UInt64 = 1
            // A full counter (EAGAIN) is still readable, so the result does not matter.
            _ = syscall("write") { Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size) }
        }
    }

    /// Makes the eventfd unreadable again, for a thread that keeps waiting on it after a wake-up
    /// (the ``SocketReactor``'s); called by that thread only, before it closes the eventfd.
    func drain() {
        var count: UInt64 = 0
        // EAGAIN: nothing was signalled since the last drain.
        _ = syscall("read") { Glibc.read(descriptor, &count, MemoryLayout<UInt64>.size) }
    }

    /// Closes the eventfd; later ``signal()`` calls do nothing.
    func close() {
        isOpen.withLock { isOpen in
            guard isOpen else { return }
            isOpen = false
            closeDescriptor(descriptor)
        }
    }
}
