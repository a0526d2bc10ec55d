// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayConfig
import GatewayCore
import GatewayTesting
import NIOConcurrencyHelpers
import Testing
import VirtualSensor

@testable import sportsensor_dev

@Suite("VirtualSensorFleet with sensors another process emulates")
struct RemoteVirtualSensorFleetTests {
    @Test("each member connects through the remote factory with its alias and emulates nothing itself")
    func remoteMembers() async throws {
        let asked = Log<String>()
        let served = Log<[UInt8]>()
        let fleet = VirtualSensorFleet<ManualClock>.remote(
            configuration: VirtualSensorsConfiguration(count: 3),
            connect: { alias in
                asked.append(alias)
                let (near, far) = LoopbackATTBearer.pair()
                // The far end stands for the benchmark's sensor: it echoes what it is sent.
                Task { [far, served] in
                    for try await pdu in far.receivedPDUs() {
                        served.append(pdu)
                        try await far.send(pdu)
                    }
                }
                return near
            })
        #expect(fleet.members.map(\.alias) == ["virtual-1", "virtual-2", "virtual-3"])
        #expect(fleet.members.allSatisfy { $0.sensor == nil })
        #expect(fleet.members[1].address == VirtualSensorFleet<ManualClock>.address(of: 2))
        let bearer = try await fleet.members[1].connector.connect(to: fleet.members[1].address)
        let echoed = bearer.receivedPDUs()
        try await bearer.send([0x02, 0x05, 0x02])
        #expect(try await echoed.next() == [0x02, 0x05, 0x02])
        #expect(asked.items == ["virtual-2"])
        #expect(served.items == [[0x02, 0x05, 0x02]])
        await bearer.close()
    }

    @Test("the remote fleet has the daemon's aliases, addresses and scripts, each member with no sensor of its own")
    func sameMembersAsTheDaemon() throws {
        let configuration = VirtualSensorsConfiguration(count: 5, scripts: [.tableTennis, .jumps])
        let daemon = try VirtualSensorFleet(configuration: configuration, clock: ManualClock())
        let remote = VirtualSensorFleet<ManualClock>.remote(configuration: configuration) { _ in
            LoopbackATTBearer.pair().0
        }
        #expect(remote.members.map(\.alias) == daemon.members.map(\.alias))
        #expect(remote.members.map(\.address) == daemon.members.map(\.address))
        #expect(remote.members.map(\.script) == daemon.members.map(\.script))
        #expect(daemon.members.allSatisfy { $0.sensor != nil })
        #expect(remote.members.allSatisfy { $0.sensor == nil })
    }
}

/// What a fake was handed, in order.
private final class Log<Item: Sendable>: Sendable {
    private let state = NIOLockedValueBox<[Item]>([])
    func append(_ item: Item) { state.withLockedValue { $0.append(item) } }
    var items: [Item] { state.withLockedValue { $0 } }
}
