// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SDUSensor
import Testing

@testable import BLEHarness
@testable import BLETransport

typealias Procedure = LEScanProcedure<ManualClock.Instant>
typealias F = LEScanFixture

/// Drives a procedure with H4 packets and records what it does, as the I/O layer would.
struct ProcedureDriver {
    var procedure: Procedure
    var now = ManualClock.Instant(offset: .zero)
    /// Every command sent so far, H4 type byte first, in order.
    var written: [[UInt8]] = []
    var discoveries: [LEDiscovery<ManualClock.Instant>] = []
    var notes: [String] = []
    var started: Procedure.CommandSet?
    var finished: TransportError??

    init(_ configuration: LEScanConfiguration = LEScanConfiguration()) {
        procedure = Procedure(configuration: configuration)
    }

    mutating func perform(_ actions: [Procedure.Action]) {
        for (index, action) in actions.enumerated() {
            switch action {
            case .send(let packet):
                var bytes: [UInt8] = [0x01]
                packet.encode(into: &bytes)
                written.append(bytes)
            case .started(let set): started = set
            case .discovered(let discovery): discoveries.append(discovery)
            case .note(let note): notes.append(note)
            case .finish(let error):
                #expect(index == actions.count - 1, "finish must be the last action")
                finished = .some(error)
            }
        }
    }

    mutating func start() { perform(procedure.start()) }
    mutating func receive(_ packet: [UInt8]) {
        now = now.advanced(by: .milliseconds(10))
        perform(procedure.received(packet, at: now))
    }
    mutating func stop() { perform(procedure.stop()) }

    /// Runs the exchange up to a running scan on a controller with octet 37 = `octet37`.
    mutating func startScanning(octet37: UInt8) {
        start()
        receive(F.supportedCommands(octet37: octet37))
        if octet37 & 0x60 == 0x60 {
            receive(F.complete("4120"))
            receive(F.complete("4220"))
        } else {
            receive(F.complete("0b20"))
            receive(F.complete("0c20"))
        }
    }
}

@Suite("LE scan procedure")
struct LEScanProcedureTests {
    @Test("start asks the controller for its supported commands, and only once")
    func startReadsSupportedCommands() {
        var driver = ProcedureDriver()
        driver.start()
        #expect(driver.written == [F.readSupportedCommands])
        #expect(driver.procedure.phase == .readingSupportedCommands)
        #expect(driver.procedure.pendingCommand == .readLocalSupportedCommands)
        driver.start()
        #expect(driver.written.count == 1)
    }

    @Test("extended-capable controller (octet 37 bits 5 and 6): extended parameters, enable, scanning")
    func extendedController() {
        var driver = ProcedureDriver()
        driver.start()
        driver.receive(F.supportedCommands(octet37: 0x60))
        #expect(driver.written.last == F.extendedParameters)
        #expect(driver.procedure.phase == .settingParameters(.extended))
        driver.receive(F.complete("4120"))
        #expect(driver.written.last == F.extendedEnable)
        #expect(driver.started == nil)
        driver.receive(F.complete("4220"))
        #expect(driver.started == .extended)
        #expect(driver.procedure.phase == .scanning(.extended))
        #expect(driver.procedure.commandSetInUse == .extended)
        #expect(driver.written == [F.readSupportedCommands, F.extendedParameters, F.extendedEnable])
        #expect(driver.finished == nil)
    }

    @Test(
        "legacy controller: no extended bits, or only one of them, means legacy commands",
        arguments: [UInt8(0x00), 0x20, 0x40])
    func legacyController(octet37: UInt8) {
        var driver = ProcedureDriver()
        driver.startScanning(octet37: octet37)
        #expect(driver.written == [F.readSupportedCommands, F.legacyParameters, F.legacyEnable])
        #expect(driver.started == .legacy)
        #expect(driver.procedure.phase == .scanning(.legacy))
    }

    @Test("a failed Read Local Supported Commands falls back to legacy with a note")
    func supportedCommandsFailed() {
        var driver = ProcedureDriver()
        driver.start()
        driver.receive(F.complete("0210", status: "01"))
        #expect(driver.written.last == F.legacyParameters)
        #expect(driver.notes.count == 1)
        #expect(driver.notes.first?.contains("Unknown HCI Command") == true)
    }

    @Test("passive scan, other timing and duplicate filtering are encoded in both command sets")
    func configurationEncoded() {
        let configuration = LEScanConfiguration(
            mode: .passive, interval: .milliseconds(1280), window: .milliseconds(11.25), duplicates: .filterInController
        )
        var extended = ProcedureDriver(configuration)
        extended.startScanning(octet37: 0x60)
        // 1280 ms = 2048 units = 0x0800; 11.25 ms = 18 units = 0x0012.
        #expect(extended.written[1] == [UInt8](hex: "01 4120 08 00 00 01 00 0008 1200"))
        #expect(extended.written[2] == [UInt8](hex: "01 4220 06 01 01 0000 0000"))
        extended.stop()
        #expect(extended.written.last == F.extendedDisable)

        var legacy = ProcedureDriver(configuration)
        legacy.startScanning(octet37: 0)
        #expect(legacy.written[1] == [UInt8](hex: "01 0b20 07 00 0008 1200 00 00"))
        #expect(legacy.written[2] == [UInt8](hex: "01 0c20 02 01 01"))
        legacy.stop()
        #expect(legacy.written.last == F.legacyDisable)
    }

    @Test("an invalid configuration finishes at once with the fix, sending nothing")
    func invalidConfiguration() {
        let cases: [(LEScanConfiguration, String)] = [
            (LEScanConfiguration(interval: .milliseconds(100), window: .milliseconds(200)), "at most the interval"),
            (LEScanConfiguration(interval: .milliseconds(1), window: .milliseconds(1)), "2.5 ms...10.24 s"),
            (LEScanConfiguration(interval: .seconds(11), window: .seconds(1)), "2.5 ms...10.24 s"),
            (LEScanConfiguration(ownAddressType: 7), "use 0"),
            (LEScanConfiguration(commandTimeout: .zero), "positive"),
        ]
        for (configuration, fix) in cases {
            var driver = ProcedureDriver(configuration)
            driver.start()
            #expect(driver.written.isEmpty)
            let error = driver.finished ?? nil
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message.contains(fix) == true, "\(String(describing: error))")
        }
    }

    @Test("Command Disallowed on legacy parameters: adapterBusy naming the fix, and a disable is still sent")
    func commandDisallowedLegacy() throws {
        var driver = ProcedureDriver()
        driver.start()
        driver.receive(F.supportedCommands(octet37: 0))
        driver.receive(F.complete("0b20", status: "0c"))
        #expect(driver.written == [F.readSupportedCommands, F.legacyParameters, F.legacyDisable])
        let error = try #require(driver.finished ?? nil)
        #expect(error.code == .adapterBusy)
        #expect(error.hciStatus == .commandDisallowed)
        #expect(error.hciCommand == .leSetScanParameters)
        #expect(error.message.contains("Command Disallowed"))
        #expect(error.message.contains("another program is scanning"))
        #expect(error.message.contains("`bluetoothctl scan off`"))
        #expect(error.message.contains("bluetoothd"))
        #expect(error.description.contains("HCI command 0x200B"))
        #expect(driver.procedure.phase == .finished)
    }

    @Test("Command Disallowed on extended parameters: one fallback to legacy, then the error and both disables")
    func commandDisallowedExtendedFallsBack() throws {
        var driver = ProcedureDriver()
        driver.start()
        driver.receive(F.supportedCommands(octet37: 0x60))
        driver.receive(F.commandStatus("4120", status: "0c"))
        #expect(driver.written.last == F.legacyParameters)
        #expect(driver.notes.contains { $0.contains("legacy mode") })
        #expect(driver.finished == nil)

        // The legacy set works: scanning runs with it, and stopping disables with it.
        var working = driver
        working.receive(F.complete("0b20"))
        working.receive(F.complete("0c20"))
        #expect(working.started == .legacy)
        working.stop()
        #expect(working.written.last == F.legacyDisable)

        // The legacy set is refused too: the error, no second fallback, and since the controller's
        // mode is now unknown (a leftover extended scan refuses legacy commands), both disables.
        driver.receive(F.complete("0b20", status: "0c"))
        #expect(
            driver.written == [
                F.readSupportedCommands, F.extendedParameters, F.legacyParameters, F.extendedDisable, F.legacyDisable,
            ])
        let error = try #require(driver.finished ?? nil)
        #expect(error.code == .adapterBusy)
    }

    @Test("Command Disallowed on the extended enable: error and an extended disable")
    func commandDisallowedOnEnable() throws {
        var driver = ProcedureDriver()
        driver.start()
        driver.receive(F.supportedCommands(octet37: 0x60))
        driver.receive(F.complete("4120"))
        driver.receive(F.complete("4220", status: "0c"))
        #expect(driver.written.suffix(2) == [F.extendedEnable, F.extendedDisable])
        let error = try #require(driver.finished ?? nil)
        #expect(error.code == .adapterBusy)
        #expect(error.hciCommand == .leSetExtendedScanEnable)
    }

    @Test("other refusals map to controllerRefused with a fix", arguments: ["01", "12", "11", "1f"])
    func otherRefusals(status: String) throws {
        var driver = ProcedureDriver()
        driver.start()
        driver.receive(F.supportedCommands(octet37: 0))
        driver.receive(F.complete("0b20", status: status))
        let error = try #require(driver.finished ?? nil)
        #expect(error.code == .controllerRefused)
        #expect(error.hciStatus == HCIErrorCode(rawValue: UInt8(status, radix: 16)!))
        let fix = ["01": "Bluetooth 4.0", "12": "default interval", "11": "default interval", "1f": "btmgmt power off"]
        #expect(error.message.contains(fix[status]!))
        #expect(driver.written.last == F.legacyDisable)
    }

    @Test("cancellation mid-scan sends the disable of the set in use, then finishes without error")
    func stopWhileScanning() {
        for (octet, disable) in [(UInt8(0x60), F.extendedDisable), (0x00, F.legacyDisable)] {
            var driver = ProcedureDriver()
            driver.startScanning(octet37: octet)
            driver.receive(F.legacyAdvertisement)
            let count = driver.written.count
            driver.stop()
            #expect(driver.written.count == count + 1)
            #expect(driver.written.last == disable)
            #expect(driver.finished == .some(nil))
            // Finished: later events and stops do nothing.
            driver.receive(F.legacyAdvertisement)
            driver.stop()
            #expect(driver.written.count == count + 1)
            #expect(driver.discoveries.count == 1)
        }
    }

    @Test("stopping while parameters or enable are in flight still disables; before any scan command it does not")
    func stopInFlight() {
        var beforeScanCommand = ProcedureDriver()
        beforeScanCommand.start()
        beforeScanCommand.stop()
        #expect(beforeScanCommand.written == [F.readSupportedCommands])
        #expect(beforeScanCommand.finished == .some(nil))

        var duringParameters = ProcedureDriver()
        duringParameters.start()
        duringParameters.receive(F.supportedCommands(octet37: 0x60))
        duringParameters.stop()
        #expect(duringParameters.written.last == F.extendedDisable)

        var duringEnable = ProcedureDriver()
        duringEnable.start()
        duringEnable.receive(F.supportedCommands(octet37: 0))
        duringEnable.receive(F.complete("0b20"))
        duringEnable.stop()
        #expect(duringEnable.written.last == F.legacyDisable)
        // The enable's late answer changes nothing.
        duringEnable.receive(F.complete("0c20"))
        #expect(duringEnable.started == nil)

        var idle = ProcedureDriver()
        idle.stop()
        #expect(idle.written.isEmpty)
        #expect(idle.finished == .some(nil))
    }

    @Test("a command timeout is controllerNotResponding with the fix; a stale timeout is ignored")
    func timeout() throws {
        var driver = ProcedureDriver()
        driver.start()
        driver.receive(F.supportedCommands(octet37: 0x60))
        driver.perform(driver.procedure.commandTimedOut(.readLocalSupportedCommands))
        #expect(driver.finished == nil)
        driver.perform(driver.procedure.commandTimedOut(.leSetExtendedScanParameters))
        #expect(driver.written.last == F.extendedDisable)
        let error = try #require(driver.finished ?? nil)
        #expect(error.code == .controllerNotResponding)
        #expect(error.hciCommand == .leSetExtendedScanParameters)
        #expect(error.message.contains("btmgmt power off"))
    }

    @Test("a transport failure while scanning tries a disable and finishes with that error")
    func transportFailure() {
        var driver = ProcedureDriver()
        driver.startScanning(octet37: 0x60)
        let failure = TransportError(code: .adapterDown, message: "gone")
        driver.perform(driver.procedure.transportFailed(failure))
        #expect(driver.written.last == F.extendedDisable)
        #expect(driver.finished == .some(failure))
    }

    @Test("answers to other programs' commands, unrelated events and early reports are ignored")
    func ignoresOthers() {
        var driver = ProcedureDriver()
        driver.start()
        driver.receive(F.complete("0c20"))  // someone else's scan enable
        driver.receive(F.commandStatus("0d20", status: "00"))  // someone's LE Create Connection
        driver.receive(F.legacyAdvertisement)  // someone else's scan
        driver.receive([UInt8](hex: "04 05 04 00 4000 13"))  // Disconnection Complete
        driver.receive([UInt8](hex: "02 4020 0500 0100 04 00"))  // an ACL packet
        driver.receive(F.complete("0000"))  // flow-control update
        #expect(driver.written == [F.readSupportedCommands])
        #expect(driver.discoveries.isEmpty)
        #expect(driver.procedure.phase == .readingSupportedCommands)
        // A successful Command Status for the pending command is not its answer either.
        driver.receive(F.commandStatus("0210", status: "00"))
        #expect(driver.procedure.phase == .readingSupportedCommands)
        driver.receive(F.supportedCommands(octet37: 0x60))
        #expect(driver.procedure.phase == .settingParameters(.extended))
    }

    @Test("malformed events are counted, noted and dropped; the scan goes on")
    func malformedEvents() {
        var driver = ProcedureDriver()
        driver.startScanning(octet37: 0)
        driver.receive([UInt8](hex: "04 3e 05 02 01 00"))  // length says 5, 3 follow
        driver.receive([UInt8](hex: "04 3e 03 02 01 00"))  // one report announced, none present
        driver.receive([UInt8](hex: "04 0e 01 01"))  // Command Complete without an opcode
        driver.receive([UInt8](hex: "04"))
        #expect(driver.procedure.malformedEventCount == 4)
        #expect(driver.notes.count == 4)
        driver.receive(F.legacyAdvertisement)
        #expect(driver.discoveries.count == 1)
        #expect(driver.finished == nil)
    }

    @Test("legacy reports: advertisement, then its scan response merged into one picture")
    func legacyReportsMerged() throws {
        var driver = ProcedureDriver()
        driver.startScanning(octet37: 0)
        driver.receive(F.legacyAdvertisement)
        let advertisement = try #require(driver.discoveries.last)
        #expect(advertisement.address == F.sensorAddress)
        #expect(advertisement.address.kind == .random)
        #expect(advertisement.name == nil)
        #expect(advertisement.rssi == -60)
        #expect(advertisement.serviceUUIDs == [SDUProfile.service])
        #expect(advertisement.isConnectable)
        #expect(advertisement.isSDUSensor)
        #expect(advertisement.timestamp == ManualClock.Instant(offset: .milliseconds(40)))

        driver.receive(F.legacyScanResponse)
        let merged = try #require(driver.discoveries.last)
        #expect(merged.address == F.sensorAddress)
        #expect(merged.name == "BC05FC978B7510AB")
        #expect(merged.rssi == -62)
        #expect(merged.serviceUUIDs == [SDUProfile.service])
        #expect(merged.isConnectable)
        #expect(merged.timestamp > advertisement.timestamp)
        #expect(driver.discoveries.count == 2)
    }

    @Test("extended reports: name, UUID, TX power, RSSI; scan response adds manufacturer data")
    func extendedReportsMerged() throws {
        var driver = ProcedureDriver()
        driver.startScanning(octet37: 0x60)
        driver.receive(F.extendedAdvertisement)
        let advertisement = try #require(driver.discoveries.last)
        #expect(advertisement.address == F.bandCizerAddress)
        #expect(advertisement.name == "BandCizer7")
        #expect(advertisement.rssi == -56)
        #expect(advertisement.txPower == 8)
        #expect(advertisement.serviceUUIDs == [BluetoothUUID(0x180F)])
        #expect(advertisement.isConnectable)
        #expect(advertisement.manufacturerData == nil)
        #expect(advertisement.isSDUSensor)

        driver.receive(F.extendedScanResponse)
        let merged = try #require(driver.discoveries.last)
        #expect(merged.name == "BandCizer7")
        #expect(merged.rssi == -58)
        #expect(merged.txPower == nil)
        #expect(merged.manufacturerData == .init(companyID: 0x0059, data: [0xBE, 0xEF]))
        #expect(merged.serviceUUIDs == [BluetoothUUID(0x180F)])
    }

    @Test("fragments of an extended advertisement are joined before parsing")
    func extendedFragments() throws {
        var driver = ProcedureDriver()
        driver.startScanning(octet37: 0x60)
        driver.receive(F.extendedFragment1)
        #expect(driver.discoveries.isEmpty)
        driver.receive(F.extendedFragment2)
        let discovery = try #require(driver.discoveries.last)
        #expect(driver.discoveries.count == 1)
        #expect(discovery.address == BluetoothAddress(string: "C1:02:03:04:05:06", kind: .random))
        #expect(discovery.name == "BC05FC978B7510AB")
        #expect(discovery.rssi == -71)
        #expect(discovery.isSDUSensor)
    }

    @Test("SDU sensors are recognised by name or by service UUID, and nothing else is")
    func sduRecognition() {
        let at = ManualClock.Instant(offset: .zero)
        let address = F.sensorAddress
        #expect(LEDiscovery(address: address, name: "BC05FC978B7510AB", timestamp: at).isSDUSensor)
        #expect(LEDiscovery(address: address, name: "BandCizer12", timestamp: at).isSDUSensor)
        #expect(LEDiscovery(address: address, serviceUUIDs: [SDUProfile.service], timestamp: at).isSDUSensor)
        #expect(!LEDiscovery(address: address, name: "BC05FC978B75", timestamp: at).isSDUSensor)
        #expect(
            !LEDiscovery(address: address, name: "Phone", serviceUUIDs: [.genericAccess], timestamp: at).isSDUSensor)
        #expect(!LEDiscovery(address: address, timestamp: at).isSDUSensor)
    }

    @Test("RSSI and TX power 127 mean not available")
    func unavailableValues() throws {
        var driver = ProcedureDriver()
        driver.startScanning(octet37: 0)
        var report = F.legacyScanResponse
        report[report.count - 1] = 0x7F
        driver.receive(report)
        #expect(try #require(driver.discoveries.last).rssi == nil)
    }

    @Test("a broken AD structure drops only itself: the name before it survives, counted as malformed")
    func tolerantAdvertisingData() throws {
        var driver = ProcedureDriver()
        driver.startScanning(octet37: 0)
        // Name "AB", then a Flags structure with two data bytes (invalid), then a TX power of -4.
        let data: [UInt8] = [0x03, 0x09, 0x41, 0x42, 0x03, 0x01, 0x06, 0x00, 0x02, 0x0A, 0xFC]
        let event = HCILEAdvertisingReportEvent(reports: [
            .init(eventType: 0x03, address: F.sensorAddress, data: data, rssi: -70)
        ])
        var bytes: [UInt8] = [0x04]
        event.encode(into: &bytes)
        driver.receive(bytes)
        let discovery = try #require(driver.discoveries.last)
        #expect(discovery.name == "AB")
        #expect(discovery.txPower == -4)
        #expect(!discovery.isConnectable)
        #expect(driver.procedure.malformedAdvertisingDataCount == 1)
    }

    @Test("remembered advertisers are bounded; the one seen longest ago is forgotten first")
    func boundedMemory() throws {
        var driver = ProcedureDriver(LEScanConfiguration(maximumRememberedAdvertisers: 2))
        driver.startScanning(octet37: 0)
        func advertisement(_ last: UInt8, name: String?) -> [UInt8] {
            let address = BluetoothAddress(octets: [0xC0, 0, 0, 0, 0, last], kind: .random)!
            let data: [UInt8] = name.map { [UInt8($0.utf8.count + 1), 0x09] + Array($0.utf8) } ?? []
            var bytes: [UInt8] = [0x04]
            HCILEAdvertisingReportEvent(reports: [
                .init(eventType: name == nil ? 0x00 : 0x04, address: address, data: data, rssi: -50)
            ]).encode(into: &bytes)
            return bytes
        }
        driver.receive(advertisement(1, name: "one"))
        driver.receive(advertisement(2, name: "two"))
        driver.receive(advertisement(1, name: nil))  // 1 seen again: 2 is now the oldest
        driver.receive(advertisement(3, name: "three"))  // forgets 2
        driver.receive(advertisement(1, name: nil))
        #expect(try #require(driver.discoveries.last).name == "one")
        driver.receive(advertisement(2, name: nil))
        #expect(try #require(driver.discoveries.last).name == nil)
    }
}
