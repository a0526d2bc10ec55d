// SPDX-License-Identifier: GPL-2.0-or-later
import Synchronization

/// Broadcasts values to any number of subscribers without ever waiting for one.
///
/// Each subscriber gets its own bounded buffer; when a subscriber reads too slowly its oldest
/// buffered values are dropped (and counted) to make room, so `publish` never blocks and never
/// suspends: a stalled SSE client cannot hold up detection or recording.
public final class EventBus<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var dropped = 0
        var published = 0
        var finished = false
    }

    /// The buffer each subscriber gets unless it asks for another.
    public let defaultCapacity: Int
    private let state = Mutex(State())

    /// A bus whose subscribers buffer `defaultCapacity` values each.
    public init(defaultCapacity: Int = 1024) {
        self.defaultCapacity = max(1, defaultCapacity)
    }

    /// A stream of every value published from now on. It ends when the bus finishes; stop
    /// iterating (or drop the stream) to unsubscribe.
    public func subscribe(capacity: Int? = nil) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(max(1, capacity ?? defaultCapacity)))
        let id = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `value` to every subscriber. Never blocks: a full buffer loses its oldest value.
    public func publish(_ value: Element) {
        let subscribers = state.withLock { state -> [AsyncStream<Element>.Continuation] in
            state.published += 1
            return Array(state.subscribers.values)
        }
        var dropped = 0
        for subscriber in subscribers {
            if case .dropped = subscriber.yield(value) { dropped += 1 }
        }
        if dropped > 0 { state.withLock { $0.dropped += dropped } }
    }

    /// Ends every subscription; later subscriptions end at once and later values go nowhere.
    public func finish() {
        let subscribers = state.withLock { state -> [AsyncStream<Element>.Continuation] in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Current subscribers.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }
    /// Values dropped from slow subscribers' buffers so far (one per subscriber that lost one).
    public var droppedCount: Int { state.withLock { $0.dropped } }
    /// Values published so far.
    public var publishedCount: Int { state.withLock { $0.published } }
}
