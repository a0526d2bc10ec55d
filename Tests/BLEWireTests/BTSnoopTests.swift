// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@Suite("btsnoop captures")
struct BTSnoopTests {
    static let datalinks: [BTSnoopDatalink] = [.hciUnencapsulated, .hciUART, .linuxMonitor]

    static func session(_ datalink: BTSnoopDatalink) -> [HCIRecord] {
        CaptureFixtures.sessionRecords(
            exchanges: [
                .init(.hostToController, [UInt8](hex: "12 2600 0100")),
                .init(.controllerToHost, [0x13]),
                .init(
                    .controllerToHost,
                    CaptureFixtures.notification(handle: 0x25, value: [UInt8](repeating: 1, count: 38))),
            ],
            controllerIndex: datalink == .linuxMonitor ? 1 : 0, fragmentSize: 10,
            monitorPreamble: datalink == .linuxMonitor)
    }

    @Test("the header and one H4 record have the documented layout; the epoch offset maps to Unix 0")
    func layout() throws {
        let record = HCIRecord(
            timestamp: 0, direction: .hostToController,
            packet: .command(HCILESetScanEnableCommand(enable: true).packet))
        let bytes = try BTSnoopWriter.file(datalink: .hciUART, records: [record])
        #expect(
            bytes
                == [UInt8](
                    hex: """
                        6274736e6f6f7000 00000001 000003ea
                        00000006 00000006 00000002 00000000 00dcddb30f2f8000
                        01 0c2002 0100
                        """))
        var reader = try BTSnoopReader(bytes: bytes)
        #expect(try reader.next() == record)
        #expect(try reader.next() == nil)
        #expect(reader.recordCount == 1)
        #expect(BTSnoopRecord.unixMicroseconds(fromBTSnoop: 0x00DC_DDB3_0F2F_8000 + 1_500_000) == 1_500_000)
        #expect(BTSnoopRecord.btsnoopTimestamp(fromUnixMicroseconds: 0) == 0x00DC_DDB3_0F2F_8000)
        #expect(HCIRecord(timestamp: 1_500_000, direction: .hostToController, packet: .sco([])).seconds == 1.5)
    }

    @Test(
        "1001 flags: bit 0 direction, bit 1 command/event",
        arguments: [
            (UInt32(0), HCIPacketType.acl, HCIDirection.hostToController),
            (1, .acl, .controllerToHost), (2, .command, .hostToController), (3, .event, .controllerToHost),
        ])
    func flags1001(flags: UInt32, type: HCIPacketType, direction: HCIDirection) throws {
        let data: [UInt8] =
            switch type {
            case .command: [UInt8](hex: "0c2002 0100")
            case .event: [UInt8](hex: "0e 04 01 0c20 00")
            default: [UInt8](hex: "4000 0500 0100 0400 13")
            }
        let record = try HCIRecord(
            BTSnoopRecord(flags: flags, timestamp: 0x00DC_DDB3_0F2F_8000, data: data), datalink: .hciUnencapsulated)
        #expect(record.packet.type == type)
        #expect(record.direction == direction)
        #expect(record.timestamp == 0)
        #expect(try record.btsnoopRecord(datalink: .hciUnencapsulated).flags == flags)
    }

    @Test("2001 flags: controller index in the high half, monitor opcode in the low half")
    func flags2001() throws {
        let stored = BTSnoopRecord(flags: 0x0002_0005, timestamp: 0, data: [UInt8](hex: "4020 0500 0100 0400 13"))
        let record = try HCIRecord(stored, datalink: .linuxMonitor)
        #expect(record.controllerIndex == 2)
        #expect(record.direction == .controllerToHost)
        guard case .acl(let acl) = record.packet else {
            Issue.record("expected ACL, got \(record.packet)")
            return
        }
        #expect(acl.handle == 0x40)
        let note = try HCIRecord(
            BTSnoopRecord(flags: 12, timestamp: 0, data: Array("hi".utf8)), datalink: .linuxMonitor)
        #expect(note.packet == .monitor(.systemNote, payload: Array("hi".utf8)))
        #expect(BTSnoopMonitorOpcode.userLogging.rawValue == 13 && BTSnoopMonitorOpcode.isoRX.rawValue == 19)
        #expect(BTSnoopMonitorOpcode.aclRX.description == "ACL RX (5)")
    }

    @Test("writing then reading gives back the same records", arguments: datalinks)
    func roundTrip(datalink: BTSnoopDatalink) throws {
        let records = Self.session(datalink)
        let bytes = try BTSnoopWriter.file(datalink: datalink, records: records)
        var reader = try BTSnoopReader(bytes: bytes)
        #expect(reader.datalink == datalink)
        var read: [HCIRecord] = []
        while let record = try reader.next() { read.append(record) }
        #expect(read == records)
        let capture = try BTSnoopCapture(parsing: bytes)
        #expect(capture.records == records && capture.stoppedEarly == nil && !capture.isTruncated)
        // Reading straight out of a buffer pointer (as from a mapped file) gives the same.
        let viaPointer = try bytes.withUnsafeBytes { raw throws -> [HCIRecord] in
            var pointerReader = try BTSnoopReader(bytes: raw)
            var out: [HCIRecord] = []
            while let record = try pointerReader.next() { out.append(record) }
            return out
        }
        #expect(viaPointer == records)
    }

    @Test("a truncated last record yields every whole record, then reports truncation", arguments: datalinks)
    func truncated(datalink: BTSnoopDatalink) throws {
        let records = Self.session(datalink)
        let bytes = try BTSnoopWriter.file(datalink: datalink, records: records)
        for cut in [1, 5, 20, 25] {
            let capture = try BTSnoopCapture(parsing: bytes.dropLast(cut))
            #expect(capture.records == Array(records.dropLast()))
            #expect(capture.isTruncated)
            var reader = try BTSnoopReader(bytes: Array(bytes.dropLast(cut)))
            var count = 0
            #expect(
                wireErrorCode {
                    while try reader.next() != nil { count += 1 }
                } == .truncated)
            #expect(count == records.count - 1)
            #expect(try reader.next() == nil)
        }
        // Only the header: a clean, empty capture.
        #expect(try BTSnoopCapture(parsing: bytes.prefix(16)).records.isEmpty)
    }

    @Test("bad magic, short header, other version and unknown datalink are refused")
    func badHeaders() throws {
        var bytes = try BTSnoopWriter.file(datalink: .hciUART, records: [])
        var badMagic = bytes
        badMagic[0] = 0x42
        #expect(wireErrorCode { _ = try BTSnoopReader(bytes: badMagic) } == .invalidValue)
        #expect(wireErrorCode { _ = try BTSnoopReader(bytes: Array("PK\u{3}\u{4}".utf8)) } == .truncated)
        var version2 = bytes
        version2[11] = 2
        #expect(wireErrorCode { _ = try BTSnoopReader(bytes: version2) } == .unsupported)
        bytes[15] = 0xEB  // 1003, three-wire UART
        #expect(wireErrorCode { _ = try BTSnoopReader(bytes: bytes) } == .unsupported)
        #expect(wireErrorCode { _ = try BTSnoopCapture(parsing: bytes) } == .unsupported)
        #expect(wireErrorCode { _ = try BTSnoopWriter(datalink: BTSnoopDatalink(rawValue: 1003)) } == .unsupported)
        #expect(try BTSnoopFileHeader(parsing: bytes).datalink.rawValue == 1003)
    }

    @Test("a record header that cannot be right stops reading with invalidValue")
    func corruptRecord() throws {
        var bytes = try BTSnoopWriter.file(datalink: .hciUART, records: Self.session(.hciUART).prefix(2).map { $0 })
        // Make the second record claim more included bytes than its original length.
        let second = 16 + 24 + 6
        bytes[second + 7] = 0xFF
        let capture = try BTSnoopCapture(parsing: bytes)
        #expect(capture.records.count == 1)
        #expect(capture.stoppedEarly?.code == .invalidValue)
    }

    @Test("records a datalink cannot carry are refused by the writer")
    func unrepresentable() throws {
        let sco = HCIRecord(timestamp: 0, direction: .hostToController, packet: .sco([0x01, 0x00, 0x00]))
        let note = HCIRecord(timestamp: 0, direction: .controllerToHost, packet: .monitor(.systemNote, payload: []))
        let unknown = HCIRecord(timestamp: 0, direction: .controllerToHost, packet: .unknown(type: 0x09, bytes: [1]))
        let w1001 = try BTSnoopWriter(datalink: .hciUnencapsulated)
        let w1002 = try BTSnoopWriter(datalink: .hciUART)
        let w2001 = try BTSnoopWriter(datalink: .linuxMonitor)
        var sink: [UInt8] = []
        #expect(wireErrorCode { try w1001.encode(sco, into: &sink) } == .unsupported)
        #expect(wireErrorCode { try w1002.encode(note, into: &sink) } == .unsupported)
        #expect(wireErrorCode { try w2001.encode(unknown, into: &sink) } == .unsupported)
        #expect(sink.isEmpty)
        // Each is fine where it fits, and reads back.
        for (writer, record) in [(w1002, sco), (w2001, note), (w1002, unknown), (w2001, sco)] {
            let bytes = try BTSnoopWriter.file(datalink: writer.datalink, records: [record])
            #expect(try BTSnoopCapture(parsing: bytes).records == [record])
        }
    }

    @Test("a packet cut by the capture becomes malformed, not an error")
    func malformedPacket() throws {
        let stored = BTSnoopRecord(originalLength: 20, flags: 1, timestamp: 0, data: [UInt8](hex: "04 3e 13 01 00"))
        let record = try HCIRecord(stored, datalink: .hciUART)
        guard case .malformed(let type, let bytes, let error) = record.packet else {
            Issue.record("expected malformed, got \(record.packet)")
            return
        }
        #expect(type == .event && bytes == [UInt8](hex: "3e 13 01 00") && error.code == .truncated)
        let empty = try HCIRecord(BTSnoopRecord(flags: 0, timestamp: 0, data: []), datalink: .hciUART)
        #expect(empty.packet == .unknown(type: 0, bytes: []))
    }
}
