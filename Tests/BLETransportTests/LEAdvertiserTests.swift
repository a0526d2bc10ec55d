// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SDUSensor
import SystemCalls
import SystemPackage
import Testing

@testable import BLEHarness
@testable import BLETransport

/// Advertising fixtures: H4 command packets as the advertiser writes them, events as a
/// controller answers.
private enum A {
    static let name = "BC05FC978B7510AB"
    static let configuration = LEAdvertisingConfiguration.sduSensor(name: name)

    /// LE Set Advertising Parameters: 100 ms, ADV_IND, public, all channels, no filter.
    static let parameters = [UInt8](hex: "01 0620 0f a000 a000 00 00 00 000000000000 07 00")
    /// LE Set Advertising Data: flags 0x06, complete name BC05FC978B7510AB (18 bytes), padded.
    static let data = [UInt8](
        hex: "01 0820 20 15 020106 11 09 42433035464339373842373531304142"
            + String(repeating: "00", count: 31 - 21))
    /// LE Set Scan Response Data: the 128-bit SDU service UUID, complete list, padded.
    static let scanResponse = [UInt8](
        hex: "01 0920 20 12 11 07 1bc5d5a50200 48b1 e311 318f 1000c7a2" + String(repeating: "00", count: 31 - 18))
    static let enable = [UInt8](hex: "01 0a20 01 01")
    static let disable = [UInt8](hex: "01 0a20 01 00")

    static func complete(_ opcodeHex: String, status: String = "00") -> [UInt8] {
        [UInt8](hex: "04 0e 04 01 \(opcodeHex) \(status)")
    }

    /// LE Connection Complete, success, handle 0x0040, the given role, central 00:AA:01:00:00:00.
    static func connectionComplete(role: String = "01", status: String = "00") -> [UInt8] {
        [UInt8](hex: "04 3e 13 01 \(status) 4000 \(role) 00 000000 01aa00 2800 0000 c800 00")
    }

    /// Disconnection Complete, handle 0x0040, reason 0x13.
    static let disconnectionComplete = [UInt8](hex: "04 05 04 00 4000 13")
    static let central = BluetoothAddress(string: "00:AA:01:00:00:00")!
}

@Suite("LE advertising procedure")
struct LEAdvertisingProcedureTests {
    typealias P = LEAdvertisingProcedure

    /// Drives a procedure through the four setup commands.
    private func advertising(_ configuration: LEAdvertisingConfiguration = A.configuration) -> P {
        var procedure = P(configuration: configuration)
        _ = procedure.start()
        _ = procedure.received(A.complete("0620"))
        _ = procedure.received(A.complete("0820"))
        _ = procedure.received(A.complete("0920"))
        _ = procedure.received(A.complete("0a20"))
        return procedure
    }

    private func sent(_ actions: [P.Action]) -> [[UInt8]] {
        actions.compactMap { action in
            guard case .send(let packet) = action else { return nil }
            var bytes: [UInt8] = [0x01]
            packet.encode(into: &bytes)
            return bytes
        }
    }

    private func finishes(_ actions: [P.Action]) -> Bool {
        actions.contains { if case .finish = $0 { true } else { false } }
    }

    @Test("setup: parameters, data, scan response, enable, each after the previous Command Complete")
    func setup() {
        var procedure = P(configuration: A.configuration)
        #expect(sent(procedure.start()) == [A.parameters])
        #expect(procedure.received(A.complete("0c20")).isEmpty)  // another program's answer
        #expect(sent(procedure.received(A.complete("0620"))) == [A.data])
        #expect(sent(procedure.received(A.complete("0820"))) == [A.scanResponse])
        #expect(sent(procedure.received(A.complete("0920"))) == [A.enable])
        #expect(procedure.phase == .configuring)
        #expect(procedure.received(A.complete("0a20")) == [.advertising])
        #expect(procedure.phase == .advertising)
        #expect(procedure.pendingCommand == nil)
    }

    @Test("a central connects: connected with its address; its disconnection re-enables advertising")
    func reconnectCycle() {
        var procedure = advertising()
        #expect(procedure.received(A.connectionComplete()) == [.connected(peer: A.central, handle: 0x40)])
        #expect(procedure.phase == .connected(handle: 0x40))
        #expect(procedure.received([UInt8](hex: "04 05 04 00 4100 13")).isEmpty)  // another link
        let actions = procedure.received(A.disconnectionComplete)
        #expect(actions.first == .disconnected(handle: 0x40, reason: .remoteUserTerminated))
        #expect(sent(actions) == [A.enable])
        #expect(procedure.received(A.complete("0a20")) == [.advertising])
        #expect(procedure.phase == .advertising)
    }

    @Test("an LE Enhanced Connection Complete counts as well; the central role (our own connections) does not")
    func rolesAndEnhanced() {
        var procedure = advertising()
        #expect(procedure.received(A.connectionComplete(role: "00")).isEmpty)
        #expect(procedure.received(A.connectionComplete(status: "3c")).count == 1)  // a note, still advertising
        #expect(procedure.phase == .advertising)
        let enhanced = [UInt8](
            hex: "04 3e 1f 0a 00 4000 01 00 000000 01aa00 000000000000 000000000000 2800 0000 c800 00")
        #expect(procedure.received(enhanced) == [.connected(peer: A.central, handle: 0x40)])
    }

    @Test("restarts: disable then enable while unconnected, silently; none while connected or busy")
    func restarts() {
        var procedure = advertising()
        #expect(sent(procedure.restartDue()) == [A.disable])
        #expect(procedure.restartDue().isEmpty)  // the disable is still outstanding
        #expect(sent(procedure.received(A.complete("0a20"))) == [A.enable])
        #expect(procedure.received(A.complete("0a20")).isEmpty)  // nothing new to announce
        _ = procedure.received(A.connectionComplete())
        #expect(procedure.restartDue().isEmpty)
    }

    @Test("a restart's disable that completes after a central connected does not re-enable")
    func restartRace() {
        var procedure = advertising()
        _ = procedure.restartDue()
        _ = procedure.received(A.connectionComplete())
        #expect(procedure.received(A.complete("0a20")).isEmpty)
        #expect(procedure.phase == .connected(handle: 0x40))
    }

    @Test("a restart's disable refused after a central connected: stays connected, re-enables when it leaves")
    func restartDisableRace() {
        // btvirt took the central's connection, which ended advertising, before the restart's
        // disable: it answers the disable Command Disallowed (advertising is already off).
        var procedure = advertising()
        #expect(sent(procedure.restartDue()) == [A.disable])
        #expect(procedure.received(A.connectionComplete()) == [.connected(peer: A.central, handle: 0x40)])
        let refused = procedure.received(A.complete("0a20", status: "0c"))
        #expect(refused.count == 1)
        #expect(sent(refused).isEmpty)
        #expect(!finishes(refused))
        #expect(procedure.phase == .connected(handle: 0x40))
        #expect(procedure.pendingCommand == nil)
        #expect(sent(procedure.received(A.disconnectionComplete)) == [A.enable])
        #expect(procedure.received(A.complete("0a20")) == [.advertising])
        // Restarts go on as before.
        #expect(sent(procedure.restartDue()) == [A.disable])
        #expect(sent(procedure.received(A.complete("0a20"))) == [A.enable])
        #expect(procedure.received(A.complete("0a20")).isEmpty)
    }

    @Test("a restart's disable refused while nobody connected ends advertising: another program advertises")
    func restartDisableRefusedUnconnected() {
        var procedure = advertising()
        _ = procedure.restartDue()
        let actions = procedure.received(A.complete("0a20", status: "0c"))
        guard case .finish(let error)? = actions.last else {
            Issue.record("no finish: \(actions)")
            return
        }
        #expect(error?.code == .adapterBusy)
        #expect(procedure.phase == .finished)
    }

    @Test("a restart's enable refused after a central connected: stays connected, re-enables when it leaves")
    func restartEnableRace() {
        // btvirt answered the restart's disable, then the central's connection arrived, then
        // the restart's enable came back Command Disallowed (the controller is now a peripheral).
        var procedure = advertising()
        _ = procedure.restartDue()
        #expect(sent(procedure.received(A.complete("0a20"))) == [A.enable])
        #expect(procedure.received(A.connectionComplete()) == [.connected(peer: A.central, handle: 0x40)])
        let refused = procedure.received(A.complete("0a20", status: "0c"))
        #expect(!finishes(refused))
        #expect(procedure.phase == .connected(handle: 0x40))
        #expect(sent(procedure.received(A.disconnectionComplete)) == [A.enable])
        #expect(procedure.received(A.complete("0a20")) == [.advertising])
    }

    @Test("stop: disable after an enable was sent; nothing to disable before")
    func stop() {
        var early = P(configuration: A.configuration)
        _ = early.start()
        #expect(early.stop() == [.finish(nil)])
        var running = advertising()
        let actions = running.stop()
        #expect(sent(actions) == [A.disable])
        #expect(actions.last == .finish(nil))
        #expect(running.stop().isEmpty)
        #expect(running.received(A.connectionComplete()).isEmpty)
    }

    @Test("Command Disallowed: adapterBusy naming the other advertiser; Unknown Command: controllerRefused")
    func refusals() throws {
        var busy = P(configuration: A.configuration)
        _ = busy.start()
        let actions = busy.received(A.complete("0620", status: "0c"))
        guard case .finish(let error?) = actions.last else {
            Issue.record("expected a finish with an error, got \(actions)")
            return
        }
        #expect(error.code == .adapterBusy)
        #expect(error.hciCommand == .leSetAdvertisingParameters)
        #expect(error.hciStatus == .commandDisallowed)
        #expect(error.message.contains("btmgmt advertising off"))
        #expect(sent(actions).isEmpty)  // no enable was sent, so no disable

        var old = P(configuration: A.configuration)
        _ = old.start()
        _ = old.received(A.complete("0620"))
        _ = old.received(A.complete("0820"))
        _ = old.received(A.complete("0920"))
        let refused = old.received(A.commandStatus)
        #expect(sent(refused) == [A.disable])
        guard case .finish(let refusal?) = refused.last else {
            Issue.record("expected a finish with an error, got \(refused)")
            return
        }
        #expect(refusal.code == .controllerRefused)
        #expect(refusal.message.contains("Bluetooth 4.0"))
    }

    @Test("a command without an answer: controllerNotResponding; another opcode's timeout is ignored")
    func timeout() {
        var procedure = P(configuration: A.configuration)
        _ = procedure.start()
        #expect(procedure.commandTimedOut(.leSetAdvertisingEnable).isEmpty)
        let actions = procedure.commandTimedOut(.leSetAdvertisingParameters)
        guard case .finish(let error?) = actions.last else {
            Issue.record("expected a finish with an error, got \(actions)")
            return
        }
        #expect(error.code == .controllerNotResponding)
        #expect(error.message.contains("btmgmt power off"))
    }

    @Test("invalid configurations finish at once with the value and its range, before any command")
    func invalidConfiguration() {
        let longName = LEAdvertisingConfiguration(
            advertisingData: AdvertisingData([
                .flags(6), .localName(complete: true, bytes: Array(repeating: 0x41, count: 28)),
            ]))
        var procedure = P(configuration: longName)
        guard case .finish(let error?) = procedure.start().last else {
            Issue.record("expected a configuration error")
            return
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("at most 31"))

        var fast = P(configuration: LEAdvertisingConfiguration(advertisingData: AdvertisingData(), intervalUnits: 0x10))
        guard case .finish(let intervalError?) = fast.start().last else {
            Issue.record("expected a configuration error")
            return
        }
        #expect(intervalError.message.contains("32...16384"))
    }

    @Test("malformed events are counted and dropped")
    func malformed() {
        var procedure = advertising()
        #expect(procedure.received([UInt8](hex: "04 0e 02 01")).count == 1)
        #expect(procedure.received([UInt8](hex: "04 3e 03 01 00 40")).count == 1)
        #expect(procedure.malformedEventCount == 2)
        #expect(procedure.phase == .advertising)
        #expect(procedure.received([UInt8](hex: "02 4000 0000")).isEmpty)  // not an event
    }

    @Test("the SDU configuration carries the name in the advertisement and the service in the scan response")
    func sduConfiguration() throws {
        #expect(A.configuration.advertisingData.localName == A.name)
        #expect(A.configuration.scanResponseData.serviceUUIDs == [SDUProfile.service])
        try A.configuration.validate()
    }
}

extension A {
    /// Command Status 0x01 (Unknown HCI Command) for LE Set Advertising Enable.
    static let commandStatus = [UInt8](hex: "04 0f 04 01 01 0a20")
}

private let upAdapter = HCIAdapter(
    index: 1, name: "hci1", address: BluetoothAddress(string: "00:AA:01:01:00:01")!, isUp: true)

extension DescriptorSuites {
    @Suite("LE advertiser against a fake controller")
    struct LEAdvertiserExchangeTests {
        private func script(_ controller: FakeHCIController, extra: [String: [SyscallOutcome]] = [:]) -> SyscallScript {
            var outcomes: [String: [SyscallOutcome]] = [
                "socket": [.returns(Int(controller.hostDescriptor))], "bind": [.returns(0)],
                "setsockopt": [.returns(0)],
            ]
            outcomes.merge(extra) { $1 }
            return SyscallScript(outcomes)
        }

        private func answerSetup(_ controller: FakeHCIController) async throws {
            #expect(try await controller.nextPacket() == A.parameters)
            try controller.send(A.complete("0620"))
            #expect(try await controller.nextPacket() == A.data)
            try controller.send(A.complete("0820"))
            #expect(try await controller.nextPacket() == A.scanResponse)
            try controller.send(A.complete("0920"))
            #expect(try await controller.nextPacket() == A.enable)
            try controller.send(A.complete("0a20"))
        }

        @Test("a whole cycle byte for byte: setup, connection, disconnection, re-enable; disable when stopped")
        func cycle() async throws {
            let controller = try FakeHCIController()
            let script = script(controller)
            let advertising = LEAdvertiser.advertise(adapter: upAdapter, configuration: A.configuration)
            let consumer = Task {
                try await SyscallScript.$current.withValue(script) {
                    var events: [LEAdvertisingEvent] = []
                    for try await event in advertising {
                        events.append(event)
                        if events.count == 4 { break }
                    }
                    return events
                }
            }
            try await answerSetup(controller)
            try controller.send(A.connectionComplete())
            try controller.send(A.disconnectionComplete)
            #expect(try await controller.nextPacket() == A.enable)
            try controller.send(A.complete("0a20"))
            let events = try await consumer.value
            #expect(
                events == [
                    .advertising, .connected(peer: A.central, handle: 0x40),
                    .disconnected(handle: 0x40, reason: .remoteUserTerminated), .advertising,
                ])
            #expect(try await controller.nextPacket() == A.disable)
            #expect(try await controller.nextPacket() == nil)
            #expect(Array(script.calls.prefix(3)) == ["socket", "bind", "setsockopt"])
        }

        @Test("cancelling the consumer writes the disable, then closes the socket")
        func cancellation() async throws {
            let controller = try FakeHCIController()
            let script = script(controller)
            let advertising = LEAdvertiser.advertise(adapter: upAdapter, configuration: A.configuration)
            let (seen, sink) = AsyncStream.makeStream(of: LEAdvertisingEvent.self)
            let consumer = Task {
                try await SyscallScript.$current.withValue(script) {
                    for try await event in advertising { sink.yield(event) }
                }
            }
            try await answerSetup(controller)
            var events = seen.makeAsyncIterator()
            #expect(await events.next() == .advertising)
            consumer.cancel()
            #expect(try await controller.nextPacket() == A.disable)
            #expect(try await controller.nextPacket() == nil)
            _ = try? await consumer.value
        }

        @Test("restarts on the advertiser's clock: disable and enable every interval while unconnected")
        func restartsOnClock() async throws {
            let controller = try FakeHCIController()
            let script = script(controller)
            let clock = ManualClock()
            let advertising = LEAdvertiser.advertise(
                adapter: upAdapter, configuration: .sduSensor(name: A.name, restartInterval: .seconds(1)), clock: clock)
            let (seen, sink) = AsyncStream.makeStream(of: LEAdvertisingEvent.self)
            let consumer = Task {
                try await SyscallScript.$current.withValue(script) {
                    for try await event in advertising { sink.yield(event) }
                }
            }
            try await answerSetup(controller)
            var events = seen.makeAsyncIterator()
            #expect(await events.next() == .advertising)
            // Advertising runs and nothing is outstanding: the next restart tick disables. The
            // clock moves once the restart loop sleeps on it, exactly one interval, so no second
            // tick is due when the test cancels.
            try await clock.waitForSleepers(count: 1)
            clock.advance(by: .seconds(1))
            #expect(try await controller.nextPacket() == A.disable)
            try controller.send(A.complete("0a20"))
            #expect(try await controller.nextPacket() == A.enable)
            try controller.send(A.complete("0a20"))
            consumer.cancel()
            #expect(try await controller.nextPacket() == A.disable)
            #expect(try await controller.nextPacket() == nil)
            _ = try? await consumer.value
        }

        @Test("Command Disallowed: adapterBusy thrown to the consumer; nothing enabled, so no disable")
        func refused() async throws {
            let controller = try FakeHCIController()
            let script = script(controller)
            let advertising = LEAdvertiser.advertise(adapter: upAdapter, configuration: A.configuration)
            let consumer = Task { () -> TransportError? in
                await SyscallScript.$current.withValue(script) {
                    do throws(TransportError) {
                        for try await _ in advertising {}
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            #expect(try await controller.nextPacket() == A.parameters)
            try controller.send(A.complete("0620", status: "0c"))
            #expect(try await controller.nextPacket() == nil)
            let error = try #require(await consumer.value)
            #expect(error.code == .adapterBusy)
        }

        @Test("bind EPERM: permissionDenied naming the capabilities; an adapter that is down: adapterDown")
        func startErrors() async throws {
            let script = SyscallScript([
                "socket": [.returns(1000)], "bind": [.fails(.notPermitted)], "close": [.returns(0)],
            ])
            let error = await SyscallScript.$current.withValue(script) { () async -> TransportError? in
                do throws(TransportError) {
                    for try await _ in LEAdvertiser.advertise(adapter: upAdapter, configuration: A.configuration) {}
                    return nil
                } catch {
                    return error
                }
            }
            #expect(error?.code == .permissionDenied)
            #expect(error?.message.contains("CAP_NET_RAW and CAP_NET_ADMIN") == true)

            let down = HCIAdapter(index: 1, name: "hci1", address: upAdapter.address, isUp: false)
            let empty = SyscallScript([:])
            let downError = await SyscallScript.$current.withValue(empty) { () async -> TransportError? in
                do throws(TransportError) {
                    for try await _ in LEAdvertiser.advertise(adapter: down, configuration: A.configuration) {}
                    return nil
                } catch {
                    return error
                }
            }
            #expect(downError?.code == .adapterDown)
            #expect(downError?.message.contains("power on") == true)
            #expect(empty.calls.isEmpty)
        }

        @Test("HCI Disconnect: the command byte for byte, success on Command Status 0x00, refusal typed")
        func disconnect() async throws {
            let controller = try FakeHCIController()
            let script = script(controller)
            let done = Task {
                try await SyscallScript.$current.withValue(script) {
                    try await HCIDisconnection.disconnect(handle: 0x40, adapter: upAdapter)
                }
            }
            #expect(try await controller.nextPacket() == [UInt8](hex: "01 0604 03 4000 13"))
            try controller.send([UInt8](hex: "04 0f 04 00 01 0604"))
            try await done.value
            #expect(try await controller.nextPacket() == nil)

            let refusing = try FakeHCIController()
            let refusingScript = self.script(refusing)
            let refused = Task { () -> TransportError? in
                await SyscallScript.$current.withValue(refusingScript) {
                    do throws(TransportError) {
                        try await HCIDisconnection.disconnect(handle: 0x41, adapter: upAdapter)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            #expect(try await refusing.nextPacket() == [UInt8](hex: "01 0604 03 4100 13"))
            try refusing.send([UInt8](hex: "04 0f 04 02 01 0604"))
            let error = try #require(await refused.value)
            #expect(error.code == .controllerRefused)
            #expect(error.hciStatus == .unknownConnectionIdentifier)
        }
    }
}
