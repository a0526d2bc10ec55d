// SPDX-License-Identifier: GPL-2.0-or-later

/// LE Extended Advertising Report (LE Meta subevent 0x0D): advertisements seen by an extended
/// scan, legacy and extended PDUs alike (Core Vol 4 Part E 7.7.65.13).
public struct HCILEExtendedAdvertisingReportEvent: HCILESubevent {
    /// One advertisement (or one fragment of a long one, see `dataStatus`).
    public struct Report: Hashable, Sendable {
        /// Event type bits: 0 connectable, 1 scannable, 2 directed, 3 scan response, 4 legacy PDU,
        /// 5-6 data status.
        public var eventType: UInt16
        /// Address type as sent: 0x00-0x03 as for legacy reports, 0xFF anonymous.
        public var addressType: UInt8
        /// The advertiser's address; `kind` is random for odd address types.
        public var address: BluetoothAddress
        /// Primary PHY: 0x01 LE 1M, 0x03 LE Coded.
        public var primaryPHY: UInt8
        /// Secondary PHY: 0x00 none, 0x01 1M, 0x02 2M, 0x03 Coded.
        public var secondaryPHY: UInt8
        /// Advertising set id, 0xFF when none.
        public var advertisingSID: UInt8
        /// TX power in dBm; 127 means not available.
        public var txPower: Int8
        /// RSSI in dBm; 127 means not available.
        public var rssi: Int8
        /// Periodic advertising interval in 1.25 ms units, 0 when none.
        public var periodicAdvertisingInterval: UInt16
        /// Direct address type (directed advertising only).
        public var directAddressType: UInt8
        /// Direct address, six little-endian bytes as sent.
        public var directAddress: [UInt8]
        /// The advertising data bytes.
        public var data: [UInt8]

        /// Creates a report for a legacy, connectable, scannable advertisement by default.
        public init(
            eventType: UInt16 = 0x0013, addressType: UInt8? = nil, address: BluetoothAddress, primaryPHY: UInt8 = 1,
            secondaryPHY: UInt8 = 0, advertisingSID: UInt8 = 0xFF, txPower: Int8 = 127, rssi: Int8,
            periodicAdvertisingInterval: UInt16 = 0, directAddressType: UInt8 = 0,
            directAddress: [UInt8] = [0, 0, 0, 0, 0, 0], data: [UInt8]
        ) {
            self.eventType = eventType
            self.addressType = addressType ?? address.kind.rawValue
            self.address = address
            self.primaryPHY = primaryPHY
            self.secondaryPHY = secondaryPHY
            self.advertisingSID = advertisingSID
            self.txPower = txPower
            self.rssi = rssi
            self.periodicAdvertisingInterval = periodicAdvertisingInterval
            self.directAddressType = directAddressType
            self.directAddress = directAddress
            self.data = data
        }

        /// Event type bit 0.
        public var isConnectable: Bool { eventType & 0x01 != 0 }
        /// Event type bit 3.
        public var isScanResponse: Bool { eventType & 0x08 != 0 }
        /// Event type bit 4.
        public var isLegacy: Bool { eventType & 0x10 != 0 }
        /// Event type bits 5-6: 0 complete, 1 incomplete (more to come), 2 incomplete (truncated).
        public var dataStatus: UInt8 { UInt8((eventType >> 5) & 0x03) }

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

    /// 0x0D.
    public var subeventCode: UInt8 { HCILEMetaEvent.extendedAdvertisingReport }

    /// True for 0x0D.
    public static func decodes(subeventCode code: UInt8) -> Bool { code == HCILEMetaEvent.extendedAdvertisingReport }

    /// Parses the report count and every report; bytes left after the last report are `wrongLength`.
    public init(subeventCode: UInt8, subeventParameters: ArraySlice<UInt8>) throws(WireError) {
        var reader = WireReader(subeventParameters, context: "LE Extended Advertising Report")
        let count = Int(try reader.readUInt8())
        var reports: [Report] = []
        for _ in 0..<count {
            let eventType = try reader.readUInt16LE()
            let addressType = try reader.readUInt8()
            let address = try BluetoothAddress(littleEndian: &reader, kind: addressType & 1 == 1 ? .random : .public)
            let primaryPHY = try reader.readUInt8()
            let secondaryPHY = try reader.readUInt8()
            let sid = try reader.readUInt8()
            let txPower = Int8(bitPattern: try reader.readUInt8())
            let rssi = Int8(bitPattern: try reader.readUInt8())
            let interval = try reader.readUInt16LE()
            let directType = try reader.readUInt8()
            let direct = Array(try reader.readBytes(6))
            let length = Int(try reader.readUInt8())
            let data = Array(try reader.readBytes(length))
            reports.append(
                Report(
                    eventType: eventType, addressType: addressType, address: address, primaryPHY: primaryPHY,
                    secondaryPHY: secondaryPHY, advertisingSID: sid, txPower: txPower, rssi: rssi,
                    periodicAdvertisingInterval: interval, directAddressType: directType, directAddress: direct,
                    data: data))
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
            buffer.appendUInt16LE(report.eventType)
            buffer.append(report.addressType)
            report.address.encode(into: &buffer)
            buffer.append(report.primaryPHY)
            buffer.append(report.secondaryPHY)
            buffer.append(report.advertisingSID)
            buffer.append(UInt8(bitPattern: report.txPower))
            buffer.append(UInt8(bitPattern: report.rssi))
            buffer.appendUInt16LE(report.periodicAdvertisingInterval)
            buffer.append(report.directAddressType)
            buffer.append(contentsOf: Array((report.directAddress + [0, 0, 0, 0, 0, 0]).prefix(6)))
            buffer.append(UInt8(data.count))
            buffer.append(contentsOf: data)
        }
    }
}
