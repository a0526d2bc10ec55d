// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import GatewayCore
import GatewayTesting
import Testing

@Suite("EventBus", .timeLimit(.minutes(5)))
struct EventBusTests {
    @Test("every subscriber gets every value in order")
    func fanOut() async {
        let bus = EventBus<Int>(defaultCapacity: 16)
        let first = bus.subscribe()
        let second = bus.subscribe()
        #expect(bus.subscriberCount == 2)
        for value in 1...5 { bus.publish(value) }
        bus.finish()
        var a: [Int] = []
        for await value in first { a.append(value) }
        var b: [Int] = []
        for await value in second { b.append(value) }
        #expect(a == [1, 2, 3, 4, 5])
        #expect(b == [1, 2, 3, 4, 5])
        #expect(bus.droppedCount == 0)
        #expect(bus.publishedCount == 5)
    }

    @Test("a slow subscriber loses its oldest values, counted; the others lose nothing; publish never waits")
    func dropsOldest() async {
        let bus = EventBus<Int>(defaultCapacity: 100)
        let slow = bus.subscribe(capacity: 3)
        let fast = bus.subscribe()
        for value in 1...10 { bus.publish(value) }
        bus.finish()
        var slowValues: [Int] = []
        for await value in slow { slowValues.append(value) }
        var fastValues: [Int] = []
        for await value in fast { fastValues.append(value) }
        #expect(slowValues == [8, 9, 10])
        #expect(fastValues == Array(1...10))
        #expect(bus.droppedCount == 7)
    }

    @Test("gateway events with nobody subscribed are counted; a subscriber then gets the payload encoded once")
    func publishedEventsWithoutSubscribers() async {
        let bus = EventBus<PublishedEvent>()
        let event = GatewayEvent.link(
            LinkPayload(sensor: "virtual-1", address: "CA:FE:00:00:00:01", state: .connected, detail: nil))
        bus.publish(event)
        bus.publish(event)
        #expect(bus.publishedCount == 2)
        let stream = bus.subscribe()
        bus.publish(event)
        bus.finish()
        var received: [PublishedEvent] = []
        for await value in stream { received.append(value) }
        #expect(received == [PublishedEvent(event)])
        #expect(received.first?.payloadJSON != nil)
        #expect(bus.publishedCount == 3)
    }

    @Test("a subscriber that stops iterating is removed; after finish new subscriptions end at once")
    func unsubscribeAndFinish() async {
        let bus = EventBus<Int>()
        do {
            let stream = bus.subscribe()
            bus.publish(1)
            for await value in stream {
                #expect(value == 1)
                break
            }
        }
        #expect(bus.subscriberCount == 0)
        bus.finish()
        let late = bus.subscribe()
        var count = 0
        for await _ in late { count += 1 }
        #expect(count == 0)
    }
}

@Suite("EventBus: subscriber cap")
struct EventBusCapTests {
    @Test("past maximumSubscribers, subscribeIfRoom is nil until one leaves; subscribe is not limited")
    func cap() async throws {
        let bus = EventBus<Int>(maximumSubscribers: 2)
        var first = bus.subscribeIfRoom()
        let second = bus.subscribeIfRoom()
        #expect(first != nil && second != nil)
        #expect(bus.subscribeIfRoom() == nil)
        _ = bus.subscribe()
        first = nil
        // The dropped stream's termination handler runs when it is deinitialised.
        try await pollUntil { bus.subscribeIfRoom() != nil }
        _ = (first, second)
    }
}
