// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@testable import BLETransport

@Suite("LE link parameter tracker")
struct LELinkParameterTrackerTests {
    let sensor = BluetoothAddress(string: "00:AA:01:01:00:01")!

    func h4(_ event: some HCIEvent) -> [UInt8] {
        var bytes: [UInt8] = [HCIPacketType.event.rawValue]
        event.encode(into: &bytes)
        return bytes
    }

    @Test("a central link's parameters when it comes up and when they change; forgotten after disconnection")
    func centralLink() {
        var tracker = LELinkParameterTracker()
        let complete = HCILEConnectionCompleteEvent(
            connectionHandle: 0x40, role: 0, peerAddress: sensor, connectionInterval: 40, peripheralLatency: 0,
            supervisionTimeout: 42)
        let up = LELinkParameters(intervalUnits: 40, peripheralLatency: 0, supervisionTimeoutUnits: 42)
        #expect(tracker.received(h4(complete)) == .connected(peer: sensor, isCentral: true, up))
        #expect(up.interval == .milliseconds(50) && up.supervisionTimeout == .milliseconds(420))
        #expect(up.eventsPerSecond == 20)
        #expect("\(up)" == "interval 50 ms, latency 0, supervision timeout 420 ms")
        let update = HCILEConnectionUpdateCompleteEvent(
            connectionHandle: 0x40, connectionInterval: 6, peripheralLatency: 0, supervisionTimeout: 42)
        let faster = LELinkParameters(intervalUnits: 6, peripheralLatency: 0, supervisionTimeoutUnits: 42)
        #expect(tracker.received(h4(update)) == .updated(peer: sensor, isCentral: true, faster))
        #expect("\(faster)" == "interval 7.5 ms, latency 0, supervision timeout 420 ms")
        #expect(
            tracker.received(h4(HCIDisconnectionCompleteEvent(connectionHandle: 0x40, reason: .remoteUserTerminated)))
                == nil)
        #expect(tracker.linkCount == 0)
        // An update of a link it never saw come up names no peer: not reported.
        #expect(tracker.received(h4(update)) == nil)
    }

    @Test("a peripheral link, a failed connection, other events and garbage")
    func others() {
        var tracker = LELinkParameterTracker()
        let incoming = HCILEConnectionCompleteEvent(connectionHandle: 0x41, role: 1, peerAddress: sensor)
        guard case .connected(_, let isCentral, _) = tracker.received(h4(incoming)) else {
            Issue.record("the peripheral link was not reported")
            return
        }
        #expect(!isCentral)
        let failed = HCILEConnectionCompleteEvent(
            status: .connectionFailedToBeEstablished, connectionHandle: 0x42, peerAddress: sensor)
        #expect(tracker.received(h4(failed)) == nil)
        #expect(tracker.linkCount == 1)
        #expect(tracker.received([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]) == nil)
        #expect(tracker.received([0x04, 0x3E]) == nil)
        #expect(tracker.received([0x02, 0x40, 0x00]) == nil)
    }
}
