// SPDX-License-Identifier: GPL-2.0-or-later
import NIOConcurrencyHelpers

/// Opens once, when a thread has closed its descriptors; tasks wait for that with ``wait()``.
final class ExitLatch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Whether ``open()`` was called.
    var isOpen: Bool { state.withLockedValue { $0.isOpen } }

    /// Opens the latch and resumes every waiter; later calls do nothing.
    func open() {
        let waiters = state.withLockedValue { state in
            guard !state.isOpen else { return [CheckedContinuation<Void, Never>]() }
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLockedValue { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
