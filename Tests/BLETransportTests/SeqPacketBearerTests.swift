// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import GatewayTesting
import SystemCalls
import SystemPackage
import Testing

extension DescriptorSuites {
    @Suite("SeqPacketBearer over a socket pair")
    struct SeqPacketBearerTests {
        @Test("PDUs travel both ways unchanged")
        func roundTrip() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let (aPDUs, bPDUs) = (a.receivedPDUs(), b.receivedPDUs())
            try await a.send([0x02, 0x05, 0x02])
            #expect(try await bPDUs.next() == [0x02, 0x05, 0x02])
            try await b.send([0x03, 0xF7, 0x01])
            #expect(try await aPDUs.next() == [0x03, 0xF7, 0x01])
            await a.close()
            await b.close()
        }

        @Test("message boundaries are kept: three sends are three receives")
        func boundaries() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let bPDUs = b.receivedPDUs()
            let pdus: [[UInt8]] = [[0x1B], Array(repeating: 0xAB, count: 23), (0..<300).map { UInt8($0 & 0xFF) }]
            for pdu in pdus { try await a.send(pdu) }
            for pdu in pdus {
                #expect(try await bPDUs.next() == pdu)
            }
            await a.close()
            #expect(try await bPDUs.next() == nil)
            await b.close()
        }

        @Test("a 517-byte PDU (largest ATT MTU) arrives whole")
        func largestPDU() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let bPDUs = b.receivedPDUs()
            let pdu = [0x1B] + (0..<516).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try await a.send(pdu)
            let received = try await bPDUs.next()
            #expect(received?.count == 517)
            #expect(received == pdu)
            await a.close()
            await b.close()
        }

        @Test("order is preserved over 10 000 PDUs")
        func order() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let bPDUs = b.receivedPDUs()
            let count = 10_000
            async let sent: Void = {
                for index in 0..<count {
                    try await a.send([0x1B, UInt8(index >> 8), UInt8(index & 0xFF), UInt8(index % 251)])
                }
            }()
            var outOfOrder = 0
            for index in 0..<count {
                let pdu = try await bPDUs.next()
                if pdu != [0x1B, UInt8(index >> 8), UInt8(index & 0xFF), UInt8(index % 251)] { outOfOrder += 1 }
            }
            try await sent
            #expect(outOfOrder == 0)
            await a.close()
            await b.close()
        }

        @Test("after the peer closes, the PDUs sent before are handed over, then the end")
        func peerClose() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let bPDUs = b.receivedPDUs()
            try await a.send([0x01])
            try await a.send([0x02])
            await a.close()
            #expect(try await bPDUs.next() == [0x01])
            #expect(try await bPDUs.next() == [0x02])
            #expect(try await bPDUs.next() == nil)
            #expect(try await bPDUs.next() == nil)
            let error = await #expect(throws: TransportError.self) { try await b.send([0x0A]) }
            #expect(error?.code == .linkLost)
            await b.close()
        }

        @Test("close() ends the flow a task awaits")
        func closeWakesReceiver() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let bPDUs = b.receivedPDUs()
            let receiver = Task { try await bPDUs.next() }
            try await Task.sleep(for: .milliseconds(50))
            await b.close()
            #expect(try await receiver.value == nil)
            await a.close()
        }

        @Test("close() twice, and concurrently, is safe; the flow then ends")
        func doubleClose() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let aPDUs = a.receivedPDUs()
            try await a.send([0x01])
            async let first: Void = a.close()
            async let second: Void = a.close()
            _ = await (first, second)
            await a.close()
            #expect(try await aPDUs.next() == nil)
            await b.close()
            await b.close()
        }

        @Test("send after close throws `closed`; the flow ends")
        func sendAfterClose() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let bPDUs = b.receivedPDUs()
            try await a.send([0x01])
            await b.close()
            // The PDU was handed over before the close, or discarded by it; then the end.
            #expect(try await [[0x01], nil].contains(bPDUs.next()))
            #expect(try await bPDUs.next() == nil)
            let error = await #expect(throws: TransportError.self) { try await b.send([0x0A]) }
            #expect(error?.code == .closed)
            #expect(error?.message.contains("open a new connection") == true)
            await a.close()
        }

        @Test("an empty PDU is refused")
        func emptyPDU() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let error = await #expect(throws: TransportError.self) { try await a.send([]) }
            #expect(error?.code == .invalidPDU)
            await a.close()
            await b.close()
        }

        @Test("a message longer than the receive buffer is dropped, the next one arrives")
        func oversizedDropped() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            let bPDUs = b.receivedPDUs()
            try await a.send(Array(repeating: 0x55, count: SeqPacketBearer.receiveCapacity + 1))
            try await a.send([0x1B, 0x01])
            #expect(try await bPDUs.next() == [0x1B, 0x01])
            await a.close()
            await b.close()
        }

        @Test("deliver(to:) is the one reader: PDUs read before it are handed over first, in order")
        func handlerAfterArrivals() async throws {
            let (a, b) = try SeqPacketBearer.socketPair()
            try await a.send([0x07])
            try await a.send([0x08])
            let bPDUs = b.receivedPDUs()
            try await a.send([0x09])
            #expect(try await bPDUs.next() == [0x07])
            #expect(try await bPDUs.next() == [0x08])
            #expect(try await bPDUs.next() == [0x09])
            await a.close()
            #expect(try await bPDUs.next() == nil)
            await b.close()
        }

        @Test("a link error seen by the reactor's thread ends the flow as linkLost; sends then fail with it")
        func linkErrorFromThread() async throws {
            let script = SyscallScript(["recvmmsg": [.fails(.connectionReset)]])
            // A reactor of its own carries the script to its thread; the shared one never does.
            let (reactor, (a, b)) = try SyscallScript.$current.withValue(script) {
                let reactor = try SocketReactor(label: "test-reactor")
                return (reactor, try SeqPacketBearer.socketPair(reactor: reactor))
            }
            let bPDUs = b.receivedPDUs()
            try await a.send([0x1B])
            let error = await #expect(throws: TransportError.self) { try await bPDUs.next() }
            #expect(error?.code == .linkLost)
            #expect(error?.syscall == "recvmmsg")
            #expect(error?.errno == .connectionReset)
            // A send is refused with the link's error every time.
            for _ in 0..<2 {
                let sendError = await #expect(throws: TransportError.self) { try await b.send([0x0A]) }
                #expect(sendError?.code == .linkLost)
            }
            #expect(script.remaining(for: "recvmmsg") == 0)
            await b.close()
            await a.close()
            await reactor.shutDown()
        }

        @Test("a failing socketpair or epoll_ctl comes out as a typed error and leaks nothing")
        func creationFailures() async throws {
            let noFiles = SyscallScript(["socketpair": [.fails(.tooManyOpenFiles)]])
            let error = #expect(throws: TransportError.self) {
                try SyscallScript.$current.withValue(noFiles) { try SeqPacketBearer.socketPair() }
            }
            #expect(error?.code == .tooManyOpenFiles)
            #expect(noFiles.calls == ["socketpair"])

            let (a, b) = ScriptedSockets.seqPacketPair()
            let identities = Set([a, b].compactMap(ScriptedSockets.identity(of:)))
            #expect(identities.count == 2)
            // ENOSPC: the user's epoll watch limit (fs.epoll.max_user_watches) is reached.
            let noWatch = SyscallScript([
                "socketpair": [.returns(0, writing: ScriptedSockets.int32Bytes(a) + ScriptedSockets.int32Bytes(b))],
                "epoll_ctl": [.fails(.noSpace)],
            ])
            let watchError = #expect(throws: TransportError.self) {
                try SyscallScript.$current.withValue(noWatch) { try SeqPacketBearer.socketPair() }
            }
            #expect(watchError?.syscall == "epoll_ctl")
            #expect(ScriptedSockets.closedDescriptors(noWatch).sorted() == [a, b].sorted())
            #expect(identities.isDisjoint(with: ScriptedSockets.openIdentities()))
        }

        /// Deterministic whatever else runs in this process: it never counts the process's
        /// descriptors (other suites, and the end-to-end tests' child processes, open and close
        /// theirs meanwhile). The bearers get descriptors the test made, through a script; each
        /// must be closed exactly once by them, and none of the open files behind them (socket and
        /// pipe inodes, unique while open) may still be open afterwards.
        @Test("opening and closing many bearers leaks no file descriptors")
        func noDescriptorLeak() async throws {
            let wake = ScriptedSockets.eventFDStandIn()
            var given: Set<String> = [try #require(ScriptedSockets.identity(of: wake))]
            let reactorScript = SyscallScript(["eventfd": [.returns(Int(wake))]])
            let reactor = try SyscallScript.$current.withValue(reactorScript) {
                try SocketReactor(label: "test-reactor")
            }
            for _ in 0..<100 {
                let (a, b) = ScriptedSockets.seqPacketPair()
                for descriptor in [a, b] { given.insert(try #require(ScriptedSockets.identity(of: descriptor))) }
                let script = SyscallScript([
                    "socketpair": [.returns(0, writing: ScriptedSockets.int32Bytes(a) + ScriptedSockets.int32Bytes(b))]
                ])
                let (first, second) = try SyscallScript.$current.withValue(script) {
                    try SeqPacketBearer.socketPair(reactor: reactor)
                }
                let secondPDUs = second.receivedPDUs()
                try await first.send([0x01])
                #expect(try await secondPDUs.next() == [0x01])
                await first.close()
                await second.close()
            }
            #expect(reactor.socketCount == 0)
            await reactor.shutDown()
            // The reactor's thread closed every socket and, last, its wake-up eventfd and epoll set.
            let closed = ScriptedSockets.closedDescriptors(reactorScript)
            #expect(closed.count == 202)
            #expect(closed.last == wake)
            #expect(given.count == 201)
            let leaked = given.intersection(ScriptedSockets.openIdentities())
            #expect(leaked.isEmpty, "left open: \(leaked.sorted())")
        }
    }
}
