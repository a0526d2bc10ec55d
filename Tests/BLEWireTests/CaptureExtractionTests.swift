// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@Suite("Capture → ATT extraction")
struct CaptureExtractionTests {
    static let exchanges: [CaptureFixtures.ATTExchange] = [
        .init(.hostToController, [UInt8](hex: "12 2600 0100")),  // enable notifications
        .init(.controllerToHost, [0x13]),
        .init(
            .controllerToHost,
            CaptureFixtures.notification(
                handle: 0x25,
                value: CaptureFixtures.sduPayload(counter: 1, samples: [(0, 0, 16384), (100, -100, 16000), (1, 2, 3)]))),
        .init(
            .controllerToHost,
            CaptureFixtures.notification(
                handle: 0x25, value: CaptureFixtures.sduPayload(counter: 2, samples: [(32767, -32768, 0)]))),
    ]

    @Test(
        "a synthetic SDU session yields its ATT PDUs with peer, handle and direction",
        arguments: [BTSnoopDatalink.hciUnencapsulated, .hciUART, .linuxMonitor], [false, true])
    func endToEnd(datalink: BTSnoopDatalink, enhanced: Bool) throws {
        let index: UInt16 = datalink == .linuxMonitor ? 3 : 0
        let bytes = CaptureFixtures.sessionCapture(
            datalink: datalink, exchanges: Self.exchanges, handle: 0x0041, controllerIndex: index, fragmentSize: 10,
            enhanced: enhanced)
        let capture = try BTSnoopCapture(parsing: bytes)
        #expect(capture.stoppedEarly == nil)
        var extractor = CaptureATTExtractor()
        var pdus: [CapturedATTPDU] = []
        for record in capture.records {
            pdus += extractor.push(record)
            // While connected the peer is known.
            if !pdus.isEmpty && pdus.count < Self.exchanges.count {
                #expect(extractor.peer(controllerIndex: index, connectionHandle: 0x41) == CaptureFixtures.sensorAddress)
            }
        }
        #expect(pdus.map(\.pdu) == Self.exchanges.map(\.pdu))
        #expect(pdus.map(\.direction) == Self.exchanges.map(\.direction))
        #expect(pdus.allSatisfy { $0.peer == CaptureFixtures.sensorAddress })
        #expect(pdus.allSatisfy { $0.connectionHandle == 0x41 && $0.controllerIndex == index })
        #expect(pdus.map(\.timestamp) == pdus.map(\.timestamp).sorted())
        #expect(pdus.first!.timestamp > CaptureFixtures.startTimestamp)
        // Disconnection forgot the peer.
        #expect(extractor.peer(controllerIndex: index, connectionHandle: 0x41) == nil)
        let stats = extractor.statistics
        #expect(stats.attPDUs == 4)
        #expect(stats.connections == 1 && stats.disconnections == 1)
        #expect(stats.droppedFragments == 0 && stats.nonATTFrames == 0 && stats.malformedPackets == 0)
        #expect(stats.otherRecords == (datalink == .linuxMonitor ? 3 : 0))
    }

    static func record(_ direction: HCIDirection, _ packet: HCIPacket, index: UInt16 = 0) -> HCIRecord {
        HCIRecord(timestamp: 1, direction: direction, controllerIndex: index, packet: packet)
    }

    @Test("connections are keyed per controller; unknown connections still yield PDUs without a peer")
    func perController() {
        var extractor = CaptureATTExtractor()
        let peer = CaptureFixtures.sensorAddress
        _ = extractor.push(
            Self.record(
                .controllerToHost,
                .event(HCILEConnectionCompleteEvent(connectionHandle: 0x40, peerAddress: peer).packet), index: 1))
        let frame = L2CAPBasicFrame(channelID: 4, payload: [0x1B, 0x25, 0x00, 0x01])
        let acl = frame.fragments(handle: 0x40, fragmentSize: 27, firstBoundary: .firstFlushable)[0]
        let onOne = extractor.push(Self.record(.controllerToHost, .acl(acl), index: 1))
        let onZero = extractor.push(Self.record(.controllerToHost, .acl(acl), index: 0))
        #expect(onOne.map(\.peer) == [peer])
        #expect(onZero.map(\.peer) == [nil])
        #expect(onZero.map(\.pdu) == [[0x1B, 0x25, 0x00, 0x01]])
    }

    @Test("a failed connection complete is not a connection")
    func failedConnection() {
        var extractor = CaptureATTExtractor()
        _ = extractor.push(
            Self.record(
                .controllerToHost,
                .event(
                    HCILEConnectionCompleteEvent(
                        status: .connectionFailedToBeEstablished, connectionHandle: 0x40,
                        peerAddress: CaptureFixtures.sensorAddress
                    ).packet)))
        #expect(extractor.peer(controllerIndex: 0, connectionHandle: 0x40) == nil)
        #expect(extractor.statistics.connections == 0)
    }

    @Test("non-ATT frames, orphan fragments, cut events and frames cut by a disconnection are counted")
    func skipped() {
        var extractor = CaptureATTExtractor()
        let smp = L2CAPBasicFrame(channelID: L2CAPBasicFrame.securityManagerCID, payload: [0x01, 0x03])
        #expect(
            extractor.push(Self.record(.hostToController, .acl(smp.fragments(handle: 0x40, fragmentSize: 27)[0])))
                .isEmpty)
        let orphan = HCIACLDataPacket(handle: 0x40, packetBoundary: .continuation, data: [1, 2])
        #expect(extractor.push(Self.record(.controllerToHost, .acl(orphan))).isEmpty)
        let cut = HCIEventPacket(eventCode: .leMeta, parameters: [0x01, 0x00, 0x40])
        #expect(extractor.push(Self.record(.controllerToHost, .event(cut))).isEmpty)
        let partial = HCIACLDataPacket(
            handle: 0x40, packetBoundary: .firstFlushable, data: [UInt8](hex: "0800 0400 1b"))
        #expect(extractor.push(Self.record(.controllerToHost, .acl(partial))).isEmpty)
        let gone = HCIDisconnectionCompleteEvent(connectionHandle: 0x40, reason: .connectionTimeout)
        #expect(extractor.push(Self.record(.controllerToHost, .event(gone.packet))).isEmpty)
        // The continuation after the disconnection is an orphan now.
        let late = HCIACLDataPacket(handle: 0x40, packetBoundary: .continuation, data: [0x25, 0x00, 1, 2, 3, 4, 5])
        #expect(extractor.push(Self.record(.controllerToHost, .acl(late))).isEmpty)
        let malformed = HCIPacket(type: .acl, bytes: [0x40])
        _ = extractor.push(Self.record(.controllerToHost, malformed))
        let stats = extractor.statistics
        #expect(stats.nonATTFrames == 1)
        #expect(stats.droppedFragments == 3)  // orphan, partial at disconnection, late continuation
        #expect(stats.droppedBytes == 2 + 5 + 7)
        #expect(stats.malformedConnectionEvents == 1)
        #expect(stats.malformedPackets == 1)
        #expect(stats.attPDUs == 0)
        #expect(stats.records == 7)
    }

    @Test("fragments of the two directions on one handle interleave without mixing")
    func directions() {
        var extractor = CaptureATTExtractor()
        let out = L2CAPBasicFrame(channelID: 4, payload: [UInt8](hex: "0a 2500 aabbccdd"))
            .fragments(handle: 0x40, fragmentSize: 4)
        let into = L2CAPBasicFrame(channelID: 4, payload: [UInt8](hex: "0b 01020304 0506"))
            .fragments(handle: 0x40, fragmentSize: 4, firstBoundary: .firstFlushable)
        var pdus: [CapturedATTPDU] = []
        for (a, b) in zip(out, into) {
            pdus += extractor.push(Self.record(.hostToController, .acl(a)))
            pdus += extractor.push(Self.record(.controllerToHost, .acl(b)))
        }
        #expect(pdus.map(\.pdu) == [[UInt8](hex: "0a 2500 aabbccdd"), [UInt8](hex: "0b 01020304 0506")])
        #expect(pdus.map(\.direction) == [.hostToController, .controllerToHost])
    }
}
