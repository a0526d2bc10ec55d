// SPDX-License-Identifier: GPL-2.0-or-later
import Dispatch
import GatewayTesting
import Glibc
import Logging
import SystemPackage
import Testing

@testable import BLETransport

extension DescriptorSuites {
    @Suite("PolledSocket: a close during a send", .timeLimit(.minutes(5)))
    struct PolledSocketTests {
        typealias HeldSend = ReactorSocketTests.HeldSend

        @Test("a close while a send is in the kernel returns at once; the send completes, then the socket is closed")
        func closeDuringSend() async throws {
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(theirs) }
            let held = HeldSend()
            let socket = try PolledSocket(
                adopting: mine, label: "test-polled", receiveCapacity: 64, logger: Logger(label: "test"),
                onMessage: { _ in }, onEnd: { _ in }, sendMessage: { held.send($0, $1) })
            let sending = Task.detached { await runOnDedicatedThread(named: "sender") { socket.send([0x1B, 0x01]) } }
            await runOnDedicatedThread(named: "waiter") { held.entered.wait() }

            // With the send held, close() returns (before, it waited for the lock the send held).
            socket.close()
            #expect(socket.send([0x0A]) == nil, "a send after close() is refused")
            #expect(ReactorSocketTests.peerStillOpen(theirs), "no close(2) while the send is in flight")

            await ReactorSocketTests.expectReleasedSendCloses(held, sending, peer: theirs) {
                await socket.waitForExit()
            }
        }
    }
}
