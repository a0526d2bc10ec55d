// SPDX-License-Identifier: GPL-2.0-or-later
import Testing

@testable import BLETransport

@Suite("SocketCloseState: who sends and who closes")
struct SocketCloseStateTests {
    /// The answers of one step after another, so that `#expect` sees plain values (it cannot
    /// call a mutating method itself).
    static func run(_ state: inout SocketCloseState, _ steps: [(inout SocketCloseState) -> Bool]) -> [Bool] {
        steps.map { $0(&state) }
    }

    @Test("with no send in flight the reader closes at once, and nothing is admitted after")
    func readerClosesAtOnce() {
        var state = SocketCloseState()
        #expect(state.isDelivering)
        let answers = Self.run(
            &state,
            [
                { $0.requestClose() }, { $0.requestClose() }, { $0.admitSend() }, { $0.claimClose() },
                { $0.claimClose() },
            ])
        // First request wakes the reader, a second does nothing, no send after it, the reader
        // closes now, and only once.
        #expect(answers == [true, false, false, true, false])
        #expect(!state.isOpen && !state.isDelivering)
    }

    @Test("a close claimed while sends are in flight is done by the last one to return")
    func lastSendCloses() {
        var state = SocketCloseState()
        let admitted = Self.run(&state, [{ $0.admitSend() }, { $0.admitSend() }])
        #expect(admitted == [true, true])
        let deferred = Self.run(&state, [{ $0.claimClose() }, { $0.admitSend() }])
        #expect(deferred == [false, false], "deferred while two sends hold the descriptor; no new send")
        #expect(state.isOpen && state.closeDeferred)
        let returned = Self.run(&state, [{ $0.sendReturned() }, { $0.sendReturned() }, { $0.claimClose() }])
        #expect(returned == [false, true, false], "the last send closes, nobody closes twice")
        #expect(!state.isOpen && state.sendsInFlight == 0)
    }

    @Test("sends that return before any close leave the socket open and delivering")
    func sendsWithoutClose() {
        var state = SocketCloseState()
        let answers = Self.run(
            &state, Array(repeating: [{ $0.admitSend() }, { $0.sendReturned() }], count: 3).flatMap { $0 })
        #expect(answers == [true, false, true, false, true, false])
        #expect(state.isOpen && state.isDelivering && state.sendsInFlight == 0)
    }

    @Test("a reading end without close(): the reader claims the close, later requests do nothing")
    func endWithoutRequest() {
        var state = SocketCloseState()
        let answers = Self.run(&state, [{ $0.claimClose() }, { $0.requestClose() }, { $0.admitSend() }])
        #expect(answers == [true, false, false])
    }
}
