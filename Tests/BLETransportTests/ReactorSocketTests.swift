// SPDX-License-Identifier: GPL-2.0-or-later
import Dispatch
import GatewayTesting
import Glibc
import Logging
import NIOConcurrencyHelpers
import SystemPackage
import Testing

@testable import BLETransport

extension DescriptorSuites {
    @Suite("ReactorSocket: a close during a send", .timeLimit(.minutes(5)))
    struct ReactorSocketTests {
        /// A send that stops in the middle until released, as a slow `send(2)` would.
        final class HeldSend: Sendable {
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let calls = NIOLockedValueBox(0)

            func send(_ descriptor: Int32, _ message: [UInt8]) -> Result<Int, Errno> {
                calls.withLockedValue { $0 += 1 }
                entered.signal()
                release.wait()
                return sendWithoutBlocking(descriptor, message)
            }
        }

        /// Nothing to read and no hang-up on `end` now: its peer is still open.
        /// Releases the held send of `[0x1B, 0x01]` and checks that it went out on its own socket,
        /// then (after `exit`) that the last send closed the socket, once.
        static func expectReleasedSendCloses(
            _ held: HeldSend, _ sending: Task<Result<Int, Errno>?, Never>, peer theirs: Int32,
            exit: () async -> Void
        ) async {
            held.release.signal()
            let result = await sending.value
            #expect(result.flatMap { try? $0.get() } == 2, "the held send went out: \(String(describing: result))")
            var received = [UInt8](repeating: 0, count: 8)
            let length = Glibc.recv(theirs, &received, received.count, Int32(MSG_DONTWAIT))
            #expect(Array(received.prefix(max(0, length))) == [0x1B, 0x01], "on the socket it was meant for")
            await exit()
            #expect(ScriptedSockets.seesPeerClosed(theirs), "the last send closed it")
            #expect(held.calls.withLockedValue { $0 } == 1)
        }

        static func peerStillOpen(_ end: Int32) -> Bool {
            var entry = pollfd(fd: end, events: Int16(POLLIN), revents: 0)
            return Glibc.poll(&entry, 1, 0) == 0
        }

        @Test("a close while a send is in the kernel: the send completes on its own socket, then it is closed once")
        func closeDuringSend() async throws {
            let reactor = try SocketReactor(label: "test-reactor")
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(theirs) }
            let held = HeldSend()
            let socket = try reactor.register(
                adopting: mine, receiveCapacity: 64, logger: Logger(label: "test"), onMessage: { _ in },
                onEnd: { _ in }, sendMessage: { held.send($0, $1) })
            let sending = Task.detached { await runOnDedicatedThread(named: "sender") { socket.send([0x1B, 0x01]) } }
            await runOnDedicatedThread(named: "waiter") { held.entered.wait() }

            // With the send held, close() returns at once (before, it waited for the send's lock),
            // and the reactor retires the socket but leaves the descriptor to the send.
            socket.close()
            let deadline = ContinuousClock.now + .seconds(30)
            while reactor.socketCount > 0, ContinuousClock.now < deadline { await Task.yield() }
            #expect(reactor.socketCount == 0, "the reactor took the close")
            #expect(Self.peerStillOpen(theirs), "no close(2) while the send is in flight")
            #expect(socket.send([0x0A]) == nil, "a send after close() is refused")

            await Self.expectReleasedSendCloses(held, sending, peer: theirs) { await socket.waitForExit() }
            await reactor.shutDown()
        }

        @Test("closing with no send in flight closes at once; sends after it never reach send(2)")
        func closeWithoutSends() async throws {
            let reactor = try SocketReactor(label: "test-reactor")
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(theirs) }
            let calls = NIOLockedValueBox(0)
            let socket = try reactor.register(
                adopting: mine, receiveCapacity: 64, logger: Logger(label: "test"), onMessage: { _ in },
                onEnd: { _ in },
                sendMessage: { descriptor, message in
                    calls.withLockedValue { $0 += 1 }
                    return sendWithoutBlocking(descriptor, message)
                })
            #expect(try socket.send([0x1B])?.get() == 1)
            var byte: UInt8 = 0
            #expect(Glibc.recv(theirs, &byte, 1, 0) == 1 && byte == 0x1B)
            socket.close()
            await socket.waitForExit()
            #expect(ScriptedSockets.seesPeerClosed(theirs))
            #expect(socket.send([0x1B]) == nil)
            #expect(calls.withLockedValue { $0 } == 1)
            await reactor.shutDown()
        }
    }
}
