// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayTesting
import SensorLinks
import Testing

@Suite("ConnectionAttemptQueue")
struct ConnectionAttemptQueueTests {
    typealias Queue = ConnectionAttemptQueue<ManualClock.Instant>
    func at(_ milliseconds: Int64) -> ManualClock.Instant { ManualClock.Instant(offset: .milliseconds(milliseconds)) }

    @Test("one attempt in flight; the others in arrival order, one attempt each in turn")
    func fifoOneAtATime() {
        var queue = Queue()
        #expect(queue.enqueue(1, at: at(0)) == [.start(1), .setTimer(at(15_000))])
        #expect(queue.enqueue(2, at: at(10)) == [.setTimer(at(15_000))])
        #expect(queue.enqueue(3, at: at(20)) == [.setTimer(at(15_000))])
        // The same request twice is one request.
        #expect(queue.enqueue(2, at: at(30)) == [])
        #expect(queue.waiting == [2, 3] && queue.inFlight == 1)
        // 1 fails and asks again: it goes behind 2 and 3.
        #expect(queue.attemptEnded(1, outcome: .failed, at: at(1_000)) == [.start(2), .setTimer(at(16_000))])
        _ = queue.enqueue(1, at: at(1_100))
        #expect(queue.waiting == [3, 1])
        #expect(queue.attemptEnded(2, outcome: .connected, at: at(2_000)) == [.start(3), .setTimer(at(17_000))])
        #expect(queue.attemptEnded(3, outcome: .connected, at: at(3_000)) == [.start(1), .setTimer(at(18_000))])
        #expect(queue.attemptEnded(1, outcome: .connected, at: at(4_000)) == [.setTimer(nil)])
        // A stale report changes nothing.
        #expect(queue.attemptEnded(1, outcome: .failed, at: at(4_100)) == [])
    }

    @Test("timeout: the running attempt is cancelled, the slot frees only when it has ended")
    func timeout() {
        var queue = Queue(configuration: .init(attemptTimeout: .seconds(5)))
        _ = queue.enqueue(1, at: at(0))
        _ = queue.enqueue(2, at: at(0))
        #expect(queue.timerFired(at: at(4_999)) == [.setTimer(at(5_000))])
        #expect(queue.timerFired(at: at(5_000)) == [.cancel(1), .setTimer(nil)])
        #expect(queue.inFlightCancelled && queue.inFlight == 1)
        #expect(queue.timerFired(at: at(6_000)) == [.setTimer(nil)])
        #expect(queue.attemptEnded(1, outcome: .failed, at: at(5_050)) == [.start(2), .setTimer(at(10_050))])
    }

    @Test("withdraw: a waiting request leaves, a running one is cancelled once")
    func withdraw() {
        var queue = Queue()
        _ = queue.enqueue(1, at: at(0))
        _ = queue.enqueue(2, at: at(0))
        _ = queue.enqueue(3, at: at(0))
        #expect(queue.withdraw(2, at: at(10)) == [])
        #expect(queue.waiting == [3])
        #expect(queue.withdraw(1, at: at(20)) == [.cancel(1)])
        #expect(queue.withdraw(1, at: at(30)) == [])
        #expect(queue.attemptEnded(1, outcome: .failed, at: at(40)) == [.start(3), .setTimer(at(15_040))])
        #expect(queue.withdraw(9, at: at(50)) == [])
    }

    @Test("the adapter's own refusals pause the queue, doubling up to the maximum; a success resets")
    func adapterBackoff() {
        let configuration = Queue.Configuration(
            attemptTimeout: .seconds(15), adapterBackoffInitial: .milliseconds(500),
            adapterBackoffMaximum: .seconds(2))
        var queue = Queue(configuration: configuration)
        #expect(
            (0...5).map { queue.backoff(afterAdapterFailures: $0) }
                == [.zero, .milliseconds(500), .seconds(1), .seconds(2), .seconds(2), .seconds(2)])
        _ = queue.enqueue(1, at: at(0))
        _ = queue.enqueue(2, at: at(0))
        #expect(queue.attemptEnded(1, outcome: .failedByAdapter, at: at(100)) == [.setTimer(at(600))])
        #expect(queue.timerFired(at: at(600)) == [.start(2), .setTimer(at(15_600))])
        _ = queue.enqueue(1, at: at(700))
        #expect(queue.attemptEnded(2, outcome: .failedByAdapter, at: at(800)) == [.setTimer(at(1_800))])
        #expect(queue.adapterFailures == 2)
        #expect(queue.timerFired(at: at(1_800)) == [.start(1), .setTimer(at(16_800))])
        #expect(queue.attemptEnded(1, outcome: .connected, at: at(2_000)) == [.setTimer(nil)])
        #expect(queue.adapterFailures == 0)
        // A sensor that is off (not the adapter's fault) delays nobody.
        _ = queue.enqueue(1, at: at(3_000))
        _ = queue.enqueue(2, at: at(3_000))
        #expect(queue.attemptEnded(1, outcome: .failed, at: at(13_000)) == [.start(2), .setTimer(at(28_000))])
    }
}
