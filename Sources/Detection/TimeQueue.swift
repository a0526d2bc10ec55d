// SPDX-License-Identifier: GPL-2.0-or-later

/// A first-in first-out queue of up to eight times, stored inline (no allocation).
@usableFromInline
struct TimeQueue: Sendable {
    @usableFromInline var slots: (Double, Double, Double, Double, Double, Double, Double, Double) =
        (0, 0, 0, 0, 0, 0, 0, 0)
    @usableFromInline var head = 0
    @usableFromInline var count = 0
    @usableFromInline static let capacity = 8

    @inlinable init() {}

    @inlinable var isEmpty: Bool { count == 0 }

    @inlinable mutating func push(_ value: Double) {
        guard count < TimeQueue.capacity else { return }
        set((head + count) % TimeQueue.capacity, value)
        count += 1
    }

    @inlinable mutating func pop() -> Double? {
        guard count > 0 else { return nil }
        let value = get(head)
        head = (head + 1) % TimeQueue.capacity
        count -= 1
        return value
    }

    /// Drops the newest time, if any.
    @inlinable mutating func removeLast() {
        if count > 0 { count -= 1 }
    }

    @inlinable mutating func removeAll() {
        head = 0
        count = 0
    }

    /// The time `offset` places after the oldest (0 is the oldest); `offset` must be below `count`.
    @inlinable func time(at offset: Int) -> Double { get((head + offset) % TimeQueue.capacity) }

    @inlinable func get(_ index: Int) -> Double {
        switch index {
        case 0: slots.0
        case 1: slots.1
        case 2: slots.2
        case 3: slots.3
        case 4: slots.4
        case 5: slots.5
        case 6: slots.6
        default: slots.7
        }
    }

    @inlinable mutating func set(_ index: Int, _ value: Double) {
        switch index {
        case 0: slots.0 = value
        case 1: slots.1 = value
        case 2: slots.2 = value
        case 3: slots.3 = value
        case 4: slots.4 = value
        case 5: slots.5 = value
        case 6: slots.6 = value
        default: slots.7 = value
        }
    }
}
