// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SDUSensor
import SystemCalls
import SystemPackage
import Testing

@testable import BLEHarness
@testable import BLETransport

private let upAdapter = HCIAdapter(
    index: 0, name: "hci0", address: BluetoothAddress(string: "00:1A:7D:DA:71:13")!, isUp: true)

/// Iterates `scan` to its end with `script` installed and returns the error it threw, if any.
private func scanError<C: Clock>(_ scan: LEScan<C>, script: SyscallScript) async -> TransportError? {
    await SyscallScript.$current.withValue(script) {
        do throws(TransportError) {
            for try await _ in scan {}
            return nil
        } catch {
            return error
        }
    }
}

@Suite("LE scanner on a raw HCI socket")
struct LEScannerSocketTests {
    @Test("socket EAFNOSUPPORT: noBluetoothSupport, saying how to get Bluetooth into the kernel")
    func noKernelSupport() async throws {
        let script = SyscallScript(["socket": [.fails(.addressFamilyNotSupported)]])
        let error = try #require(await scanError(LEScanner.scan(adapter: upAdapter), script: script))
        #expect(error.code == .noBluetoothSupport)
        #expect(error.message.contains("this kernel has no Bluetooth support"))
        #expect(error.syscall == "socket")
        #expect(script.calls == ["socket"])
    }

    @Test("bind EPERM: permissionDenied naming CAP_NET_RAW, CAP_NET_ADMIN and the systemd unit; socket closed")
    func bindNotPermitted() async throws {
        let script = SyscallScript([
            "socket": [.returns(1000)], "bind": [.fails(.notPermitted)], "close": [.returns(0)],
        ])
        let error = try #require(await scanError(LEScanner.scan(adapter: upAdapter), script: script))
        #expect(error.code == .permissionDenied)
        #expect(error.syscall == "bind")
        #expect(error.message.contains("CAP_NET_RAW and CAP_NET_ADMIN"))
        #expect(error.message.contains("run as root"))
        #expect(error.message.contains("systemd unit"))
        #expect(script.calls == ["socket", "bind", "close"])
    }

    @Test("bind EACCES is the same permission error")
    func bindAccessDenied() async throws {
        let script = SyscallScript([
            "socket": [.returns(1000)], "bind": [.fails(.permissionDenied)], "close": [.returns(0)],
        ])
        let error = try #require(await scanError(LEScanner.scan(adapter: upAdapter), script: script))
        #expect(error.code == .permissionDenied)
    }

    @Test("bind ENODEV: noSuchAdapter naming the adapter and how to list adapters")
    func bindNoDevice() async throws {
        let script = SyscallScript([
            "socket": [.returns(1000)], "bind": [.fails(.operationNotSupportedByDevice)], "close": [.returns(0)],
        ])
        let adapter = HCIAdapter(index: 4, name: "hci4", address: upAdapter.address, isUp: true)
        let error = try #require(await scanError(LEScanner.scan(adapter: adapter), script: script))
        #expect(error.code == .noSuchAdapter)
        #expect(error.message.hasPrefix("hci4: "))
        #expect(error.message.contains("btmgmt info"))
        #expect(script.calls == ["socket", "bind", "close"])
    }

    @Test("a failing setsockopt(HCI_FILTER) is a typed error and the socket is closed")
    func filterRefused() async throws {
        let script = SyscallScript([
            "socket": [.returns(1000)], "bind": [.returns(0)], "setsockopt": [.fails(.invalidArgument)],
            "close": [.returns(0)],
        ])
        let error = try #require(await scanError(LEScanner.scan(adapter: upAdapter), script: script))
        #expect(error.code == .system)
        #expect(error.syscall == "setsockopt")
        #expect(error.message.contains("dmesg"))
        #expect(script.calls == ["socket", "bind", "setsockopt", "close"])
    }

    @Test("an adapter that is down: adapterDown with the fix, before any socket is opened")
    func adapterDown() async throws {
        let down = HCIAdapter(index: 1, name: "hci1", address: upAdapter.address, isUp: false)
        let script = SyscallScript([:])
        let error = try #require(await scanError(LEScanner.scan(adapter: down), script: script))
        #expect(error.code == .adapterDown)
        #expect(error.message.contains("hci1 is down"))
        #expect(error.message.contains("power on"))
        #expect(error.message.contains("rfkill"))
        #expect(script.calls.isEmpty)
    }

    @Test("by index: the adapter is looked up first (here it reads as down), ENODEV there is noSuchAdapter")
    func byIndex() async throws {
        let down = SyscallScript(["socket": [.returns(1000)], "ioctl": [.returns(0)], "close": [.returns(0)]])
        let downError = try #require(await scanError(LEScanner.scan(adapterIndex: 2), script: down))
        #expect(downError.code == .adapterDown)
        #expect(downError.message.hasPrefix("hci2 is down"))

        let missing = SyscallScript([
            "socket": [.returns(1000)], "ioctl": [.fails(.operationNotSupportedByDevice)], "close": [.returns(0)],
        ])
        let missingError = try #require(await scanError(LEScanner.scan(adapterIndex: 7), script: missing))
        #expect(missingError.code == .noSuchAdapter)
        #expect(missingError.message.hasPrefix("hci7: "))
    }

    @Test("this machine: a real scan of hci0 runs and stops when cancelled, or fails with a typed error")
    func realSystem() async throws {
        let consumer = Task { () -> TransportError? in
            do throws(TransportError) {
                for try await discovery in LEScanner.scan(adapterIndex: 0) {
                    #expect(discovery.address.octets.count == 6)
                }
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        consumer.cancel()
        if let error = await consumer.value {
            let expected: [TransportError.Code] = [
                .noBluetoothSupport, .permissionDenied, .noSuchAdapter, .adapterDown, .adapterBusy,
            ]
            #expect(expected.contains(error.code), "\(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("nothing is opened until iteration starts")
    func lazy() async throws {
        let script = SyscallScript(["socket": [.fails(.addressFamilyNotSupported)]])
        let scan = SyscallScript.$current.withValue(script) { LEScanner.scan(adapter: upAdapter) }
        _ = scan.makeAsyncIterator()
        #expect(script.calls.isEmpty)
    }
}

@Suite("LE scanner against a fake controller")
struct LEScannerExchangeTests {
    /// A script that hands the fake controller's host end to the scanner as its HCI socket.
    private func script(_ controller: FakeHCIController, extra: [String: [SyscallOutcome]] = [:]) -> SyscallScript {
        var outcomes: [String: [SyscallOutcome]] = [
            "socket": [.returns(Int(controller.hostDescriptor))], "bind": [.returns(0)],
            "setsockopt": [.returns(0)],
        ]
        outcomes.merge(extra) { $1 }
        return SyscallScript(outcomes)
    }

    @Test("full extended scan: every command byte-exact, discoveries merged, disable written before close")
    func extendedScanUntilConsumerStops() async throws {
        let controller = try FakeHCIController()
        let script = script(controller)
        let scan = LEScanner.scan(adapter: upAdapter)
        let consumer = Task {
            try await SyscallScript.$current.withValue(script) {
                var seen: [LEDiscovery<ContinuousClock.Instant>] = []
                for try await discovery in scan {
                    seen.append(discovery)
                    if seen.count == 2 { break }
                }
                return seen
            }
        }
        #expect(try await controller.nextPacket() == F.readSupportedCommands)
        try controller.send(F.supportedCommands(octet37: 0x60))
        #expect(try await controller.nextPacket() == F.extendedParameters)
        try controller.send(F.complete("0c20"))  // another program's command: ignored
        try controller.send(F.complete("4120"))
        #expect(try await controller.nextPacket() == F.extendedEnable)
        try controller.send(F.complete("4220"))
        try controller.send(F.extendedAdvertisement)
        try controller.send(F.extendedScanResponse)

        let seen = try await consumer.value
        #expect(seen.map(\.address) == [F.bandCizerAddress, F.bandCizerAddress])
        #expect(seen.map(\.name) == ["BandCizer7", "BandCizer7"])
        #expect(seen.map(\.rssi) == [-56, -58])
        #expect(seen[1].manufacturerData?.companyID == 0x0059)
        #expect(seen.allSatisfy { $0.isSDUSensor })
        // The consumer stopped: the disable arrives, then the socket is closed (end of stream).
        #expect(try await controller.nextPacket() == F.extendedDisable)
        #expect(try await controller.nextPacket() == nil)
        #expect(Array(script.calls.prefix(3)) == ["socket", "bind", "setsockopt"])
    }

    @Test("cancelling the consuming task mid-scan writes the legacy disable, then closes")
    func cancellationDisables() async throws {
        let controller = try FakeHCIController()
        let script = script(controller)
        let scan = LEScanner.scan(adapter: upAdapter)
        let consumer = Task {
            try await SyscallScript.$current.withValue(script) {
                var count = 0
                for try await _ in scan { count += 1 }
                return count
            }
        }
        #expect(try await controller.nextPacket() == F.readSupportedCommands)
        try controller.send(F.supportedCommands(octet37: 0x00))
        #expect(try await controller.nextPacket() == F.legacyParameters)
        try controller.send(F.complete("0b20"))
        #expect(try await controller.nextPacket() == F.legacyEnable)
        try controller.send(F.complete("0c20"))
        try controller.send(F.legacyAdvertisement)
        try controller.send(F.legacyScanResponse)
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(try await controller.nextPacket() == F.legacyDisable)
        #expect(try await controller.nextPacket() == nil)
        #expect(try await consumer.value <= 2)
    }

    @Test("Command Disallowed from the controller: adapterBusy thrown to the consumer, disable still written")
    func commandDisallowed() async throws {
        let controller = try FakeHCIController()
        let script = script(controller)
        let scan = LEScanner.scan(adapter: upAdapter)
        let consumer = Task { await scanError(scan, script: script) }
        #expect(try await controller.nextPacket() == F.readSupportedCommands)
        try controller.send(F.supportedCommands(octet37: 0x00))
        #expect(try await controller.nextPacket() == F.legacyParameters)
        try controller.send(F.complete("0b20", status: "0c"))
        #expect(try await controller.nextPacket() == F.legacyDisable)
        #expect(try await controller.nextPacket() == nil)
        let error = try #require(await consumer.value)
        #expect(error.code == .adapterBusy)
        #expect(error.message.contains("another program is scanning"))
        #expect(error.hciStatus == .commandDisallowed)
    }

    @Test("a controller that never answers: controllerNotResponding after the timeout on the scan's clock")
    func commandTimeout() async throws {
        let controller = try FakeHCIController()
        let script = script(controller)
        let clock = ManualClock()
        let scan = LEScanner.scan(
            adapter: upAdapter, configuration: LEScanConfiguration(commandTimeout: .seconds(3)), clock: clock)
        let consumer = Task { await scanError(scan, script: script) }
        #expect(try await controller.nextPacket() == F.readSupportedCommands)
        try await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(3))
        let error = try #require(await consumer.value)
        #expect(error.code == .controllerNotResponding)
        #expect(error.hciCommand == .readLocalSupportedCommands)
        // Nothing scan-related was sent, so nothing needs disabling: the socket just closes.
        #expect(try await controller.nextPacket() == nil)
    }

    @Test("a write refused with ENETDOWN: adapterDown with the fix")
    func writeNetworkDown() async throws {
        let controller = try FakeHCIController()
        let script = script(controller, extra: ["send": [.fails(.networkDown)]])
        let error = try #require(await scanError(LEScanner.scan(adapter: upAdapter), script: script))
        #expect(error.code == .adapterDown)
        #expect(error.syscall == "send")
        #expect(error.message.contains("power on"))
        #expect(try await controller.nextPacket() == nil)
    }

    @Test("a read error on the I/O thread (adapter unplugged: EPIPE) ends the scan with adapterDown")
    func readFailure() async throws {
        let controller = try FakeHCIController()
        let script = script(controller, extra: ["recv": [.fails(.brokenPipe)]])
        let consumer = Task { await scanError(LEScanner.scan(adapter: upAdapter), script: script) }
        #expect(try await controller.nextPacket() == F.readSupportedCommands)
        try controller.send(F.supportedCommands(octet37: 0x60))
        let error = try #require(await consumer.value)
        #expect(error.code == .adapterDown)
        #expect(error.syscall == "recv")
        #expect(error.message.contains("removed or powered down"))
        #expect(try await controller.nextPacket() == nil)
    }
}
