// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayConfig
import GatewayCore
import GatewayTesting
import Synchronization
import Testing
import VirtualSensor

@Suite("VirtualSensorFleet with sensors another process emulates")
struct RemoteVirtualSensorFleetTests {
    @Test("each member connects through the remote factory with its alias and emulates nothing itself")
    func remoteMembers() async throws {
        let asked = Log<String>()
        let served = Log<[UInt8]>()
        let fleet = try VirtualSensorFleet(
            configuration: VirtualSensorsConfiguration(count: 3), clock: ManualClock(),
            remote: { alias in
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

    @Test("without the remote factory every member has its in-process sensor")
    func inProcessMembers() throws {
        let fleet = try VirtualSensorFleet(configuration: VirtualSensorsConfiguration(count: 2), clock: ManualClock())
        #expect(fleet.members.allSatisfy { $0.sensor != nil })
    }
}

/// What a fake was handed, in order.
private final class Log<Item: Sendable>: Sendable {
    private let state = Mutex<[Item]>([])
    func append(_ item: Item) { state.withLock { $0.append(item) } }
    var items: [Item] { state.withLock { $0 } }
}
