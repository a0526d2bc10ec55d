// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import Foundation
import GatewayTesting
import Glibc
import SystemCalls
import SystemPackage
import Testing

extension DescriptorSuites {
    @Suite("L2CAP LE connector on the ATT channel")
    struct L2CAPConnectorTests {
        static let sensor = BluetoothAddress(string: "C4:05:FC:97:8B:75", kind: .random)!
        static let adapter = BluetoothAddress(string: "00:1A:7D:DA:71:13")!

        /// The outcomes of a connect that the kernel finishes asynchronously with `SO_ERROR` = `error`.
        static func asyncConnect(
            socket: Int32, soError: Int32 = 0, revents: Int16 = Int16(POLLOUT)
        ) -> [String:
            [SyscallOutcome]]
        {
            [
                "socket": [.returns(Int(socket))],
                "bind": [.returns(0)],
                "setsockopt": [.returns(0)],
                "connect": [.fails(.nowInProgress)],
                "poll": [.returns(1, writing: ScriptedSockets.pollResult([revents, 0]))],
                "getsockopt": [.returns(0, writing: ScriptedSockets.int32Bytes(soError))],
            ]
        }

        @Test("the exact syscall sequence and sockaddr_l2 bytes for a random address; the bearer carries PDUs")
        func sequenceAndArguments() async throws {
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            let script = SyscallScript(Self.asyncConnect(socket: mine))
            let connector = L2CAPConnector(adapterAddress: Self.adapter, timeout: .seconds(5))
            let bearer = try await SyscallScript.$current.withValue(script) {
                try await connector.connect(to: Self.sensor)
            }
            #expect(
                Array(script.calls.prefix(8)) == [
                    "socket", "bind", "setsockopt", "connect", "eventfd", "poll", "getsockopt", "close",
                ])
            // bind: family 31, PSM 0, adapter address least significant octet first, CID 4, LE public.
            #expect(
                script.inputs(for: "bind") == [[31, 0, 0, 0, 0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00, 4, 0, 1, 0]])
            // BT_SECURITY: struct bt_security { level = BT_SECURITY_LOW (1), key_size = 0 }.
            #expect(script.inputs(for: "setsockopt") == [[1, 0]])
            // connect: family 31, PSM 0, sensor address reversed, CID 4, LE random (2), padding.
            #expect(
                script.inputs(for: "connect") == [[31, 0, 0, 0, 0x75, 0x8B, 0x97, 0xFC, 0x05, 0xC4, 4, 0, 2, 0]])
            // The only close so far is the wake-up eventfd's, never the connected socket.
            #expect(!script.inputs(for: "close").contains(ScriptedSockets.int32Bytes(mine)))

            let peer = try SeqPacketBearer(adopting: FileDescriptor(rawValue: theirs), label: "peer")
            let (peerPDUs, bearerPDUs) = (peer.receivedPDUs(), bearer.receivedPDUs())
            try await bearer.send([0x02, 0x05, 0x02])
            #expect(try await peerPDUs.next() == [0x02, 0x05, 0x02])
            try await peer.send([0x03, 0xF7, 0x01])
            #expect(try await bearerPDUs.next() == [0x03, 0xF7, 0x01])
            await bearer.close()
            await peer.close()
        }

        @Test("without an adapter the socket binds to BDADDR_ANY; a public peer is addressed as LE public")
        func anyAdapterPublicPeer() async throws {
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            let script = SyscallScript(Self.asyncConnect(socket: mine))
            let peerAddress = BluetoothAddress(string: "BC:05:FC:97:8B:75")!
            let bearer = try await SyscallScript.$current.withValue(script) {
                try await L2CAPConnector.connect(to: peerAddress, timeout: .seconds(5))
            }
            #expect(script.inputs(for: "bind") == [[31, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0]])
            #expect(
                script.inputs(for: "connect") == [[31, 0, 0, 0, 0x75, 0x8B, 0x97, 0xFC, 0x05, 0xBC, 4, 0, 1, 0]])
            await bearer.close()
            #expect(ScriptedSockets.seesPeerClosed(theirs))
            Glibc.close(theirs)
        }

        @Test("a connect that succeeds at once (the LE link already exists) skips the wait")
        func immediateSuccess() async throws {
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            var outcomes = Self.asyncConnect(socket: mine)
            outcomes["connect"] = [.returns(0)]
            outcomes["poll"] = nil
            outcomes["getsockopt"] = nil
            let script = SyscallScript(outcomes)
            let bearer = try await SyscallScript.$current.withValue(script) {
                try await L2CAPConnector(timeout: .seconds(5)).connect(to: Self.sensor)
            }
            #expect(Array(script.calls.prefix(4)) == ["socket", "bind", "setsockopt", "connect"])
            #expect(!script.calls.contains("getsockopt"))
            await bearer.close()
            Glibc.close(theirs)
        }

        struct ErrnoCase: Sendable, CustomTestStringConvertible {
            var errno: Errno
            var code: TransportError.Code
            var fix: [String]
            var testDescription: String { "\(errno.rawValue) → \(code)" }
        }

        static let connectErrors: [ErrnoCase] = [
            ErrnoCase(
                errno: .hostIsDown, code: .timedOut, fix: ["did not answer", "switched on", "in range", "phone"]),
            ErrnoCase(errno: .timedOut, code: .timedOut, fix: ["did not answer", "switched on", "in range", "phone"]),
            ErrnoCase(errno: .socketNotConnected, code: .timedOut, fix: ["did not answer"]),
            ErrnoCase(
                errno: .connectionRefused, code: .connectionRefused, fix: ["refused", "phone", "another gateway"]),
            ErrnoCase(errno: .resourceBusy, code: .adapterBusy, fix: ["bluetoothctl disconnect", "bluetoothd"]),
            ErrnoCase(errno: .alreadyInProcess, code: .adapterBusy, fix: ["bluetoothctl disconnect"]),
            ErrnoCase(errno: .socketIsConnected, code: .adapterBusy, fix: ["bluetoothctl disconnect"]),
            ErrnoCase(
                errno: .tooManyLinks, code: .connectionLimit,
                fix: ["out of connection slots", "0x09", "disconnect another device"]),
            ErrnoCase(errno: .noMemory, code: .connectionLimit, fix: ["out of connection slots", "0x07"]),
            ErrnoCase(errno: .notPermitted, code: .permissionDenied, fix: ["CAP_NET_RAW", "CAP_NET_ADMIN"]),
            ErrnoCase(errno: .permissionDenied, code: .securityRejected, fix: ["security", "bluetoothctl remove"]),
            ErrnoCase(errno: .addressFamilyNotSupported, code: .noBluetoothSupport, fix: ["CONFIG_BT"]),
            ErrnoCase(errno: .operationNotSupportedByDevice, code: .noSuchAdapter, fix: ["btmgmt info"]),
            ErrnoCase(errno: .noRouteToHost, code: .hostUnreachable, fix: ["btmgmt power on", "address type"]),
            ErrnoCase(errno: .noFunction, code: .hostUnreachable, fix: ["0x3E", "advertising"]),
            ErrnoCase(errno: .connectionReset, code: .linkLost, fix: ["while it was being set up"]),
            ErrnoCase(errno: .networkDown, code: .adapterDown, fix: ["btmgmt power on"]),
        ]

        @Test(
            "connect(2) failing at once: the errno maps to its code and fix; the socket is closed",
            arguments: connectErrors)
        func immediateFailure(_ testCase: ErrnoCase) async throws {
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(theirs) }
            var outcomes = Self.asyncConnect(socket: mine)
            outcomes["connect"] = [.fails(testCase.errno)]
            let script = SyscallScript(outcomes)
            let error = await #expect(throws: TransportError.self) {
                try await SyscallScript.$current.withValue(script) {
                    try await L2CAPConnector(timeout: .seconds(5)).connect(to: Self.sensor)
                }
            }
            #expect(error?.code == testCase.code)
            #expect(error?.errno == testCase.errno)
            #expect(error?.syscall == "connect")
            for word in testCase.fix {
                #expect(error?.message.contains(word) == true, "\(error?.message ?? "") should mention \(word)")
            }
            #expect(script.calls == ["socket", "bind", "setsockopt", "connect", "close"])
            #expect(script.inputs(for: "close") == [ScriptedSockets.int32Bytes(mine)])
            #expect(ScriptedSockets.seesPeerClosed(theirs))
        }

        @Test("the kernel ending the attempt with SO_ERROR: same mapping, socket closed", arguments: connectErrors)
        func asynchronousFailure(_ testCase: ErrnoCase) async throws {
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(theirs) }
            let outcomes = Self.asyncConnect(
                socket: mine, soError: testCase.errno.rawValue, revents: Int16(POLLOUT | POLLERR | POLLHUP))
            let script = SyscallScript(outcomes)
            let error = await #expect(throws: TransportError.self) {
                try await SyscallScript.$current.withValue(script) {
                    try await L2CAPConnector(timeout: .seconds(5)).connect(to: Self.sensor)
                }
            }
            #expect(error?.code == testCase.code)
            #expect(error?.errno == testCase.errno)
            #expect(error?.syscall == "connect")
            for word in testCase.fix {
                #expect(error?.message.contains(word) == true, "\(error?.message ?? "") should mention \(word)")
            }
            #expect(script.calls.last == "close")
            #expect(script.inputs(for: "close").contains(ScriptedSockets.int32Bytes(mine)))
            #expect(ScriptedSockets.seesPeerClosed(theirs))
        }

        @Test("a hang-up without an error while connecting is linkLost")
        func hangUpWithoutError() async throws {
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(theirs) }
            let script = SyscallScript(Self.asyncConnect(socket: mine, soError: 0, revents: Int16(POLLHUP)))
            let error = await #expect(throws: TransportError.self) {
                try await SyscallScript.$current.withValue(script) {
                    try await L2CAPConnector(timeout: .seconds(5)).connect(to: Self.sensor)
                }
            }
            #expect(error?.code == .linkLost)
            #expect(ScriptedSockets.seesPeerClosed(theirs))
        }

        @Test("poll returning 0 is a timeout: timedOut with the fix, socket closed")
        func scriptedTimeout() async throws {
            let (mine, theirs) = ScriptedSockets.seqPacketPair()
            defer { Glibc.close(theirs) }
            var outcomes = Self.asyncConnect(socket: mine)
            outcomes["poll"] = [.returns(0)]
            let script = SyscallScript(outcomes)
            let error = await #expect(throws: TransportError.self) {
                try await SyscallScript.$current.withValue(script) {
                    try await L2CAPConnector(timeout: .seconds(3)).connect(to: Self.sensor)
                }
            }
            #expect(error?.code == .timedOut)
            #expect(error?.message.contains("did not answer within 3.0 seconds") == true)
            #expect(error?.message.contains("not connected to a phone") == true)
            #expect(!script.calls.contains("getsockopt"))
            #expect(script.inputs(for: "close").contains(ScriptedSockets.int32Bytes(mine)))
            #expect(ScriptedSockets.seesPeerClosed(theirs))
        }

        @Test("a real poll on a socket that never becomes writable times out after the timeout")
        func realTimeout() async throws {
            let pipe = ScriptedSockets.pipe()
            defer { Glibc.close(pipe.write) }
            var outcomes = Self.asyncConnect(socket: pipe.read)
            outcomes["poll"] = nil
            let script = SyscallScript(outcomes)
            let start = ContinuousClock.now
            let error = await #expect(throws: TransportError.self) {
                try await SyscallScript.$current.withValue(script) {
                    try await L2CAPConnector(timeout: .milliseconds(200)).connect(to: Self.sensor)
                }
            }
            let elapsed = ContinuousClock.now - start
            #expect(error?.code == .timedOut)
            // The code says the connector's own timer ended it; how long the machine took to
            // run that is not the test's business (a loaded CI host is slow).
            #expect(elapsed >= .milliseconds(200))
            #expect(script.inputs(for: "close").contains(ScriptedSockets.int32Bytes(pipe.read)))
        }

        @Test("cancelling the task aborts the attempt at once and closes the socket")
        func cancellation() async throws {
            let pipe = ScriptedSockets.pipe()
            defer { Glibc.close(pipe.write) }
            var outcomes = Self.asyncConnect(socket: pipe.read)
            outcomes["poll"] = nil
            let script = SyscallScript(outcomes)
            let attempt = Task {
                try await SyscallScript.$current.withValue(script) {
                    try await L2CAPConnector(timeout: .seconds(60)).connect(to: Self.sensor)
                }
            }
            // Let it reach poll, then cancel.
            while !script.calls.contains("poll") { try await Task.sleep(for: .milliseconds(5)) }
            attempt.cancel()
            let error = await #expect(throws: TransportError.self) { try await attempt.value }
            // `cancelled`, not `timedOut`: the cancellation ended it, not the 60 s timer.
            #expect(error?.code == .cancelled)
            #expect(error?.message.contains("cancelled") == true)
            #expect(script.inputs(for: "close").contains(ScriptedSockets.int32Bytes(pipe.read)))
        }

        @Test("a task cancelled before connecting makes no system call")
        func cancelledBeforeStart() async throws {
            let script = SyscallScript([:])
            let attempt = Task {
                // Cancelled before connect is called, deterministically.
                withUnsafeCurrentTask { $0?.cancel() }
                return try await SyscallScript.$current.withValue(script) {
                    try await L2CAPConnector(timeout: .seconds(5)).connect(to: Self.sensor)
                }
            }
            let error = await #expect(throws: TransportError.self) { try await attempt.value }
            #expect(error?.code == .cancelled)
            #expect(script.calls.isEmpty)
        }

        @Test("socket failing with EAFNOSUPPORT is noBluetoothSupport and nothing else is called")
        func scriptedNoBluetooth() async throws {
            let script = SyscallScript(["socket": [.fails(.addressFamilyNotSupported)]])
            let error = await #expect(throws: TransportError.self) {
                try await SyscallScript.$current.withValue(script) {
                    try await L2CAPConnector(timeout: .seconds(5)).connect(to: Self.sensor)
                }
            }
            #expect(error?.code == .noBluetoothSupport)
            #expect(error?.syscall == "socket")
            #expect(script.calls == ["socket"])
        }

        @Test("bind or BT_SECURITY failing closes the socket and names the step")
        func setupFailures() async throws {
            for (name, errno) in [("bind", Errno.addressNotAvailable), ("setsockopt", Errno.protocolNotAvailable)] {
                let (mine, theirs) = ScriptedSockets.seqPacketPair()
                var outcomes = Self.asyncConnect(socket: mine)
                outcomes[name] = [.fails(errno)]
                let script = SyscallScript(outcomes)
                let error = await #expect(throws: TransportError.self) {
                    try await SyscallScript.$current.withValue(script) {
                        try await L2CAPConnector(timeout: .seconds(5)).connect(to: Self.sensor)
                    }
                }
                #expect(error?.syscall == (name == "bind" ? "bind" : "setsockopt(BT_SECURITY)"))
                #expect(error?.errno == errno)
                #expect(script.calls.last == "close")
                #expect(!script.calls.contains("connect"))
                #expect(ScriptedSockets.seesPeerClosed(theirs))
                Glibc.close(theirs)
            }
        }

        @Test("this machine, no script: a real connect fails with a typed error (noBluetoothSupport without CONFIG_BT)")
        func realSystem() async throws {
            let probe = Glibc.socket(31, Int32(SOCK_SEQPACKET.rawValue), 0)
            let kernelHasBluetooth = probe >= 0
            if probe >= 0 { Glibc.close(probe) }
            let error = await #expect(throws: TransportError.self) {
                try await L2CAPConnector(timeout: .milliseconds(500)).connect(to: Self.sensor)
            }
            if kernelHasBluetooth {
                #expect(error?.code != .noBluetoothSupport)
                #expect(error?.message.isEmpty == false)
            } else {
                #expect(error?.code == .noBluetoothSupport)
                #expect(error?.syscall == "socket")
                #expect(error?.errno == .addressFamilyNotSupported)
            }
        }

        @Test(
            "link-phase errnos of an established bearer are all linkLost",
            arguments: [
                Errno.connectionReset, .timedOut, .socketNotConnected, .hostIsDown, .connectionAbort,
            ])
        func linkPhaseMapping(_ errno: Errno) {
            let error = TransportError(onLink: "recv", errno: errno)
            #expect(error.code == .linkLost)
            #expect(error.errno == errno)
            #expect(error.syscall == "recv")
            #expect(error.message.contains("link"))
        }

        @Test("a supervision timeout (ETIMEDOUT) seen by a bearer's reader is linkLost, not timedOut")
        func bearerSupervisionTimeout() async throws {
            let script = SyscallScript(["recvmmsg": [.fails(.timedOut)]])
            let (reactor, (a, b)) = try SyscallScript.$current.withValue(script) {
                let reactor = try SocketReactor(label: "test-reactor")
                return (reactor, try SeqPacketBearer.socketPair(reactor: reactor))
            }
            let bPDUs = b.receivedPDUs()
            try await a.send([0x1B])
            let error = await #expect(throws: TransportError.self) { try await bPDUs.next() }
            #expect(error?.code == .linkLost)
            #expect(error?.errno == .timedOut)
            #expect(error?.message.contains("supervision timeout") == true)
            await a.close()
            await b.close()
            await reactor.shutDown()
        }
    }
}
