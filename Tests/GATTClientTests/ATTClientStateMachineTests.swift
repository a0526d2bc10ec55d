// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayTesting
import SeededRandomness
import Testing
import VirtualSensor

/// The state machine's actions as short strings, so whole action lists compare in one `#expect`.
private func describe(_ actions: [ATTClientStateMachine.Action]) -> [String] {
    actions.map { action in
        switch action {
        case .send(let pdu): "send \(pdu.hexString)"
        case .startTimer(let id): "start \(id)"
        case .stopTimer(let id): "stop \(id)"
        case .succeed(let id, let pdu): "succeed \(id) \(pdu.bytes.hexString)"
        case .fail(let id, let error): "fail \(id) \(error.code)"
        case .deliver(let handle, let value, let isIndication):
            "deliver \(handle) \(Array(value).hexString)\(isIndication ? " indication" : "")"
        case .note(let note): "note \(note)"
        case .finishNotifications(let error): "finish \(error.map { "\($0.code)" } ?? "normally")"
        case .closeBearer: "close"
        }
    }
}

private typealias ID = ATTClientStateMachine.RequestID

extension ATTClientStateMachine {
    /// The actions of one received PDU, in a fresh buffer.
    fileprivate mutating func received(_ pdu: [UInt8]) -> [Action] {
        var actions: [Action] = []
        received(pdu[...], into: &actions)
        return actions
    }
}

@Suite("ATT client state machine")
struct ATTClientStateMachineTests {
    @Test("requests queue behind the outstanding one and go out in order")
    func queueing() {
        var machine = ATTClientStateMachine()
        #expect(describe(machine.enqueue([UInt8](hex: "0a 0300"), id: ID(1))) == ["send 0a0300", "start #1"])
        #expect(describe(machine.enqueue([UInt8](hex: "0a 0400"), id: ID(2))).isEmpty)
        #expect(describe(machine.enqueue([UInt8](hex: "0a 0500"), id: ID(3))).isEmpty)
        #expect(machine.queuedRequests == 2)
        #expect(
            describe(machine.received([UInt8](hex: "0b 01")))
                == ["stop #1", "succeed #1 0b01", "send 0a0400", "start #2"])
        machine.cancel(ID(3))
        #expect(
            describe(machine.received([UInt8](hex: "01 0a 0400 02"))) == [
                "stop #2", "fail #2 attError(Read Not Permitted)",
            ])
        #expect(!machine.hasOutstandingRequest)
        #expect(machine.queuedRequests == 0)
    }

    @Test("notifications, indications and their confirmation do not disturb the outstanding request")
    func pushes() {
        var machine = ATTClientStateMachine()
        _ = machine.enqueue([UInt8](hex: "0a 0300"), id: ID(1))
        #expect(describe(machine.received([UInt8](hex: "1b 1000 0102"))) == ["deliver 16 0102"])
        #expect(describe(machine.received([UInt8](hex: "1d 1000 03"))) == ["deliver 16 03 indication", "send 1e"])
        #expect(machine.hasOutstandingRequest)
        #expect(machine.counters.notifications == 1)
        #expect(machine.counters.indications == 1)
    }

    @Test("a mismatched response fails the request and every queued one, and closes the link")
    func mismatch() {
        var machine = ATTClientStateMachine()
        _ = machine.enqueue([UInt8](hex: "0a 0300"), id: ID(1))
        _ = machine.enqueue([UInt8](hex: "0a 0400"), id: ID(2))
        #expect(
            describe(machine.received([UInt8](hex: "01 12 0300 01")))
                == [
                    "stop #1", "fail #1 protocolViolation", "fail #2 protocolViolation", "finish protocolViolation",
                    "close",
                ])
        #expect(machine.isClosed)
        #expect(describe(machine.received([UInt8](hex: "1b 1000 01"))).isEmpty)
        #expect(describe(machine.enqueue([UInt8](hex: "0a 0300"), id: ID(3))) == ["fail #3 protocolViolation"])
    }

    @Test("a response with nothing outstanding closes the link")
    func unsolicited() {
        var machine = ATTClientStateMachine()
        #expect(describe(machine.received([UInt8](hex: "13"))) == ["finish protocolViolation", "close"])
    }

    @Test("a timer for a finished request is ignored; the outstanding one's timeout is final")
    func timeouts() {
        var machine = ATTClientStateMachine()
        _ = machine.enqueue([UInt8](hex: "0a 0300"), id: ID(1))
        _ = machine.received([UInt8](hex: "0b"))
        _ = machine.enqueue([UInt8](hex: "0a 0400"), id: ID(2))
        _ = machine.enqueue([UInt8](hex: "0a 0500"), id: ID(3))
        #expect(describe(machine.transactionTimedOut(ID(1))).isEmpty)
        #expect(
            describe(machine.transactionTimedOut(ID(2)))
                == ["stop #2", "fail #2 timeout", "fail #3 timeout", "finish timeout", "close"])
        #expect(describe(machine.bearerEnded(error: nil)).isEmpty)
        #expect(throws: GATTError.self) { try machine.command([UInt8](hex: "52 0300 01")) }
    }

    @Test("link loss fails everything with disconnected; a local close finishes notifications normally")
    func closing() {
        var lost = ATTClientStateMachine()
        _ = lost.enqueue([UInt8](hex: "0a 0300"), id: ID(1))
        #expect(
            describe(lost.bearerEnded(error: nil)) == [
                "stop #1", "fail #1 disconnected", "finish disconnected", "close",
            ])
        var closed = ATTClientStateMachine()
        _ = closed.enqueue([UInt8](hex: "0a 0300"), id: ID(1))
        #expect(describe(closed.close()) == ["stop #1", "fail #1 disconnected", "finish normally", "close"])
        #expect(describe(closed.close()).isEmpty)
    }

    @Test("only requests are transactions and only commands go without one")
    func kinds() throws {
        var machine = ATTClientStateMachine()
        #expect(describe(machine.enqueue([UInt8](hex: "52 0300 01"), id: ID(1))) == ["fail #1 invalidArgument"])
        #expect(describe(machine.enqueue([], id: ID(2))) == ["fail #2 invalidArgument"])
        #expect(throws: GATTError.self) { try machine.command([UInt8](hex: "0a 0300")) }
        #expect(describe(try machine.command([UInt8](hex: "52 0300 01"))) == ["send 52030001"])
    }

    @Test("random bytes never trap; every request-like PDU is answered or ignored, never fatal")
    func randomBytes() {
        var random = SplitMix64(seed: 0x5EED)
        var machine = ATTClientStateMachine()
        var nextID: UInt64 = 0
        for round in 0..<20_000 {
            if round % 50 == 0 && !machine.hasOutstandingRequest {
                nextID += 1
                _ = machine.enqueue([UInt8](hex: "0a 0300"), id: ID(nextID))
            }
            let length = Int(random.next() % 24)
            var pdu = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            // Keep responses out most of the time so the link stays open and the loop keeps testing.
            if let first = pdu.first, ATTOpcode(rawValue: first).isResponse, random.next() % 8 != 0 {
                pdu[0] = 0x1B
            }
            for action in machine.received(pdu) {
                if case .send(let answer) = action {
                    let opcode = ATTOpcode(rawValue: answer[0])
                    #expect(opcode == .errorResponse || opcode == .handleValueConfirmation)
                }
            }
            if machine.isClosed { machine = ATTClientStateMachine() }
        }
    }
}
