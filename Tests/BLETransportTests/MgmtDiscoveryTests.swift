// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import SystemCalls
import SystemPackage
import Testing

@testable import BLETransport

/// The discovery driver against a fake kernel: `socket(2)` is scripted to return one end of a
/// socket pair, and the test plays the kernel's mgmt interface on the other.
@Suite("mgmt discovery on a control socket")
struct MgmtDiscoveryTests {
    typealias F = MgmtFixtures

    private func script(_ kernel: FakeHCIController, extra: [String: [SyscallOutcome]] = [:]) -> SyscallScript {
        var outcomes: [String: [SyscallOutcome]] = [
            "socket": [.returns(Int(kernel.hostDescriptor))], "bind": [.returns(0)],
        ]
        outcomes.merge(extra) { $1 }
        return SyscallScript(outcomes)
    }

    @Test("own discovery: Start Discovery, results, Stop Discovery written before the socket closes")
    func ownDiscovery() async throws {
        let kernel = try FakeHCIController()
        let script = script(kernel)
        let discovery = MgmtDiscovery.discover(adapterIndex: 0)
        let consumer = Task { () -> LEDiscovery<ContinuousClock.Instant>? in
            try await SyscallScript.$current.withValue(script) {
                for try await found in discovery where found.isSDUSensor { return found }
                return nil
            }
        }
        #expect(try await kernel.nextPacket() == F.startDiscovery)
        try kernel.send(F.startAnswer("00"))
        try kernel.send(F.discoveringOn)
        try kernel.send(F.deviceFound)
        let found = try #require(try await consumer.value)
        #expect(found.address == F.sensor && found.name == "BC05FC978B7510AB")
        #expect(try await kernel.nextPacket() == F.stopDiscovery)
        #expect(try await kernel.nextPacket() == nil)
        // The control channel has no event filter to set.
        #expect(Array(script.calls.prefix(2)) == ["socket", "bind"])
        #expect(!script.calls.contains("setsockopt"))
    }

    @Test("another program discovers: its results reported, retried on the clock, nothing stopped")
    func otherProgramDiscovers() async throws {
        let kernel = try FakeHCIController()
        let script = script(kernel)
        let clock = ManualClock()
        let discovery = MgmtDiscovery.discover(adapterIndex: 0, clock: clock)
        let consumer = Task {
            try await SyscallScript.$current.withValue(script) {
                var seen = 0
                for try await _ in discovery {
                    seen += 1
                    if seen == 2 { break }
                }
                return seen
            }
        }
        #expect(try await kernel.nextPacket() == F.startDiscovery)
        try kernel.send(F.startAnswer("0a"))
        try kernel.send(F.deviceFound)
        // The retry waits on the clock for one second; the command timer is gone once answered.
        try await pollUntil { clock.sleeperDeadlines == [ManualClock.Instant(offset: .seconds(1))] }
        clock.advance(by: .seconds(1))
        #expect(try await kernel.nextPacket() == F.startDiscovery)
        try kernel.send(F.startAnswer("0a"))
        try kernel.send(F.deviceFound)
        #expect(try await consumer.value == 2)
        // Busy twice, stopped while waiting: no Stop Discovery for a discovery it does not own.
        #expect(try await kernel.nextPacket() == nil)
    }

    @Test("Start Discovery refused: the error is thrown, the socket closed")
    func refused() async throws {
        let kernel = try FakeHCIController()
        let script = script(kernel)
        let discovery = MgmtDiscovery.discover(adapterIndex: 0)
        let consumer = Task { () -> TransportError? in
            await SyscallScript.$current.withValue(script) {
                do throws(TransportError) {
                    for try await _ in discovery {}
                    return nil
                } catch {
                    return error
                }
            }
        }
        #expect(try await kernel.nextPacket() == F.startDiscovery)
        try kernel.send(F.startAnswer("0f"))
        let error = try #require(await consumer.value)
        #expect(error.code == .adapterDown && error.message.contains("btmgmt --index 0 power on"))
        #expect(try await kernel.nextPacket() == nil)
    }

    @Test("bind EPERM and socket EAFNOSUPPORT fail with the transport's errors")
    func socketErrors() async throws {
        for (outcomes, code) in [
            (["socket": [SyscallOutcome.fails(.addressFamilyNotSupported)]], TransportError.Code.noBluetoothSupport),
            (["socket": [.returns(1000)], "bind": [.fails(.notPermitted)], "close": [.returns(0)]], .permissionDenied),
        ] {
            let script = SyscallScript(outcomes)
            let error = await SyscallScript.$current.withValue(script) { () -> TransportError? in
                do throws(TransportError) {
                    for try await _ in MgmtDiscovery.discover(adapterIndex: 0) {}
                    return nil
                } catch {
                    return error
                }
            }
            #expect(error?.code == code)
        }
    }
}
