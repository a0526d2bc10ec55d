// SPDX-License-Identifier: GPL-2.0-or-later
import NIOConcurrencyHelpers
import SDUSensor
import SensorLinks

/// A `SensorSampleSink` for tests: keeps every sample a link hands over, in order, and lets a
/// test wait until a number of them arrived.
public final class SampleCollector: SensorSampleSink {
    private struct State {
        var samples: [IndexedSample] = []
        var batches = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())

    /// An empty collector.
    public init() {}

    /// Every sample handed over so far.
    public var samples: [IndexedSample] { state.withLockedValue { $0.samples } }

    /// How many batches (notifications with new samples) were handed over.
    public var batches: Int { state.withLockedValue { $0.batches } }

    public func samplesArrived(_ batch: [IndexedSample]) {
        let ready = state.withLockedValue { state in
            state.samples += batch
            state.batches += 1
            let total = state.samples.count
            let ready = state.waiters.filter { $0.count <= total }.map(\.continuation)
            state.waiters.removeAll { $0.count <= total }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    /// Returns once at least `count` samples were handed over.
    public func waitForSamples(count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLockedValue { state in
                guard state.samples.count < count else { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
