// SPDX-License-Identifier: GPL-2.0-or-later
import Testing

@testable import BLETransport

@Suite("SocketCloseState: who sends and who closes")
struct SocketCloseStateTests {
    @Test("with no send in flight the reader closes at once, and nothing is admitted after")
    func readerClosesAtOnce() {
        var state = SocketCloseState()
        #expect(state.isDelivering)
        #expect(state.requestClose(), "the first request wakes the reader")
        #expect(!state.requestClose(), "a second request does nothing")
        #expect(!state.isDelivering)
        #expect(!state.admitSend(), "no send after close() was asked for")
        #expect(state.claimClose(), "the reader closes now")
        #expect(!state.isOpen)
        #expect(!state.claimClose(), "the close is claimed once")
    }

    @Test("a close claimed while sends are in flight is done by the last one to return")
    func lastSendCloses() {
        var state = SocketCloseState()
        #expect(state.admitSend())
        #expect(state.admitSend())
        #expect(!state.claimClose(), "deferred: two sends still hold the descriptor")
        #expect(state.isOpen)
        #expect(!state.admitSend(), "no new send once the close is deferred")
        #expect(!state.sendReturned(), "one send still in flight")
        #expect(state.sendReturned(), "the last send closes")
        #expect(!state.isOpen && state.sendsInFlight == 0)
        #expect(!state.claimClose(), "nobody closes twice")
    }

    @Test("sends that return before any close leave the socket open and delivering")
    func sendsWithoutClose() {
        var state = SocketCloseState()
        for _ in 0..<3 {
            #expect(state.admitSend())
            #expect(!state.sendReturned())
        }
        #expect(state.isOpen && state.isDelivering && state.sendsInFlight == 0)
    }

    @Test("a reading end without close(): the reader claims the close, later requests do nothing")
    func endWithoutRequest() {
        var state = SocketCloseState()
        #expect(state.claimClose())
        #expect(!state.requestClose(), "already closed: nothing to wake")
        #expect(!state.admitSend())
    }
}
