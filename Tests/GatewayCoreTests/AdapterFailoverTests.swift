// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Foundation
import GATTClient
import GatewayConfig
import GatewayCore
import GatewayTesting
import NIOConcurrencyHelpers
import SensorLinks
import SessionStore
import Testing

/// Adapters in front of virtual sensors: each attempt through adapter X reaches the sensor, and
/// powering X off closes every bearer that went through it (as the kernel drops the links of a
/// controller that powers down) and reports X down.
final class PoweredAdapters: Sendable {
    private struct State {
        var listing: [AdapterInfo]
        var bearers: [String: [any ATTBearer]] = [:]
        var sink: AsyncStream<[AdapterInfo]>.Continuation?
    }

    private let fleet: VirtualSensorFleet<ManualClock>
    private let state: NIOLockedValueBox<State>

    init(names: [String], fleet: VirtualSensorFleet<ManualClock>) {
        self.fleet = fleet
        state = NIOLockedValueBox(
            State(listing: names.map { AdapterInfo(name: $0, address: "00:1A:7D:DA:71:1\($0.last!)", up: true) }))
    }

    var support: BluetoothSupport {
        BluetoothSupport(
            adapterChanges: {
                let (stream, sink) = AsyncStream.makeStream(of: [AdapterInfo].self)
                let listing = self.state.withLockedValue { state in
                    state.sink = sink
                    return state.listing
                }
                sink.yield(listing)
                return stream
            },
            makeConnector: { adapter in
                ClosureSensorConnector { address in
                    guard let member = self.fleet.members.first(where: { $0.address.octets == address.octets }) else {
                        throw AdapterPoolError(code: .adapterGone, message: "no such sensor")
                    }
                    let bearer = try await member.connector.connect(to: address)
                    self.state.withLockedValue { $0.bearers[adapter.name, default: []].append(bearer) }
                    return bearer
                }
            },
            scan: { _ in [] },
            linkParameters: { _ in Self.parameters })
    }

    /// What every emulated controller "gave" each link.
    static let parameters = LinkParametersInfo(intervalMs: 48.75, peripheralLatency: 0, supervisionTimeoutMs: 420)

    /// Powers `name` off (or on): its links end, and the gateway hears of the change.
    func power(_ name: String, on: Bool) async {
        let (bearers, listing, sink) = state.withLockedValue { state in
            for index in state.listing.indices where state.listing[index].name == name {
                state.listing[index].up = on
            }
            let bearers = on ? [] : state.bearers.removeValue(forKey: name) ?? []
            return (bearers, state.listing, state.sink)
        }
        for bearer in bearers { await bearer.close() }
        sink?.yield(listing)
    }
}

@Suite("Adapter failover")
struct AdapterFailoverTests {
    @Test(
        "three sensors on two adapters of budget 2: one adapter powered off moves one sensor, the other waits in no-slot until it is back; every session continues with the gap counted"
    )
    func powerOffMovesSensors() async throws {
        let holder = NIOLockedValueBox<PoweredAdapters?>(nil)
        let bench = try GatewayBench(scripts: [], linkBudget: 2) { clock in
            let fleet = try VirtualSensorFleet(
                configuration: VirtualSensorsConfiguration(count: 3, scripts: [.tableTennis], rate: 100), clock: clock)
            let adapters = PoweredAdapters(names: ["hci0", "hci1"], fleet: fleet)
            holder.withLockedValue { $0 = adapters }
            return adapters.support
        }
        let adapters = try #require(holder.withLockedValue { $0 })
        let gateway = bench.gateway
        let running = Task { try await gateway.run() }
        await gateway.waitUntilStarted()
        let addresses = (1...3).map { VirtualSensorFleet<ManualClock>.address(of: $0) }
        for address in addresses { _ = try await gateway.pair(PairRequest(address: "\(address)")) }
        #expect(try await connected(bench, count: 3))
        let placed = try await gateway.status().adapters
        #expect(placed.map(\.linkBudget) == [2, 2])
        #expect(placed.map(\.sensors.count).sorted() == [1, 2])
        var sessions: [String: String] = [:]
        for address in addresses {
            sessions["\(address)"] = try await gateway.startSession(StartSessionRequest(sensor: "\(address)")).id
        }
        try await bench.drive(for: 2)

        let full = try #require(placed.first { $0.sensors.count == 2 })
        let events = try gateway.events()
        let noSlotEvent = Task { () -> LinkPayload? in
            for await event in events {
                if case .link(let link) = event.event, link.state == .noSlot { return link }
            }
            return nil
        }
        await adapters.power(full.name, on: false)
        // One of its two sensors finds the last slot of the other adapter; the other waits.
        var sensors: [SensorInfo] = []
        _ = try await bench.drive(step: 0.25, upTo: 20) {
            sensors = try await gateway.sensors()
            return sensors.filter { $0.linkState == .connected }.count == 2
                && sensors.contains { $0.linkState == .noSlot }
        }
        #expect(sensors.filter { $0.linkState == .connected }.count == 2)
        #expect(sensors.filter { $0.linkState == .noSlot }.count == 1)
        #expect(sensors.filter { $0.linkState == .connected }.allSatisfy { $0.adapter != full.name })
        #expect(
            sensors.filter { $0.linkState == .connected }.allSatisfy {
                $0.linkParameters == PoweredAdapters.parameters
            })
        #expect(sensors.first { $0.linkState == .noSlot }?.linkParameters == nil, "no link, no parameters")
        #expect(sensors.first { $0.linkState == .noSlot }?.adapter == nil)
        let status = try await gateway.status()
        #expect(status.sensorsWaitingForSlot == 1)
        let published = await noSlotEvent.value
        #expect(published?.address == sensors.first { $0.linkState == .noSlot }?.address)
        #expect(published?.detail?.contains("link_budget") == true)
        #expect(status.adapters.first { $0.name == full.name }?.up == false)

        await adapters.power(full.name, on: true)
        #expect(try await connected(bench, count: 3), "the waiting sensor connects once the adapter is back")
        try await bench.drive(for: 2)
        #expect(try await gateway.status().sensorsWaitingForSlot == 0)
        for address in addresses {
            let live = try await gateway.sensors().first { $0.address == "\(address)" }?.liveSessionId
            #expect(live == sessions["\(address)"], "the session of \(address) continued")
        }
        var moved = 0
        for (address, id) in sessions {
            let stopped = try await gateway.stopSession(id: id)
            let uuid = try #require(UUID(uuidString: id))
            let samples = try await bench.store.samples(of: uuid)
            let gaps = zip(samples, samples.dropFirst()).map { $1.index - $0.index - 1 }
            #expect(gaps.allSatisfy { $0 >= 0 }, "\(address): no sample twice, none out of order")
            #expect(gaps.reduce(0, +) == stopped.lostSamples, "\(address): every missing index is counted as lost")
            if stopped.lostSamples > 0 { moved += 1 }
        }
        #expect(moved == 2, "the two sensors of the adapter that went lost samples while they moved")
        running.cancel()
        try await running.value
    }

    private func connected(_ bench: GatewayBench, count: Int) async throws -> Bool {
        try await bench.drive(step: 0.25, upTo: 30) {
            try await bench.gateway.sensors().filter { $0.linkState == .connected }.count == count
        }
    }
}
