// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// Synthetic btsnoop captures of an SDU sensor session, for testing capture decoding.
///
/// A session is: (2001 only: the monitor's New Index, Open Index and Index Info records) →
/// LE Set Scan Enable and its Command Complete → an LE Advertising Report carrying the sensor's
/// service UUID and (scan response) name → LE (Enhanced) Connection Complete → the given ATT PDUs, each in an
/// L2CAP frame split into ACL fragments → Disconnection Complete.
public enum CaptureFixtures {
    /// The sensor's address in the fixtures (a random static address).
    public static let sensorAddress = BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random)!
    /// The sensor's advertised name.
    public static let sensorName = "BC05FC978B7510AB"
    /// The sensor's GATT service.
    public static let sensorService = BluetoothUUID(string: "A2C70010-8F31-11E3-B148-0002A5D5C51B")!
    /// 2023-11-14T22:13:20Z in microseconds since the Unix epoch: the first record's time.
    public static let startTimestamp: Int64 = 1_700_000_000_000_000

    /// One ATT PDU of the session and who sent it.
    public struct ATTExchange: Hashable, Sendable {
        /// `.hostToController` for PDUs the gateway sent, `.controllerToHost` for the sensor's.
        public var direction: HCIDirection
        /// The ATT PDU bytes.
        public var pdu: [UInt8]

        /// Creates a value.
        public init(_ direction: HCIDirection, _ pdu: [UInt8]) {
            self.direction = direction
            self.pdu = pdu
        }
    }

    /// A Handle Value Notification PDU (opcode 0x1B, handle LE, value), as raw bytes.
    public static func notification(handle: UInt16, value: [UInt8]) -> [UInt8] {
        var pdu: [UInt8] = [0x1B]
        pdu.appendUInt16LE(handle)
        return pdu + value
    }

    /// The sensor's legacy advertising data: flags and the 128-bit service (21 bytes).
    public static var sensorAdvertisingData: [UInt8] {
        var bytes: [UInt8] = []
        AdvertisingData([.flags(0x06), .serviceUUIDs128(complete: true, [sensorService])]).encode(into: &bytes)
        return bytes
    }

    /// The sensor's scan response: the complete local name (18 bytes).
    public static var sensorScanResponseData: [UInt8] {
        var bytes: [UInt8] = []
        AdvertisingData([.localName(complete: true, bytes: Array(sensorName.utf8))]).encode(into: &bytes)
        return bytes
    }

    /// The records of a session, normalised.
    ///
    /// - Parameters:
    ///   - exchanges: the ATT PDUs, in order.
    ///   - handle: the LE connection handle.
    ///   - controllerIndex: the controller; only datalink 2001 can store an index other than 0.
    ///   - fragmentSize: ACL data bytes per fragment (27 is the LE default without DLE).
    ///   - enhanced: announce the connection with LE Enhanced Connection Complete instead.
    ///   - monitorPreamble: start with the btmon index records (only valid for datalink 2001).
    ///   - interval: microseconds between consecutive records.
    public static func sessionRecords(
        exchanges: [ATTExchange], handle: UInt16 = 0x0040, controllerIndex: UInt16 = 0, fragmentSize: Int = 27,
        enhanced: Bool = false, monitorPreamble: Bool = false, interval: Int64 = 1_000
    ) -> [HCIRecord] {
        var records: [HCIRecord] = []
        var time = startTimestamp
        func add(_ direction: HCIDirection, _ packet: HCIPacket) {
            records.append(
                HCIRecord(timestamp: time, direction: direction, controllerIndex: controllerIndex, packet: packet))
            time += interval
        }
        if monitorPreamble {
            var newIndex: [UInt8] = [0x00, 0x01]  // primary controller on USB
            BluetoothAddress(string: "00:1A:7D:DA:71:13")!.encode(into: &newIndex)
            newIndex +=
                Array("hci\(controllerIndex)".utf8)
                + [UInt8](repeating: 0, count: 8 - "hci\(controllerIndex)".utf8.count)
            add(.controllerToHost, .monitor(.newIndex, payload: newIndex))
            add(.controllerToHost, .monitor(.openIndex, payload: []))
            add(.controllerToHost, .monitor(.systemNote, payload: Array("Bluetooth monitor ver 5.72\0".utf8)))
        }
        add(.hostToController, .command(HCILESetScanEnableCommand(enable: true).packet))
        add(
            .controllerToHost,
            .event(HCICommandCompleteEvent(opcode: .leSetScanEnable, returnParameters: [0x00]).packet))
        add(
            .controllerToHost,
            .event(
                HCILEAdvertisingReportEvent(reports: [
                    .init(eventType: 0x00, address: sensorAddress, data: sensorAdvertisingData, rssi: -58),
                    .init(eventType: 0x04, address: sensorAddress, data: sensorScanResponseData, rssi: -59),
                ]).packet))
        add(.hostToController, .command(HCILESetScanEnableCommand(enable: false).packet))
        if enhanced {
            add(
                .controllerToHost,
                .event(
                    HCILEEnhancedConnectionCompleteEvent(connectionHandle: handle, peerAddress: sensorAddress).packet))
        } else {
            add(
                .controllerToHost,
                .event(HCILEConnectionCompleteEvent(connectionHandle: handle, peerAddress: sensorAddress).packet))
        }
        for exchange in exchanges {
            let frame = L2CAPBasicFrame(channelID: L2CAPBasicFrame.attributeProtocolCID, payload: exchange.pdu)
            let first: HCIACLDataPacket.PacketBoundary =
                exchange.direction == .hostToController ? .firstNonFlushable : .firstFlushable
            for fragment in frame.fragments(handle: handle, fragmentSize: fragmentSize, firstBoundary: first) {
                add(exchange.direction, .acl(fragment))
            }
        }
        add(
            .controllerToHost,
            .event(HCIDisconnectionCompleteEvent(connectionHandle: handle, reason: .remoteUserTerminated).packet))
        return records
    }

    /// A whole btsnoop file of a session in `datalink` (1001, 1002 or 2001). The btmon preamble is
    /// added for 2001; `controllerIndex` is kept only by 2001.
    public static func sessionCapture(
        datalink: BTSnoopDatalink, exchanges: [ATTExchange], handle: UInt16 = 0x0040, controllerIndex: UInt16 = 0,
        fragmentSize: Int = 27, enhanced: Bool = false
    ) -> [UInt8] {
        let isMonitor = datalink == .linuxMonitor
        let records = sessionRecords(
            exchanges: exchanges, handle: handle, controllerIndex: isMonitor ? controllerIndex : 0,
            fragmentSize: fragmentSize, enhanced: enhanced, monitorPreamble: isMonitor)
        do {
            return try BTSnoopWriter.file(datalink: datalink, records: records)
        } catch {
            preconditionFailure("fixture session does not fit datalink \(datalink): \(error)")
        }
    }

    /// An SDU accelerometer notification payload: a little-endian counter, then `samples`
    /// (x, y, z) as Int16 little-endian counts.
    public static func sduPayload(counter: UInt16, samples: [(Int16, Int16, Int16)]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendUInt16LE(counter)
        for (x, y, z) in samples {
            bytes.appendInt16LE(x)
            bytes.appendInt16LE(y)
            bytes.appendInt16LE(z)
        }
        return bytes
    }
}
