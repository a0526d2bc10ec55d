// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import NIOConcurrencyHelpers

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
    /// The most subscribers at once: each holds a buffer, so their number bounds the memory a
    /// crowd of clients that never read can take.
    public let maximumSubscribers: Int
    private let state = NIOLockedValueBox(State())

    /// A bus whose subscribers buffer `defaultCapacity` values each, at most
    /// `maximumSubscribers` of them.
    public init(defaultCapacity: Int = 1024, maximumSubscribers: Int = 64) {
        self.defaultCapacity = max(1, defaultCapacity)
        self.maximumSubscribers = max(1, maximumSubscribers)
    }

    /// Like ``subscribe(capacity:)``, but nil when ``maximumSubscribers`` already subscribe.
    public func subscribeIfRoom(capacity: Int? = nil) -> AsyncStream<Element>? {
        subscribe(capacity: capacity, limited: true)
    }

    /// A stream of every value published from now on. It ends when the bus finishes; stop
    /// iterating (or drop the stream) to unsubscribe.
    public func subscribe(capacity: Int? = nil) -> AsyncStream<Element> {
        // Unlimited: never nil.
        subscribe(capacity: capacity, limited: false) ?? AsyncStream { $0.finish() }
    }

    private func subscribe(capacity: Int?, limited: Bool) -> AsyncStream<Element>? {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(max(1, capacity ?? defaultCapacity)))
        var full = false
        let id = state.withLockedValue { state -> Int? in
            guard !state.finished else { return nil }
            guard !limited || state.subscribers.count < maximumSubscribers else {
                full = true
                return nil
            }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return full ? nil : stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `value` to every subscriber. Never blocks: a full buffer loses its oldest value.
    public func publish(_ value: Element) {
        publish(making: { value })
    }

    /// Counts one value and, when anyone subscribes, makes it once and hands it to each: with no
    /// subscriber nothing is made (an event's JSON, for one, costs allocations nobody reads).
    private func publish(making value: () -> Element) {
        let subscribers = state.withLockedValue { state -> [AsyncStream<Element>.Continuation] in
            state.published += 1
            return Array(state.subscribers.values)
        }
        guard !subscribers.isEmpty else { return }
        let value = value()
        var dropped = 0
        for subscriber in subscribers {
            if case .dropped = subscriber.yield(value) { dropped += 1 }
        }
        if dropped > 0 { state.withLockedValue { $0.dropped += dropped } }
    }

    /// Ends every subscription; later subscriptions end at once and later values go nowhere.
    public func finish() {
        let subscribers = state.withLockedValue { state -> [AsyncStream<Element>.Continuation] in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// Current subscribers.
    public var subscriberCount: Int { state.withLockedValue { $0.subscribers.count } }
    /// Values dropped from slow subscribers' buffers so far (one per subscriber that lost one).
    public var droppedCount: Int { state.withLockedValue { $0.dropped } }
    /// Values published so far.
    public var publishedCount: Int { state.withLockedValue { $0.published } }
}

extension EventBus where Element == PublishedEvent {
    /// Publishes `event` with its payload encoded here, once, for every subscriber; not at all
    /// when nobody subscribes.
    public func publish(_ event: GatewayEvent) {
        publish(making: { PublishedEvent(event) })
    }
}
