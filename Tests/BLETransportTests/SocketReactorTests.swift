// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import GatewayTesting
import Glibc
import SystemCalls
import SystemPackage
import Testing

extension DescriptorSuites {
    @Suite("SocketReactor: one thread reads every bearer")
    struct SocketReactorTests {
        @Test("64 bearer pairs on one reactor each carry their own PDUs, in order")
        func manyBearers() async throws {
            let reactor = try SocketReactor(label: "test-reactor")
            var pairs: [(SeqPacketBearer, SeqPacketBearer)] = []
            for index in 0..<64 {
                pairs.append(try SeqPacketBearer.socketPair(label: "pair\(index)", reactor: reactor))
            }
            let received = pairs.map { $0.1.receivedPDUs() }
            #expect(reactor.socketCount == 128)
            // Every sender first, so the reactor finds many sockets ready in one round.
            for (index, (a, _)) in pairs.enumerated() {
                for sequence in 0..<20 { try await a.send([0x1B, UInt8(index), UInt8(sequence)]) }
            }
            for (index, bPDUs) in received.enumerated() {
                for sequence in 0..<20 {
                    #expect(try await bPDUs.next() == [0x1B, UInt8(index), UInt8(sequence)])
                }
            }
            for (a, b) in pairs {
                await a.close()
                await b.close()
            }
            #expect(reactor.socketCount == 0)
            await reactor.shutDown()
        }

        @Test("closing a bearer with unread PDUs waiting closes its socket; the peer sees the end")
        func closeWhileReadable() async throws {
            let reactor = try SocketReactor(label: "test-reactor")
            let (a, b) = try SeqPacketBearer.socketPair(reactor: reactor)
            let (aPDUs, bPDUs) = (a.receivedPDUs(), b.receivedPDUs())
            for sequence in 0..<100 { try await a.send([0x1B, UInt8(sequence)]) }
            await b.close()
            // What the reactor handed over before the close, in order, then the end: the rest is
            // discarded.
            var handedOver: [[UInt8]] = []
            while let pdu = try await bPDUs.next() { handedOver.append(pdu) }
            #expect(handedOver == (0..<handedOver.count).map { [0x1B, UInt8($0)] })
            // End of file, or ECONNRESET when PDUs were still in b's socket buffer at the close
            // (how many the reactor had read by then depends on timing): the end of the link both.
            do {
                #expect(try await aPDUs.next() == nil)
            } catch let error as TransportError {
                #expect(error.code == .linkLost)
            }
            let error = await #expect(throws: TransportError.self) { try await a.send([0x0A]) }
            #expect(error?.code == .linkLost)
            await a.close()
            #expect(reactor.socketCount == 0)
            await reactor.shutDown()
        }

        @Test("a peer's hang-up is reported after the PDUs sent before it; the socket is then closed")
        func peerHangUp() async throws {
            let reactor = try SocketReactor(label: "test-reactor")
            let (a, b) = try SeqPacketBearer.socketPair(reactor: reactor)
            let bPDUs = b.receivedPDUs()
            try await a.send([0x1B, 0x01])
            await a.close()
            #expect(try await bPDUs.next() == [0x1B, 0x01])
            #expect(try await bPDUs.next() == nil)
            let error = await #expect(throws: TransportError.self) { try await b.send([0x0A]) }
            #expect(error?.code == .linkLost)
            await b.close()
            #expect(reactor.socketCount == 0)
            await reactor.shutDown()
        }

        @Test("an interrupted epoll_wait is retried and a spurious EAGAIN loses no PDU")
        func scriptedRetries() async throws {
            let script = SyscallScript([
                "epoll_wait": [.fails(.interrupted)],
                "recvmmsg": [.fails(.resourceTemporarilyUnavailable)],
            ])
            let (reactor, (a, b)) = try SyscallScript.$current.withValue(script) {
                let reactor = try SocketReactor(label: "test-reactor")
                return (reactor, try SeqPacketBearer.socketPair(reactor: reactor))
            }
            let bPDUs = b.receivedPDUs()
            try await a.send([0x1B, 0x02])
            // Level-triggered: the socket is still readable after the EAGAIN and is read again.
            #expect(try await bPDUs.next() == [0x1B, 0x02])
            #expect(script.remaining(for: "epoll_wait") == 0)
            #expect(script.remaining(for: "recvmmsg") == 0)
            #expect(script.calls.filter { $0 == "epoll_wait" }.count >= 2)
            await a.close()
            await b.close()
            await reactor.shutDown()
        }

        @Test("a reactor whose epoll_wait fails stops; a bearer then cannot join it and its socket is closed")
        func failedWait() async throws {
            let script = SyscallScript(["epoll_wait": [.fails(.badFileDescriptor)]])
            let reactor = try SyscallScript.$current.withValue(script) { try SocketReactor(label: "test-reactor") }
            // Returns once the thread has ended, here by the failure.
            await reactor.shutDown()
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            let error = #expect(throws: TransportError.self) {
                try SeqPacketBearer(adopting: FileDescriptor(rawValue: mine), reactor: reactor)
            }
            #expect(error?.code == .closed)
            #expect(ScriptedSockets.seesPeerClosed(theirs))
            Glibc.close(theirs)
        }

        @Test("a synchronous handler gets the PDUs queued before it first, then later ones in order, then the end")
        func synchronousHandler() async throws {
            let reactor = try SocketReactor(label: "test-reactor")
            let (a, b) = try SeqPacketBearer.socketPair(reactor: reactor)
            try await a.send([0x1B, 0x00])
            try await a.send([0x1B, 0x01])
            // Both are queued, or being read, when the handler comes: either way they come first.
            let (inputs, input) = AsyncStream.makeStream(of: String.self)
            b.deliver { received in
                switch received {
                case .pdu(let pdu): input.yield("pdu \(pdu[pdu.startIndex + 1])")
                case .ended(let error): input.yield("ended \(error == nil ? "cleanly" : "with \(error!)")")
                }
            }
            for sequence in 2..<40 { try await a.send([0x1B, UInt8(sequence)]) }
            await a.close()
            var received: [String] = []
            for await line in inputs {
                received.append(line)
                if line.hasPrefix("ended") { break }
            }
            #expect(received == (0..<40).map { "pdu \($0)" } + ["ended cleanly"])
            await b.close()
            await reactor.shutDown()
        }

        @Test("a synchronous handler is told the link's error")
        func synchronousHandlerError() async throws {
            let script = SyscallScript(["recvmmsg": [.fails(.connectionReset)]])
            let (reactor, (a, b)) = try SyscallScript.$current.withValue(script) {
                let reactor = try SocketReactor(label: "test-reactor")
                return (reactor, try SeqPacketBearer.socketPair(reactor: reactor))
            }
            let (inputs, input) = AsyncStream.makeStream(of: (any Error)?.self)
            b.deliver { received in
                if case .ended(let error) = received { input.yield(error) }
            }
            try await a.send([0x1B])
            var iterator = inputs.makeAsyncIterator()
            let ending = await iterator.next()
            let error = try #require(ending as? TransportError)
            #expect(error.code == .linkLost)
            #expect(error.errno == .connectionReset)
            await a.close()
            await b.close()
            await reactor.shutDown()
        }

        @Test("shutting a reactor down ends its bearers' receives and closes their sockets")
        func shutDownClosesBearers() async throws {
            let reactor = try SocketReactor(label: "test-reactor")
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            let bearer = try SeqPacketBearer(adopting: FileDescriptor(rawValue: mine), reactor: reactor)
            await reactor.shutDown()
            #expect(ScriptedSockets.seesPeerClosed(theirs))
            Glibc.close(theirs)
            #expect(try await bearer.receivedPDUs().next() == nil)
            let error = await #expect(throws: TransportError.self) { try await bearer.send([0x0A]) }
            #expect(error?.code == .linkLost)
            await bearer.close()
        }
    }
}
