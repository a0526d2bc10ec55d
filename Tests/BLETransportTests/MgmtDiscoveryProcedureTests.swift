// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@testable import BLETransport

/// mgmt fixtures for hci0, as the kernel writes them.
enum MgmtFixtures {
    static let startDiscovery = [UInt8](hex: "2300 0000 0100 06")
    static let stopDiscovery = [UInt8](hex: "2400 0000 0100 06")
    static func startAnswer(_ status: String, index: String = "0000") -> [UInt8] {
        [UInt8](hex: "0100 \(index) 0400 2300 \(status) 06")
    }
    static let discoveringOn = [UInt8](hex: "1300 0000 0200 06 01")
    static let discoveringOff = [UInt8](hex: "1300 0000 0200 06 00")
    static let sensor = BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random)!
    /// The sensor at -58 dBm: advertisement (flags, SDU service) and scan response (name) merged.
    static let deviceFound = [UInt8](
        hex: """
            1200 0000 3500
            ab10758b97fc 02 c6 00000000 2700
            020106 1107 1bc5d5a50200 48b1 e311 318f 1000c7a2
            1109 42433035464339373842373531304142
            """)
    /// The same device on hci1.
    static let deviceFoundOnHci1 = [UInt8](hex: "1200 0100") + deviceFound.dropFirst(4)
    /// A BR/EDR device found by an interleaved discovery.
    static let classicFound = [UInt8](hex: "1200 0000 1100 112233445566 00 c0 01000000 0300 020a00")
}

@Suite("mgmt discovery procedure")
struct MgmtDiscoveryProcedureTests {
    typealias Procedure = MgmtDiscoveryProcedure<ManualClock.Instant>
    typealias F = MgmtFixtures
    let at = ManualClock.Instant(offset: .seconds(1))

    func sent(_ actions: [Procedure.Action]) -> [[UInt8]] {
        actions.compactMap { if case .send(let packet) = $0 { packet.bytes } else { nil } }
    }

    @Test("start, success, Device Found as the scanner's discoveries, stop sends Stop Discovery")
    func ownDiscovery() throws {
        var procedure = Procedure(adapterIndex: 0)
        #expect(sent(procedure.start()) == [F.startDiscovery])
        #expect(procedure.isAwaitingReply)
        #expect(procedure.received(F.startAnswer("00"), at: at) == [.started])
        #expect(procedure.phase == .discovering && !procedure.isAwaitingReply)
        #expect(procedure.received(F.discoveringOn, at: at).isEmpty)
        let actions = procedure.received(F.deviceFound, at: at)
        guard case .discovered(let discovery) = try #require(actions.first) else {
            Issue.record("expected a discovery, got \(actions)")
            return
        }
        #expect(discovery.address == F.sensor && discovery.address.kind == .random)
        #expect(discovery.name == "BC05FC978B7510AB" && discovery.rssi == -58)
        #expect(discovery.isConnectable && discovery.isSDUSensor && discovery.timestamp == at)
        // Other adapters' devices and BR/EDR devices are not this discovery's.
        #expect(procedure.received(F.deviceFoundOnHci1, at: at).isEmpty)
        #expect(procedure.received(F.classicFound, at: at).isEmpty)
        #expect(procedure.stop() == [.send(try MgmtCommandPacket(parsing: F.stopDiscovery)), .finish(nil)])
        #expect(procedure.phase == .finished)
        #expect(procedure.received(F.deviceFound, at: at).isEmpty)
        #expect(procedure.stop().isEmpty)
    }

    @Test("Busy: said once with the fix, others' results reported, retried with doubling delays, never stopped")
    func otherProgramDiscovers() throws {
        var procedure = Procedure(adapterIndex: 0)
        _ = procedure.start()
        let busy = procedure.received(F.startAnswer("0a"), at: at)
        try #require(busy.count == 2)
        guard case .otherDiscoveryActive(let error) = busy[0] else {
            Issue.record("expected the busy report, got \(busy)")
            return
        }
        #expect(error.code == .adapterBusy)
        #expect(error.message.contains("another program is discovering on hci0"))
        #expect(error.message.contains("bluetoothctl scan off"))
        #expect(busy[1] == .scheduleRetry(.seconds(1)))
        #expect(procedure.phase == .waiting)
        // bluetoothd's discovery results reach every trusted mgmt socket: reported.
        #expect(procedure.received(F.deviceFound, at: at).count == 1)
        #expect(sent(procedure.retryTimerFired()) == [F.startDiscovery])
        #expect(procedure.received(F.startAnswer("0a"), at: at) == [.scheduleRetry(.seconds(2))])
        _ = procedure.retryTimerFired()
        #expect(procedure.received(F.startAnswer("0a"), at: at) == [.scheduleRetry(.seconds(4))])
        // Stopping while the other program discovers sends nothing: its discovery is not ours.
        #expect(procedure.stop() == [.finish(nil)])
    }

    @Test("the other program's discovery ends: take over at once; busy delay capped at the maximum")
    func takeOver() {
        let configuration = MgmtDiscoveryConfiguration(busyRetryInitial: .seconds(1), busyRetryMaximum: .seconds(3))
        #expect(configuration.busyRetryDelay(afterBusyAnswers: 1) == .seconds(1))
        #expect(configuration.busyRetryDelay(afterBusyAnswers: 2) == .seconds(2))
        #expect(configuration.busyRetryDelay(afterBusyAnswers: 3) == .seconds(3))
        #expect(configuration.busyRetryDelay(afterBusyAnswers: 99) == .seconds(3))
        var procedure = Procedure(adapterIndex: 0, configuration: configuration)
        _ = procedure.start()
        _ = procedure.received(F.startAnswer("0a"), at: at)
        #expect(sent(procedure.received(F.discoveringOff, at: at)) == [F.startDiscovery])
        #expect(procedure.received(F.startAnswer("00"), at: at) == [.started])
        #expect(procedure.busyAnswers == 0)
        // A late retry timer changes nothing once discovering.
        #expect(procedure.retryTimerFired().isEmpty)
    }

    @Test("the kernel ends the gateway's discovery: started again after the restart delay")
    func kernelEndsDiscovery() {
        var procedure = Procedure(adapterIndex: 0)
        _ = procedure.start()
        _ = procedure.received(F.startAnswer("00"), at: at)
        #expect(procedure.received(F.discoveringOff, at: at) == [.scheduleRetry(.seconds(1))])
        #expect(procedure.phase == .waiting)
        #expect(sent(procedure.retryTimerFired()) == [F.startDiscovery])
        #expect(procedure.received(F.startAnswer("00"), at: at) == [.started])
    }

    @Test("stop before Start Discovery is answered: waits, then stops what it started")
    func stopWhileStarting() throws {
        var procedure = Procedure(adapterIndex: 0)
        _ = procedure.start()
        #expect(procedure.stop().isEmpty)
        #expect(procedure.phase == .stoppingAfterStart && procedure.isAwaitingReply)
        #expect(
            procedure.received(F.startAnswer("00"), at: at)
                == [.send(try MgmtCommandPacket(parsing: F.stopDiscovery)), .finish(nil)])
        var refused = Procedure(adapterIndex: 0)
        _ = refused.start()
        _ = refused.stop()
        #expect(refused.received(F.startAnswer("0a"), at: at) == [.finish(nil)])
        var unanswered = Procedure(adapterIndex: 0)
        _ = unanswered.start()
        _ = unanswered.stop()
        #expect(unanswered.commandTimedOut() == [.finish(nil)])
    }

    @Test(
        "refusals end the discovery with the fix",
        arguments: [
            ("0f", TransportError.Code.adapterDown, "power on"),
            ("12", TransportError.Code.adapterDown, "rfkill unblock"),
            ("11", TransportError.Code.noSuchAdapter, "btmgmt info"),
            ("14", TransportError.Code.permissionDenied, "CAP_NET_ADMIN"),
            ("0c", TransportError.Code.adapterNotSupported, "4.0+"),
            ("03", TransportError.Code.system, "Failed (0x03)"),
        ])
    func refusals(status: String, code: TransportError.Code, fix: String) throws {
        var procedure = Procedure(adapterIndex: 0)
        _ = procedure.start()
        let actions = procedure.received(F.startAnswer(status), at: at)
        guard case .finish(let error?) = try #require(actions.last) else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == code)
        #expect(error.message.contains(fix))
        #expect(!actions.contains { if case .send = $0 { true } else { false } })
    }

    @Test("Command Status for an unknown index, another controller's answer, a timeout, index removed")
    func otherEndings() throws {
        var procedure = Procedure(adapterIndex: 0)
        _ = procedure.start()
        #expect(procedure.received(F.startAnswer("0a", index: "0100"), at: at).isEmpty)
        let status = procedure.received([UInt8](hex: "0200 0000 0300 2300 11"), at: at)
        guard case .finish(let error?) = status.last else {
            Issue.record("expected a failure, got \(status)")
            return
        }
        #expect(error.code == .noSuchAdapter)

        var silent = Procedure(adapterIndex: 0)
        _ = silent.start()
        guard case .finish(let timeout?) = silent.commandTimedOut().last else {
            Issue.record("expected a timeout")
            return
        }
        #expect(timeout.code == .controllerNotResponding && timeout.message.contains("dmesg"))

        var removed = Procedure(adapterIndex: 0)
        _ = removed.start()
        _ = removed.received(F.startAnswer("00"), at: at)
        guard case .finish(let gone?) = removed.received([UInt8](hex: "0500 0000 0000"), at: at).last else {
            Issue.record("expected the adapter to be gone")
            return
        }
        #expect(gone.code == .noSuchAdapter && gone.message.contains("hci0 was removed"))
    }

    @Test("malformed events are counted and noted; a bad configuration fails at start")
    func malformed() {
        var procedure = Procedure(adapterIndex: 0)
        _ = procedure.start()
        #expect(procedure.received([0x12, 0x00], at: at).count == 1)
        #expect(procedure.malformedEventCount == 1)
        var bad = Procedure(adapterIndex: 0, configuration: MgmtDiscoveryConfiguration(addressTypes: .bredr))
        guard case .finish(let error?) = bad.start().last else {
            Issue.record("expected a configuration error")
            return
        }
        #expect(error.code == .invalidConfiguration && error.message.contains(".le"))
    }
}
