// SPDX-License-Identifier: GPL-2.0-or-later
import GATTClient
import GatewayTesting
import NIOConcurrencyHelpers
import Testing

@Suite("Loopback ATT bearer", .timeLimit(.minutes(5)))
struct LoopbackATTBearerTests {
    @Test("PDUs arrive whole, in order, in both directions")
    func orderAndBoundaries() async throws {
        let (a, b) = LoopbackATTBearer.pair()
        let (aPDUs, bPDUs) = (a.receivedPDUs(), b.receivedPDUs())
        let pdus: [[UInt8]] = [[0x1B, 0x10, 0x00], [], [0x01], Array(repeating: 0xAB, count: 247)]
        for pdu in pdus { try await a.send(pdu) }
        for pdu in pdus { #expect(try await bPDUs.next() == pdu) }
        try await b.send([0x1E])
        #expect(try await aPDUs.next() == [0x1E])
        await a.close()
    }

    @Test("close ends the flow a task awaits, on both ends, after the PDUs already sent")
    func closeWakesReceive() async throws {
        let (a, b) = LoopbackATTBearer.pair()
        let aPDUs = a.receivedPDUs()
        async let pending = aPDUs.next()
        try await a.send([0x01])
        try await a.send([0x02])
        await b.close()
        #expect(try await pending == nil)
        // b's handler comes after the close: the PDUs sent before it first, then the end.
        let bPDUs = b.receivedPDUs()
        #expect(try await bPDUs.next() == [0x01])
        #expect(try await bPDUs.next() == [0x02])
        #expect(try await bPDUs.next() == nil)
    }

    @Test("the handler is called by the sender, once per PDU, in order, never two at once")
    func handedOverBySender() async throws {
        let (a, b) = LoopbackATTBearer.pair()
        let log = NIOLockedValueBox<(received: [UInt8], inside: Int, most: Int)>(([], 0, 0))
        b.deliver { input in
            guard case .pdu(let pdu) = input else { return }
            log.withLockedValue { log in
                log.inside += 1
                log.most = max(log.most, log.inside)
            }
            log.withLockedValue { log in
                log.received.append(pdu[pdu.startIndex])
                log.inside -= 1
            }
        }
        await withThrowingTaskGroup(of: Void.self) { group in
            for sender in 0..<4 {
                group.addTask { for index in 0..<50 { try await a.send([UInt8(sender * 50 + index)]) } }
            }
        }
        let (received, most) = log.withLockedValue { ($0.received, $0.most) }
        #expect(received.count == 200)
        #expect(most == 1)
        // Each sender's PDUs keep their order.
        for sender in 0..<4 {
            let mine = received.filter { Int($0) / 50 == sender }
            #expect(mine == (0..<50).map { UInt8(sender * 50 + $0) })
        }
        await a.close()
    }

    @Test("send after close throws on both ends")
    func sendAfterClose() async throws {
        let (a, b) = LoopbackATTBearer.pair()
        await a.close()
        await #expect(throws: LoopbackATTBearer.ClosedError.self) { try await a.send([0x01]) }
        await #expect(throws: LoopbackATTBearer.ClosedError.self) { try await b.send([0x01]) }
    }

    @Test("a full queue holds the sender back until the receiver installs its handler")
    func backPressure() async throws {
        let (a, b) = LoopbackATTBearer.pair(capacity: 2)
        try await a.send([0x01])
        try await a.send([0x02])
        let sent = NIOLockedValueBox(false)
        let third = Task {
            try await a.send([0x03])
            sent.withLockedValue { $0 = true }
        }
        for _ in 0..<1000 { await Task.yield() }
        #expect(!sent.withLockedValue { $0 })
        let bPDUs = b.receivedPDUs()
        #expect(try await bPDUs.next() == [0x01])
        try await third.value
        #expect(sent.withLockedValue { $0 })
        #expect(try await bPDUs.next() == [0x02])
        #expect(try await bPDUs.next() == [0x03])
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
