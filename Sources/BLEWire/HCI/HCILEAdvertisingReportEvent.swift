// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Advertising Report (LE Meta subevent 0x02): legacy advertisements and scan responses seen
/// while scanning (Core Vol 4 Part E 7.7.65.2).
///
/// The spec lists the fields as parallel arrays; controllers, BlueZ and Linux all lay them out
/// report by report (type, address type, address, length, data, RSSI), and with one report per
/// event (what controllers send) the two readings coincide. This codec reads report by report.
public struct HCILEAdvertisingReportEvent: HCILESubevent {
    /// One advertisement.
    public struct Report: Hashable, Sendable {
        /// 0x00 ADV_IND, 0x01 ADV_DIRECT_IND, 0x02 ADV_SCAN_IND, 0x03 ADV_NONCONN_IND, 0x04 SCAN_RSP.
        public var eventType: UInt8
        /// Address type as sent: 0x00 public, 0x01 random, 0x02/0x03 resolved identity.
        public var addressType: UInt8
        /// The advertiser's address; `kind` is random for odd address types.
        public var address: BluetoothAddress
        /// The advertising data bytes (at most 31 for legacy advertising).
        public var data: [UInt8]
        /// Received signal strength in dBm; 127 means not available.
        public var rssi: Int8

        /// Creates a report.
        public init(
            eventType: UInt8 = 0x00, addressType: UInt8? = nil, address: BluetoothAddress, data: [UInt8], rssi: Int8
        ) {
            self.eventType = eventType
            self.addressType = addressType ?? address.kind.rawValue
            self.address = address
            self.data = data
            self.rssi = rssi
        }

        /// True for a scan response (event type 0x04).
        public var isScanResponse: Bool { eventType == 0x04 }

        /// The data parsed as advertising data.
        public func advertisingData() throws(WireError) -> AdvertisingData {
            try AdvertisingData(parsing: data)
        }
    }

    /// The reports, in order.
    public var reports: [Report]

    /// Creates the event.
    public init(reports: [Report]) {
        self.reports = reports
    }

    /// 0x02.
    public var subeventCode: UInt8 { HCILEMetaEvent.advertisingReport }

    /// True for 0x02.
    public static func decodes(subeventCode code: UInt8) -> Bool { code == HCILEMetaEvent.advertisingReport }

    /// Parses the report count and every report; bytes left after the last report are `wrongLength`.
    public init(subeventCode: UInt8, subeventParameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(subeventParameters, context: "LE Advertising Report")
        let count = Int(try reader.readUInt8())
        var reports: [Report] = []
        for _ in 0..<count {
            let eventType = try reader.readUInt8()
            let addressType = try reader.readUInt8()
            let address = try BluetoothAddress(littleEndian: &reader, kind: addressType & 1 == 1 ? .random : .public)
            let length = Int(try reader.readUInt8())
            let data = Array(try reader.readBytes(length))
            let rssi = Int8(bitPattern: try reader.readUInt8())
            reports.append(
                Report(eventType: eventType, addressType: addressType, address: address, data: data, rssi: rssi))
        }
        try reader.expectEnd()
        self.reports = reports
    }

    /// Appends the report count and the reports (at most 255 reports, data cut to 255 bytes).
    public func encodeSubeventParameters(into buffer: inout [UInt8]) {
        let reports = reports.prefix(255)
        buffer.append(UInt8(reports.count))
        for report in reports {
            let data = report.data.prefix(255)
            buffer.append(report.eventType)
            buffer.append(report.addressType)
            report.address.encode(into: &buffer)
            buffer.append(UInt8(data.count))
            buffer.append(contentsOf: data)
            buffer.append(UInt8(bitPattern: report.rssi))
        }
    }
}
