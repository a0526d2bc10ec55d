// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GatewayTesting
import Testing

@Suite("HCI events")
struct HCIEventTests {
    static let sensor = BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random)!
    static let service = BluetoothUUID(string: "A2C70010-8F31-11E3-B148-0002A5D5C51B")!

    /// An advertising report with the sensor's ADV_IND (flags, service) and its SCAN_RSP (name).
    static let advertisingReport = [UInt8](
        hex: """
            3e 3d 02 02
            00 01 ab10758b97fc 15 020106 1107 1bc5d5a50200 48b1 e311 318f 1000c7a2 c6
            04 01 ab10758b97fc 12 1109 42433035464339373842373531304142 c5
            """)

    @Test("LE Advertising Report: two reports carrying the SDU service and name")
    func advertisingReport() throws {
        let event = try HCILEAdvertisingReportEvent(parsing: Self.advertisingReport)
        try #require(event.reports.count == 2)
        let adv = event.reports[0]
        #expect(adv.eventType == 0x00)
        #expect(adv.address == Self.sensor)
        #expect(adv.address.kind == .random)
        #expect(adv.rssi == -58)
        #expect(try adv.advertisingData().serviceUUIDs == [Self.service])
        let response = event.reports[1]
        #expect(response.isScanResponse)
        #expect(response.rssi == -59)
        #expect(try response.advertisingData().localName == "BC05FC978B7510AB")
        var out: [UInt8] = []
        event.encode(into: &out)
        #expect(out == Self.advertisingReport)
        // The generic forms agree.
        let meta = try HCILEMetaEvent(parsing: Self.advertisingReport)
        #expect(meta.subeventCode == 0x02)
        #expect(try HCILEAdvertisingReportEvent(meta) == event)
    }

    @Test("LE Advertising Report: truncated, wrong length, wrong event and wrong subevent")
    func advertisingReportErrors() {
        let good = Self.advertisingReport
        // Cut inside the second report, with the event length fixed up to match.
        var cut = Array(good.prefix(40))
        cut[1] = UInt8(cut.count - 2)
        #expect(wireErrorCode { _ = try HCILEAdvertisingReportEvent(parsing: cut) } == .truncated)
        // The event length byte disagrees with the bytes present.
        #expect(wireErrorCode { _ = try HCILEAdvertisingReportEvent(parsing: good.dropLast()) } == .truncated)
        #expect(wireErrorCode { _ = try HCILEAdvertisingReportEvent(parsing: good + [0]) } == .wrongLength)
        // A report count of 1 leaves the second report as trailing bytes.
        var oneReport = good
        oneReport[3] = 1
        #expect(wireErrorCode { _ = try HCILEAdvertisingReportEvent(parsing: oneReport) } == .wrongLength)
        var otherEvent = good
        otherEvent[0] = 0x0E
        #expect(wireErrorCode { _ = try HCILEAdvertisingReportEvent(parsing: otherEvent) } == .wrongOpcode)
        var otherSubevent = good
        otherSubevent[2] = 0x0D
        #expect(wireErrorCode { _ = try HCILEAdvertisingReportEvent(parsing: otherSubevent) } == .wrongOpcode)
        #expect(wireErrorCode { _ = try HCILEAdvertisingReportEvent(parsing: [0x3E, 0x00]) } == .truncated)
    }

    static let extendedReport = [UInt8](
        hex: """
            3e 2f 0d 01
            1300 01 ab10758b97fc 01 00 ff 7f c6 0000 00 000000000000
            15 020106 1107 1bc5d5a50200 48b1 e311 318f 1000c7a2
            """)

    @Test("LE Extended Advertising Report: a legacy connectable advertisement")
    func extendedReport() throws {
        let event = try HCILEExtendedAdvertisingReportEvent(parsing: Self.extendedReport)
        try #require(event.reports.count == 1)
        let report = event.reports[0]
        #expect(report.isLegacy && report.isConnectable && !report.isScanResponse)
        #expect(report.dataStatus == 0)
        #expect(report.address == Self.sensor)
        #expect(report.primaryPHY == 1 && report.secondaryPHY == 0)
        #expect(report.advertisingSID == 0xFF)
        #expect(report.txPower == 127)
        #expect(report.rssi == -58)
        #expect(try report.advertisingData().serviceUUIDs == [Self.service])
        var out: [UInt8] = []
        event.encode(into: &out)
        #expect(out == Self.extendedReport)
        var cut = Array(Self.extendedReport.prefix(30))
        cut[1] = UInt8(cut.count - 2)
        #expect(wireErrorCode { _ = try HCILEExtendedAdvertisingReportEvent(parsing: cut) } == .truncated)
        #expect(
            wireErrorCode { _ = try HCILEExtendedAdvertisingReportEvent(parsing: Self.advertisingReport) }
                == .wrongOpcode)
    }

    static let connectionComplete = [UInt8](hex: "3e 13 01 00 4000 00 01 ab10758b97fc 1800 0000 4800 00")

    @Test("LE Connection Complete")
    func connectionComplete() throws {
        let event = try HCILEConnectionCompleteEvent(parsing: Self.connectionComplete)
        #expect(event.status == .success)
        #expect(event.connectionHandle == 0x0040)
        #expect(event.role == 0)
        #expect(event.peerAddress == Self.sensor)
        #expect(event.connectionInterval == 24)
        #expect(event.supervisionTimeout == 72)
        var out: [UInt8] = []
        event.encode(into: &out)
        #expect(out == Self.connectionComplete)
        #expect(
            wireErrorCode { _ = try HCILEConnectionCompleteEvent(parsing: Self.connectionComplete.dropLast()) }
                == .truncated)
        var short = Array(Self.connectionComplete.dropLast())
        short[1] -= 1
        #expect(wireErrorCode { _ = try HCILEConnectionCompleteEvent(parsing: short) } == .truncated)
        var long = Self.connectionComplete + [0]
        long[1] += 1
        #expect(wireErrorCode { _ = try HCILEConnectionCompleteEvent(parsing: long) } == .wrongLength)
        var enhanced = Self.connectionComplete
        enhanced[2] = 0x0A
        #expect(wireErrorCode { _ = try HCILEConnectionCompleteEvent(parsing: enhanced) } == .wrongOpcode)
    }

    static let enhancedV1 = [UInt8](
        hex: "3e 1f 0a 00 4100 01 03 ab10758b97fc 000000000000 112233445566 1800 0000 4800 01")
    static let enhancedV2 = [UInt8](
        hex: "3e 22 29 00 4100 01 03 ab10758b97fc 000000000000 112233445566 1800 0000 4800 01 ff ffff")

    @Test("LE Enhanced Connection Complete v1 and v2")
    func enhanced() throws {
        let v1 = try HCILEEnhancedConnectionCompleteEvent(parsing: Self.enhancedV1)
        #expect(v1.connectionHandle == 0x0041)
        #expect(v1.role == 1)
        #expect(v1.peerAddressType == 0x03)
        #expect(v1.peerAddress == Self.sensor)
        #expect(v1.peerResolvablePrivateAddress == [0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        #expect(!v1.isV2 && v1.advertisingHandle == nil)
        var out: [UInt8] = []
        v1.encode(into: &out)
        #expect(out == Self.enhancedV1)

        let v2 = try HCILEEnhancedConnectionCompleteEvent(parsing: Self.enhancedV2)
        #expect(v2.isV2)
        #expect(v2.advertisingHandle == 0xFF && v2.syncHandle == 0xFFFF)
        out = []
        v2.encode(into: &out)
        #expect(out == Self.enhancedV2)

        // A v1 body under the v2 code is short; a v2 body under the v1 code is long.
        var v1AsV2 = Self.enhancedV1
        v1AsV2[2] = 0x29
        #expect(wireErrorCode { _ = try HCILEEnhancedConnectionCompleteEvent(parsing: v1AsV2) } == .truncated)
        var v2AsV1 = Self.enhancedV2
        v2AsV1[2] = 0x0A
        #expect(wireErrorCode { _ = try HCILEEnhancedConnectionCompleteEvent(parsing: v2AsV1) } == .wrongLength)
        #expect(
            wireErrorCode { _ = try HCILEEnhancedConnectionCompleteEvent(parsing: Self.connectionComplete) }
                == .wrongOpcode)
    }

    @Test("Disconnection Complete")
    func disconnection() throws {
        let bytes = [UInt8](hex: "05 04 00 4000 13")
        let event = try HCIDisconnectionCompleteEvent(parsing: bytes)
        #expect(event == HCIDisconnectionCompleteEvent(connectionHandle: 0x40, reason: .remoteUserTerminated))
        #expect(event.reason.description == "Remote User Terminated Connection (0x13)")
        var out: [UInt8] = []
        event.encode(into: &out)
        #expect(out == bytes)
        #expect(
            wireErrorCode { _ = try HCIDisconnectionCompleteEvent(parsing: [UInt8](hex: "05 03 00 4000")) }
                == .truncated)
        #expect(
            wireErrorCode { _ = try HCIDisconnectionCompleteEvent(parsing: [UInt8](hex: "05 05 00 4000 13 00")) }
                == .wrongLength)
        #expect(
            wireErrorCode { _ = try HCIDisconnectionCompleteEvent(parsing: [UInt8](hex: "0f 04 00 4000 13")) }
                == .wrongOpcode)
    }

    @Test("Command Complete and Command Status")
    func commandCompleteAndStatus() throws {
        let complete = try HCICommandCompleteEvent(parsing: [UInt8](hex: "0e 04 01 0c20 00"))
        #expect(complete.numberOfCommandPackets == 1)
        #expect(complete.opcode == .leSetScanEnable)
        #expect(complete.status == .success)
        var out: [UInt8] = []
        complete.encode(into: &out)
        #expect(out == [UInt8](hex: "0e 04 01 0c20 00"))
        #expect(wireErrorCode { _ = try HCICommandCompleteEvent(parsing: [UInt8](hex: "0e 02 01 0c")) } == .truncated)
        #expect(
            wireErrorCode { _ = try HCICommandCompleteEvent(parsing: [UInt8](hex: "0f 04 01 0c20 00")) } == .wrongOpcode
        )

        let status = try HCICommandStatusEvent(parsing: [UInt8](hex: "0f 04 0c 01 0d20"))
        #expect(status.status == .commandDisallowed)
        #expect(status.opcode == .leCreateConnection)
        out = []
        status.encode(into: &out)
        #expect(out == [UInt8](hex: "0f 04 0c 01 0d20"))
        #expect(wireErrorCode { _ = try HCICommandStatusEvent(parsing: [UInt8](hex: "0f 03 0c 01 0d")) } == .truncated)
        #expect(
            wireErrorCode { _ = try HCICommandStatusEvent(parsing: [UInt8](hex: "0f 05 0c 01 0d20 00")) }
                == .wrongLength)
        #expect(
            wireErrorCode { _ = try HCICommandStatusEvent(parsing: [UInt8](hex: "0e 04 0c 01 0d20")) } == .wrongOpcode)
    }

    @Test("generic event packets: the length byte must match")
    func genericEvent() throws {
        let event = try HCIEventPacket(parsing: [UInt8](hex: "13 05 01 4000 0100"))
        #expect(event.eventCode == .numberOfCompletedPackets)
        #expect(event.parameters == [0x01, 0x40, 0x00, 0x01, 0x00])
        #expect(wireErrorCode { _ = try HCIEventPacket(parsing: [UInt8](hex: "13 05 01")) } == .truncated)
        #expect(wireErrorCode { _ = try HCIEventPacket(parsing: [UInt8](hex: "13 00 01")) } == .wrongLength)
        #expect(wireErrorCode { _ = try HCIEventPacket(parsing: []) } == .truncated)
    }

    @Test("error codes have names for the common ones")
    func errorCodes() {
        #expect(HCIErrorCode.commandDisallowed.rawValue == 0x0C)
        #expect(HCIErrorCode.connectionTimeout.rawValue == 0x08)
        #expect(HCIErrorCode.remoteUserTerminated.rawValue == 0x13)
        #expect(HCIErrorCode.localHostTerminated.rawValue == 0x16)
        #expect(HCIErrorCode.connectionFailedToBeEstablished.rawValue == 0x3E)
        #expect(HCIErrorCode.connectionLimitExceeded.rawValue == 0x09)
        #expect(HCIErrorCode.memoryCapacityExceeded.rawValue == 0x07)
        #expect(HCIErrorCode.connectionTimeout.description == "Connection Timeout (0x08)")
        #expect(HCIErrorCode(rawValue: 0x99).description == "HCI error (0x99)")
    }
}

@Suite("HCI commands")
struct HCICommandTests {
    @Test(
        "scanner commands encode to the spec's bytes and parse back",
        arguments: [
            (HCILESetScanParametersCommand().packet, "0b2007 01 a000 a000 00 00"),
            (HCILESetScanEnableCommand(enable: true).packet, "0c2002 01 00"),
            (HCILESetScanEnableCommand(enable: false, filterDuplicates: true).packet, "0c2002 00 01"),
            (HCILESetExtendedScanParametersCommand().packet, "412008 00 00 01 01 a000 a000"),
            (HCILESetExtendedScanParametersCommand(phy: .leCoded, scanType: 0).packet, "412008 00 00 04 00 a000 a000"),
            (HCILESetExtendedScanEnableCommand(enable: true).packet, "422006 01 00 0000 0000"),
            (HCIReadLocalSupportedCommands().packet, "021000"),
        ])
    func encode(packet: HCICommandPacket, hex: String) throws {
        var out: [UInt8] = []
        packet.encode(into: &out)
        #expect(out == [UInt8](hex: hex))
        #expect(try HCICommandPacket(parsing: out) == packet)
    }

    @Test("typed commands parse their own bytes and reject others")
    func parse() throws {
        let params = try HCILESetScanParametersCommand(parsing: [UInt8](hex: "0b2007 00 1000 0800 01 00"))
        #expect(params.scanType == 0 && params.interval == 0x10 && params.window == 0x08 && params.ownAddressType == 1)
        #expect(
            try HCILESetScanEnableCommand(parsing: [UInt8](hex: "0c2002 01 00"))
                == HCILESetScanEnableCommand(enable: true))
        let ext = try HCILESetExtendedScanParametersCommand(parsing: [UInt8](hex: "412008 01 00 01 01 6000 3000"))
        #expect(ext.ownAddressType == 1 && ext.phy == .le1M && ext.interval == 0x60 && ext.window == 0x30)
        let enable = try HCILESetExtendedScanEnableCommand(parsing: [UInt8](hex: "422006 01 01 e803 0000"))
        #expect(enable.enable && enable.filterDuplicates == 1 && enable.duration == 1000)
        #expect(try HCIReadLocalSupportedCommands(parsing: [UInt8](hex: "021000")) == HCIReadLocalSupportedCommands())

        #expect(
            wireErrorCode { _ = try HCILESetScanParametersCommand(parsing: [UInt8](hex: "0b2006 00 1000 0800 01")) }
                == .truncated)
        #expect(
            wireErrorCode { _ = try HCILESetScanEnableCommand(parsing: [UInt8](hex: "0c2003 01 00 00")) }
                == .wrongLength)
        #expect(
            wireErrorCode { _ = try HCILESetScanEnableCommand(parsing: [UInt8](hex: "0c2002 02 00")) } == .invalidValue)
        #expect(
            wireErrorCode { _ = try HCILESetScanEnableCommand(parsing: [UInt8](hex: "0b2002 01 00")) } == .wrongOpcode)
        #expect(
            wireErrorCode {
                _ = try HCILESetExtendedScanParametersCommand(
                    parsing: [UInt8](hex: "41200d 00 00 05 01 a000 a000 01 a000 a000"))
            } == .unsupported)
        #expect(
            wireErrorCode { _ = try HCIReadLocalSupportedCommands(parsing: [UInt8](hex: "021001 00")) } == .wrongLength)
        #expect(wireErrorCode { _ = try HCICommandPacket(parsing: [UInt8](hex: "0c2002 01")) } == .truncated)
    }

    @Test("opcodes split into OGF and OCF")
    func opcodes() {
        #expect(HCIOpcode.leSetExtendedScanParameters.ogf == 0x08)
        #expect(HCIOpcode.leSetExtendedScanParameters.ocf == 0x41)
        #expect(HCIOpcode(ogf: 0x04, ocf: 0x02) == .readLocalSupportedCommands)
        #expect(HCIOpcode.leSetScanEnable.description == "0x200C")
    }

    @Test("Read Local Supported Commands: the extended-scan bits are octet 37 bits 5 and 6")
    func supportedCommands() throws {
        var octets = [UInt8](repeating: 0, count: 64)
        octets[37] = 0x60
        let event = HCICommandCompleteEvent(opcode: .readLocalSupportedCommands, returnParameters: [0x00] + octets)
        var bytes: [UInt8] = []
        event.encode(into: &bytes)
        #expect(bytes.prefix(6) == [0x0E, 0x44, 0x01, 0x02, 0x10, 0x00])
        let parsed = try HCISupportedCommands(try HCICommandCompleteEvent(parsing: bytes))
        #expect(parsed.status == .success)
        #expect(parsed.supportsLESetExtendedScanParameters)
        #expect(parsed.supportsLESetExtendedScanEnable)
        #expect(parsed.supportsExtendedScanning)
        #expect(parsed.supports(octet: 37, bit: 5) && !parsed.supports(octet: 37, bit: 4))
        #expect(
            !parsed.supports(octet: 64, bit: 0) && !parsed.supports(octet: -1, bit: 0)
                && !parsed.supports(octet: 0, bit: 8))

        var onlyParameters = HCISupportedCommands(octets: [])
        onlyParameters.set(octet: 37, bit: 5)
        #expect(onlyParameters.supportsLESetExtendedScanParameters && !onlyParameters.supportsExtendedScanning)
        var encoded: [UInt8] = []
        onlyParameters.encode(into: &encoded)
        #expect(encoded.count == 65 && encoded[38] == 0x20)

        #expect(wireErrorCode { _ = try HCISupportedCommands(parsing: [0x00] + octets.prefix(63)) } == .truncated)
        #expect(wireErrorCode { _ = try HCISupportedCommands(parsing: [0x00] + octets + [0]) } == .wrongLength)
        let other = HCICommandCompleteEvent(opcode: .leSetScanEnable, returnParameters: [0x00] + octets)
        #expect(wireErrorCode { _ = try HCISupportedCommands(other) } == .wrongOpcode)
        let refused = try HCISupportedCommands(parsing: [0x0C])
        #expect(refused.status == .commandDisallowed && !refused.supportsExtendedScanning)
    }
}

@Suite("HCI advertising commands")
struct HCIAdvertisingCommandTests {
    /// Flags 0x06, then the complete name "BC05".
    static let advertisingHex = "020106 05 09 42433035"
    static let paddedTail = String(repeating: "00", count: 31 - 9)

    /// Each command beside its bytes (typed up front: as an inline literal the type checker took 14 s).
    static let commands: [(HCICommandPacket, String)] = [
        (HCILESetAdvertisingParametersCommand().packet, "06200f a000 a000 00 00 00 000000000000 07 00"),
        (
            HCILESetAdvertisingParametersCommand(
                intervalMin: 0x0020, intervalMax: 0x0040, advertisingType: .nonConnectableUndirected,
                ownAddressType: 1, peerAddress: BluetoothAddress(string: "C0:11:22:33:44:55", kind: .random)!,
                channelMap: 0x01, filterPolicy: 0x03
            ).packet,
            "06200f 2000 4000 03 01 01 554433 2211c0 01 03"
        ),
        (
            HCILESetAdvertisingDataCommand(data: [UInt8](hex: advertisingHex)).packet,
            "082020 09 " + advertisingHex + paddedTail
        ),
        (
            HCILESetScanResponseDataCommand(data: [UInt8](hex: advertisingHex)).packet,
            "092020 09 " + advertisingHex + paddedTail
        ),
        (HCILESetScanResponseDataCommand(data: []).packet, "092020 00 " + String(repeating: "00", count: 31)),
        (HCILESetAdvertisingEnableCommand(enable: true).packet, "0a2001 01"),
        (HCILESetAdvertisingEnableCommand(enable: false).packet, "0a2001 00"),
        (HCIDisconnectCommand(connectionHandle: 0x0042).packet, "060403 4200 13"),
        (HCIDisconnectCommand(connectionHandle: 0x0EFF, reason: .localHostTerminated).packet, "060403 ff0e 16"),
    ]

    @Test("advertising commands encode to the spec's bytes and parse back", arguments: commands)
    func encode(packet: HCICommandPacket, hex: String) throws {
        var out: [UInt8] = []
        packet.encode(into: &out)
        #expect(out == [UInt8](hex: hex))
        #expect(try HCICommandPacket(parsing: out) == packet)
    }

    @Test("typed advertising commands parse their own bytes")
    func parse() throws {
        let parameters = try HCILESetAdvertisingParametersCommand(
            parsing: [UInt8](hex: "06200f 2000 4000 01 00 01 554433 2211c0 07 00"))
        #expect(parameters.intervalMin == 0x20 && parameters.intervalMax == 0x40)
        #expect(parameters.advertisingType == .connectableDirectedHighDuty)
        #expect(parameters.peerAddress == BluetoothAddress(string: "C0:11:22:33:44:55", kind: .random))
        #expect(parameters.channelMap == 0x07 && parameters.filterPolicy == 0)

        let data = try HCILESetAdvertisingDataCommand(
            parsing: [UInt8](hex: "082020 09 " + Self.advertisingHex + Self.paddedTail))
        #expect(data.data == [UInt8](hex: Self.advertisingHex))
        #expect(try data.advertisingData.localName == "BC05")
        #expect(try data.advertisingData.flags == 0x06)
        let response = try HCILESetScanResponseDataCommand(
            parsing: [UInt8](hex: "092020 09 " + Self.advertisingHex + Self.paddedTail))
        #expect(response == HCILESetScanResponseDataCommand(data: [UInt8](hex: Self.advertisingHex)))
        #expect(try HCILESetAdvertisingEnableCommand(parsing: [UInt8](hex: "0a2001 01")).enable)
        let disconnect = try HCIDisconnectCommand(parsing: [UInt8](hex: "060403 0100 13"))
        #expect(disconnect.connectionHandle == 1 && disconnect.reason == .remoteUserTerminated)
    }

    @Test("an AdvertisingData value encodes to its structures")
    func fromStructures() {
        let advertising = AdvertisingData([.flags(0x06), .localName(complete: true, bytes: Array("BC05".utf8))])
        #expect(HCILESetAdvertisingDataCommand(advertising).data == [UInt8](hex: Self.advertisingHex))
        #expect(HCILESetScanResponseDataCommand(advertising).data == [UInt8](hex: Self.advertisingHex))
    }

    @Test("data beyond 31 bytes is cut when encoding")
    func overlong() {
        var out: [UInt8] = []
        HCILESetAdvertisingDataCommand(data: [UInt8](repeating: 0xAB, count: 40)).encode(into: &out)
        #expect(out.count == 3 + 32)
        #expect(out[3] == 31)
        #expect(out[4...].allSatisfy { $0 == 0xAB })
    }

    @Test("truncated, wrong-length, wrong-opcode and invalid inputs are typed errors")
    func errors() {
        let full31 = String(repeating: "00", count: 31)
        #expect(
            wireErrorCode {
                _ = try HCILESetAdvertisingParametersCommand(
                    parsing: [UInt8](hex: "06200e a000 a000 00 00 00 0000000000 07 00"))
            } == .truncated)
        #expect(
            wireErrorCode {
                _ = try HCILESetAdvertisingParametersCommand(
                    parsing: [UInt8](hex: "062010 a000 a000 00 00 00 000000000000 07 00 00"))
            } == .wrongLength)
        #expect(
            wireErrorCode {
                _ = try HCILESetAdvertisingParametersCommand(
                    parsing: [UInt8](hex: "06200f a000 a000 05 00 00 000000000000 07 00"))
            } == .invalidValue)
        #expect(
            wireErrorCode {
                _ = try HCILESetAdvertisingParametersCommand(
                    parsing: [UInt8](hex: "06200f a000 a000 00 00 02 000000000000 07 00"))
            } == .invalidValue)
        #expect(
            wireErrorCode {
                _ = try HCILESetAdvertisingDataCommand(
                    parsing: [UInt8](hex: "08201f 00 " + String(repeating: "00", count: 30)))
            } == .truncated)
        #expect(
            wireErrorCode {
                _ = try HCILESetAdvertisingDataCommand(parsing: [UInt8](hex: "082021 00 " + full31 + "00"))
            }
                == .wrongLength)
        #expect(
            wireErrorCode { _ = try HCILESetAdvertisingDataCommand(parsing: [UInt8](hex: "082020 20 " + full31)) }
                == .invalidValue)
        #expect(
            wireErrorCode { _ = try HCILESetAdvertisingDataCommand(parsing: [UInt8](hex: "092020 00 " + full31)) }
                == .wrongOpcode)
        #expect(
            wireErrorCode { _ = try HCILESetScanResponseDataCommand(parsing: [UInt8](hex: "082020 00 " + full31)) }
                == .wrongOpcode)
        #expect(
            wireErrorCode { _ = try HCILESetScanResponseDataCommand(parsing: [UInt8](hex: "092000")) } == .truncated)
        #expect(
            wireErrorCode { _ = try HCILESetAdvertisingEnableCommand(parsing: [UInt8](hex: "0a2000")) } == .truncated)
        #expect(
            wireErrorCode { _ = try HCILESetAdvertisingEnableCommand(parsing: [UInt8](hex: "0a2002 01 00")) }
                == .wrongLength)
        #expect(
            wireErrorCode { _ = try HCILESetAdvertisingEnableCommand(parsing: [UInt8](hex: "0a2001 02")) }
                == .invalidValue)
        #expect(
            wireErrorCode { _ = try HCILESetAdvertisingEnableCommand(parsing: [UInt8](hex: "0c2001 01")) }
                == .wrongOpcode)
        #expect(wireErrorCode { _ = try HCIDisconnectCommand(parsing: [UInt8](hex: "060402 0100")) } == .truncated)
        #expect(
            wireErrorCode { _ = try HCIDisconnectCommand(parsing: [UInt8](hex: "060404 0100 13 00")) } == .wrongLength)
        #expect(
            wireErrorCode { _ = try HCIDisconnectCommand(parsing: [UInt8](hex: "060403 0010 13")) } == .invalidValue)
        #expect(wireErrorCode { _ = try HCIDisconnectCommand(parsing: [UInt8](hex: "070403 0100 13")) } == .wrongOpcode)
        let data = HCILESetAdvertisingDataCommand(data: [0x05, 0x09, 0x42])
        #expect(wireErrorCode { _ = try data.advertisingData } == .truncated)
    }
}

@Suite("HCI LE Connection Update Complete")
struct HCIConnectionUpdateTests {
    /// Handle 0x0040 now at 30 ms (24 units), latency 0, supervision timeout 420 ms (42 units).
    static let update = [UInt8](hex: "3e 0a 03 00 4000 1800 0000 2a00")

    @Test("parses, encodes, and refuses a wrong subevent or length")
    func connectionUpdate() throws {
        let event = try HCILEConnectionUpdateCompleteEvent(parsing: Self.update)
        #expect(event.status == .success && event.connectionHandle == 0x40)
        #expect(event.connectionInterval == 24 && event.peripheralLatency == 0 && event.supervisionTimeout == 42)
        var out: [UInt8] = []
        event.encode(into: &out)
        #expect(out == Self.update)
        var other = Self.update
        other[2] = 0x01
        #expect(wireErrorCode { _ = try HCILEConnectionUpdateCompleteEvent(parsing: other) } == .wrongOpcode)
        var longer = Self.update + [0]
        longer[1] += 1
        #expect(wireErrorCode { _ = try HCILEConnectionUpdateCompleteEvent(parsing: longer) } == .wrongLength)
    }
}
