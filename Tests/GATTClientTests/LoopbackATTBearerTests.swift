// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import Synchronization
import Testing

@Suite("Loopback ATT bearer", .timeLimit(.minutes(1)))
struct LoopbackATTBearerTests {
    @Test("PDUs arrive whole, in order, in both directions")
    func orderAndBoundaries() async throws {
        let (a, b) = LoopbackATTBearer.pair()
        let pdus: [[UInt8]] = [[0x1B, 0x10, 0x00], [], [0x01], Array(repeating: 0xAB, count: 247)]
        for pdu in pdus { try await a.send(pdu) }
        for pdu in pdus { #expect(try await b.receive() == pdu) }
        try await b.send([0x1E])
        #expect(try await a.receive() == [0x1E])
        await a.close()
    }

    @Test("close wakes a pending receive on both ends, after delivered PDUs are read")
    func closeWakesReceive() async throws {
        let (a, b) = LoopbackATTBearer.pair()
        async let pending = a.receive()
        try await a.send([0x01])
        try await a.send([0x02])
        await b.close()
        #expect(try await pending == nil)
        #expect(try await b.receive() == [0x01])
        #expect(try await b.receive() == [0x02])
        #expect(try await b.receive() == nil)
    }

    @Test("send after close throws on both ends")
    func sendAfterClose() async throws {
        let (a, b) = LoopbackATTBearer.pair()
        await a.close()
        await #expect(throws: LoopbackATTBearer.ClosedError.self) { try await a.send([0x01]) }
        await #expect(throws: LoopbackATTBearer.ClosedError.self) { try await b.send([0x01]) }
    }

    @Test("a full queue holds the sender back until the receiver catches up")
    func backPressure() async throws {
        let (a, b) = LoopbackATTBearer.pair(capacity: 2)
        try await a.send([0x01])
        try await a.send([0x02])
        let sent = Mutex(false)
        let third = Task {
            try await a.send([0x03])
            sent.withLock { $0 = true }
        }
        for _ in 0..<1000 { await Task.yield() }
        #expect(!sent.withLock { $0 })
        #expect(try await b.receive() == [0x01])
        try await third.value
        #expect(sent.withLock { $0 })
        #expect(try await b.receive() == [0x02])
        #expect(try await b.receive() == [0x03])
        await a.close()
    }

    @Test("close releases a sender held back by a full queue")
    func closeReleasesSender() async throws {
        let (a, b) = LoopbackATTBearer.pair(capacity: 1)
        try await a.send([0x01])
        let blocked = Task { try await a.send([0x02]) }
        for _ in 0..<100 { await Task.yield() }
        await b.close()
        await #expect(throws: LoopbackATTBearer.ClosedError.self) { try await blocked.value }
    }
}
