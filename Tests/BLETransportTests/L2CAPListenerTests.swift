// SPDX-License-Identifier: GPL-2.0-or-later
import BLEHarness
import BLETransport
import BLEWire
import Foundation
import GatewayTesting
import Glibc
import SystemCalls
import SystemPackage
import Testing

extension DescriptorSuites {
    @Suite("L2CAP LE listener on the ATT channel")
    struct L2CAPListenerTests {
        static let adapter = BluetoothAddress(string: "00:1A:7D:DA:71:13")!

        /// The 14 bytes of a `sockaddr_l2` the kernel fills in on accept: family 31, PSM 0, the
        /// address least significant octet first, CID 4, the address type, padding.
        static func acceptedAddress(_ msbFirst: [UInt8], type: UInt8) -> [UInt8] {
            [31, 0, 0, 0] + msbFirst.reversed() + [4, 0, type, 0]
        }

        static func listening(socket: Int32) -> [String: [SyscallOutcome]] {
            [
                "socket": [.returns(Int(socket))], "bind": [.returns(0)], "setsockopt": [.returns(0)],
                "listen": [.returns(0)],
            ]
        }

        @Test("listen sequence, then accept: the bearer works and the peer address is decoded")
        func acceptPath() async throws {
            let (listening, listeningPeer) = ScriptedSockets.seqPacketPair()
            let (accepted, central) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(listeningPeer) }
            var outcomes = Self.listening(socket: listening)
            outcomes["poll"] = [.returns(1, writing: ScriptedSockets.pollResult([Int16(POLLIN), 0, 0]))]
            outcomes["accept"] = [
                .returns(Int(accepted), writing: Self.acceptedAddress([0xC4, 0x05, 0xFC, 0x97, 0x8B, 0x75], type: 2))
            ]
            let script = SyscallScript(outcomes)
            let (listener, connection) = try await SyscallScript.$current.withValue(script) {
                let listener = try L2CAPListener(adapterAddress: Self.adapter)
                return (listener, try await listener.accept())
            }
            #expect(
                Array(script.calls.prefix(8)) == [
                    "socket", "bind", "setsockopt", "listen", "eventfd", "eventfd", "poll", "accept",
                ])
            #expect(
                script.inputs(for: "bind") == [[31, 0, 0, 0, 0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00, 4, 0, 1, 0]])
            #expect(script.inputs(for: "setsockopt") == [[1, 0]])
            #expect(connection.peer == BluetoothAddress(string: "C4:05:FC:97:8B:75", kind: .random))
            #expect(connection.peer.kind == .random)
            #expect(listener.adapterAddress == Self.adapter)

            let peer = try SeqPacketBearer(adopting: FileDescriptor(rawValue: central), label: "central")
            let (peerPDUs, connectionPDUs) = (peer.receivedPDUs(), connection.bearer.receivedPDUs())
            try await peer.send([0x02, 0x05, 0x02])
            #expect(try await connectionPDUs.next() == [0x02, 0x05, 0x02])
            try await connection.bearer.send([0x03, 0x17, 0x00])
            #expect(try await peerPDUs.next() == [0x03, 0x17, 0x00])

            await listener.close()
            #expect(ScriptedSockets.seesPeerClosed(listeningPeer))
            // Closing the listener leaves accepted links alone.
            try await connection.bearer.send([0x1B, 0x25, 0x00])
            #expect(try await peerPDUs.next() == [0x1B, 0x25, 0x00])
            await connection.bearer.close()
            await peer.close()
        }

        @Test("a public central's address type decodes to .public")
        func publicPeer() async throws {
            let (listening, listeningPeer) = ScriptedSockets.seqPacketPair()
            let (accepted, central) = ScriptedSockets.seqPacketPair()
            defer {
                Glibc.close(listeningPeer)
                Glibc.close(central)
            }
            var outcomes = Self.listening(socket: listening)
            outcomes["poll"] = [.returns(1, writing: ScriptedSockets.pollResult([Int16(POLLIN), 0, 0]))]
            outcomes["accept"] = [
                .returns(Int(accepted), writing: Self.acceptedAddress([0x00, 0x1A, 0x7D, 0x00, 0x00, 0x01], type: 1))
            ]
            let script = SyscallScript(outcomes)
            let listener = try SyscallScript.$current.withValue(script) { try L2CAPListener() }
            let connection = try await SyscallScript.$current.withValue(script) { try await listener.accept() }
            #expect(connection.peer == BluetoothAddress(string: "00:1A:7D:00:00:01", kind: .public))
            #expect(listener.adapterAddress == nil)
            #expect(script.inputs(for: "bind") == [[31, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0]])
            await connection.bearer.close()
            await listener.close()
        }

        @Test("an aborted or non-LE connection is skipped (the latter closed) and the next one accepted")
        func skipsAbortedAndNonLE() async throws {
            let (listening, listeningPeer) = ScriptedSockets.seqPacketPair()
            let (bredr, bredrPeer) = ScriptedSockets.seqPacketPair()
            let (accepted, central) = ScriptedSockets.seqPacketPair()
            defer {
                Glibc.close(listeningPeer)
                Glibc.close(bredrPeer)
                Glibc.close(central)
            }
            let readable = SyscallOutcome.returns(1, writing: ScriptedSockets.pollResult([Int16(POLLIN), 0, 0]))
            var outcomes = Self.listening(socket: listening)
            outcomes["poll"] = [readable, readable, readable]
            outcomes["accept"] = [
                .fails(.connectionAbort),
                .returns(Int(bredr), writing: Self.acceptedAddress([1, 2, 3, 4, 5, 6], type: 0)),
                .returns(Int(accepted), writing: Self.acceptedAddress([0xC4, 0, 0, 0, 0, 9], type: 2)),
            ]
            let script = SyscallScript(outcomes)
            let listener = try SyscallScript.$current.withValue(script) { try L2CAPListener() }
            let connection = try await SyscallScript.$current.withValue(script) { try await listener.accept() }
            #expect(connection.peer == BluetoothAddress(string: "C4:00:00:00:00:09", kind: .random))
            #expect(script.calls.filter { $0 == "accept" }.count == 3)
            #expect(script.inputs(for: "close").contains(ScriptedSockets.int32Bytes(bredr)))
            #expect(ScriptedSockets.seesPeerClosed(bredrPeer))
            await connection.bearer.close()
            await listener.close()
        }

        @Test("close() wakes a pending accept, which throws closed; later accepts throw closed at once")
        func closeWakesAccept() async throws {
            let (listening, listeningPeer) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(listeningPeer) }
            let script = SyscallScript(Self.listening(socket: listening))
            let listener = try SyscallScript.$current.withValue(script) { try L2CAPListener() }
            let pending = Task { try await SyscallScript.$current.withValue(script) { try await listener.accept() } }
            while !script.calls.contains("poll") { try await Task.sleep(for: .milliseconds(5)) }
            await listener.close()
            let error = await #expect(throws: TransportError.self) { try await pending.value }
            #expect(error?.code == .closed)
            #expect(ScriptedSockets.seesPeerClosed(listeningPeer))
            #expect(script.inputs(for: "close").contains(ScriptedSockets.int32Bytes(listening)))
            let again = await #expect(throws: TransportError.self) { try await listener.accept() }
            #expect(again?.code == .closed)
            await listener.close()
        }

        @Test("cancelling one accept ends only that call; the listener keeps accepting")
        func cancelAccept() async throws {
            let (listening, listeningPeer) = ScriptedSockets.seqPacketPair()
            let (accepted, central) = ScriptedSockets.seqPacketPair()
            defer {
                Glibc.close(listeningPeer)
                Glibc.close(central)
            }
            var outcomes = Self.listening(socket: listening)
            outcomes["accept"] = [
                .returns(Int(accepted), writing: Self.acceptedAddress([0xC4, 1, 2, 3, 4, 5], type: 2))
            ]
            let script = SyscallScript(outcomes)
            let listener = try SyscallScript.$current.withValue(script) { try L2CAPListener() }
            let first = Task { try await SyscallScript.$current.withValue(script) { try await listener.accept() } }
            while !script.calls.contains("poll") { try await Task.sleep(for: .milliseconds(5)) }
            first.cancel()
            let error = await #expect(throws: TransportError.self) { try await first.value }
            #expect(error?.code == .cancelled)
            #expect(!script.calls.contains("accept"))

            // Make the (real) listening socket readable, so the next real poll reports it.
            var byte: UInt8 = 1
            #expect(Glibc.send(listeningPeer, &byte, 1, 0) == 1)
            let connection = try await SyscallScript.$current.withValue(script) { try await listener.accept() }
            #expect(connection.peer == BluetoothAddress(string: "C4:01:02:03:04:05", kind: .random))
            await connection.bearer.close()
            await listener.close()
            #expect(ScriptedSockets.seesPeerClosed(listeningPeer))
        }

        @Test("listen failing (EADDRINUSE: bluetoothd already serves ATT) closes the socket and names the fix")
        func listenFails() throws {
            let (listening, listeningPeer) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(listeningPeer) }
            var outcomes = Self.listening(socket: listening)
            outcomes["listen"] = [.fails(.addressInUse)]
            let script = SyscallScript(outcomes)
            let error = #expect(throws: TransportError.self) {
                try SyscallScript.$current.withValue(script) { try L2CAPListener(adapterAddress: Self.adapter) }
            }
            #expect(error?.code == .adapterBusy)
            #expect(error?.syscall == "listen")
            #expect(error?.message.contains("bluetoothd") == true)
            #expect(script.calls == ["socket", "bind", "setsockopt", "listen", "close"])
            #expect(ScriptedSockets.seesPeerClosed(listeningPeer))
        }

        @Test("a failing accept (EMFILE) is thrown with its fix")
        func acceptFails() async throws {
            let (listening, listeningPeer) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(listeningPeer) }
            var outcomes = Self.listening(socket: listening)
            outcomes["poll"] = [.returns(1, writing: ScriptedSockets.pollResult([Int16(POLLIN), 0, 0]))]
            outcomes["accept"] = [.fails(.tooManyOpenFiles)]
            let script = SyscallScript(outcomes)
            let listener = try SyscallScript.$current.withValue(script) { try L2CAPListener() }
            let error = await #expect(throws: TransportError.self) {
                try await SyscallScript.$current.withValue(script) { try await listener.accept() }
            }
            #expect(error?.code == .tooManyOpenFiles)
            #expect(error?.syscall == "accept")
            #expect(error?.message.contains("LimitNOFILE") == true)
            await listener.close()
            #expect(ScriptedSockets.seesPeerClosed(listeningPeer))
        }

        @Test("this machine, no script: listening fails with a typed error (noBluetoothSupport without CONFIG_BT)")
        func realSystem() async throws {
            let probe = Glibc.socket(31, Int32(SOCK_SEQPACKET.rawValue), 0)
            let kernelHasBluetooth = probe >= 0
            if probe >= 0 { Glibc.close(probe) }
            if kernelHasBluetooth {
                // With Bluetooth the listener may open (or meet bluetoothd's ATT server): either way typed.
                do {
                    let listener = try L2CAPListener()
                    await listener.close()
                } catch {
                    #expect(!error.message.isEmpty)
                }
            } else {
                let error = #expect(throws: TransportError.self) { try L2CAPListener() }
                #expect(error?.code == .noBluetoothSupport)
                #expect(error?.syscall == "socket")
            }
        }
    }
}
