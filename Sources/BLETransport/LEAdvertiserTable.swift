// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// What the scanner remembers per advertiser so that a scan response and the advertisement it
/// answers become one discovery, and so that fragments of a long extended advertisement are
/// joined before they are parsed. Pure: no I/O, no clock (instants are passed in).
///
/// Memory is bounded: at most `capacity` advertisers (the one seen longest ago is forgotten
/// first) and at most ``maximumFragmentedAdvertisers`` partly received extended advertisements
/// of at most ``maximumAdvertisingDataLength`` bytes each.
package struct LEAdvertiserTable: Sendable {
    /// The longest advertising data an extended advertisement can carry (Core Vol 4 Part E 7.8.54).
    package static let maximumAdvertisingDataLength = 1650
    /// How many extended advertisements may be partly received at once.
    package static let maximumFragmentedAdvertisers = 16

    /// One report, whichever event (legacy or extended) it came from.
    package struct Report: Sendable {
        package var address: BluetoothAddress
        package var isScanResponse: Bool
        /// nil when the report does not say (a legacy scan response).
        package var isConnectable: Bool?
        package var rssi: Int8?
        package var txPower: Int8?
        package var data: [UInt8]

        package init(
            address: BluetoothAddress, isScanResponse: Bool, isConnectable: Bool?, rssi: Int8?, txPower: Int8?,
            data: [UInt8]
        ) {
            self.address = address
            self.isScanResponse = isScanResponse
            self.isConnectable = isConnectable
            self.rssi = rssi
            self.txPower = txPower
            self.data = data
        }
    }

    private struct Record {
        var advertising: AdvertisingData?
        var scanResponse: AdvertisingData?
        var isConnectable = false
        var lastSeen: UInt64 = 0
    }

    private struct FragmentKey: Hashable {
        var address: BluetoothAddress
        var sid: UInt8
        var isScanResponse: Bool
    }

    package let capacity: Int
    private var records: [BluetoothAddress: Record] = [:]
    private var fragments: [FragmentKey: [UInt8]] = [:]
    private var sequence: UInt64 = 0
    /// Reports whose advertising data did not parse completely; what parsed is still used.
    package private(set) var malformedDataCount = 0
    /// Extended reports the controller marked truncated, or whose fragments were dropped.
    private(set) var truncatedDataCount = 0

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Merges a report with what is known of its advertiser and returns the discovery.
    package mutating func discovery<Instant: InstantProtocol>(
        for report: Report, at instant: Instant
    ) -> LEDiscovery<Instant> {
        sequence += 1
        var record = records[report.address] ?? Record()
        if records[report.address] == nil && records.count >= capacity { forgetOldest() }
        let data = parse(report.data)
        if report.isScanResponse {
            record.scanResponse = data
        } else {
            record.advertising = data
        }
        if let connectable = report.isConnectable { record.isConnectable = connectable }
        record.lastSeen = sequence
        records[report.address] = record

        let sources = [record.advertising, record.scanResponse].compactMap { $0 }
        var uuids: [BluetoothUUID] = []
        for uuid in sources.flatMap(\.serviceUUIDs) where !uuids.contains(uuid) { uuids.append(uuid) }
        let manufacturer = sources.lazy.compactMap(\.manufacturerData).first
        return LEDiscovery(
            address: report.address,
            name: Self.name(in: sources),
            rssi: report.rssi,
            serviceUUIDs: uuids,
            manufacturerData: manufacturer.map { LEDiscovery.ManufacturerData(companyID: $0.companyID, data: $0.data) },
            txPower: report.txPower ?? sources.lazy.compactMap(\.txPower).first,
            isConnectable: record.isConnectable,
            timestamp: instant
        )
    }

    /// Joins the fragments of an extended advertisement. Returns the whole data once the
    /// controller says it is complete (status 0) or truncated (status 2), nil while more is to
    /// come (status 1).
    package mutating func assemble(
        address: BluetoothAddress, sid: UInt8, isScanResponse: Bool, dataStatus: UInt8, data: [UInt8]
    ) -> [UInt8]? {
        let key = FragmentKey(address: address, sid: sid, isScanResponse: isScanResponse)
        var joined = (fragments.removeValue(forKey: key) ?? []) + data
        if joined.count > Self.maximumAdvertisingDataLength {
            joined.removeLast(joined.count - Self.maximumAdvertisingDataLength)
        }
        switch dataStatus {
        case 0x01:
            if fragments.count >= Self.maximumFragmentedAdvertisers, let victim = fragments.keys.first {
                fragments[victim] = nil
                truncatedDataCount += 1
            }
            fragments[key] = joined
            return nil
        case 0x00:
            return joined
        default:
            truncatedDataCount += 1
            return joined
        }
    }

    /// How many advertisers are remembered.
    package var count: Int { records.count }

    private mutating func forgetOldest() {
        guard let oldest = records.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key else { return }
        records[oldest] = nil
    }

    /// Parses advertising data structure by structure, keeping every structure that is valid even
    /// when a later one is not (a device with one broken structure still shows its name).
    private mutating func parse(_ bytes: [UInt8]) -> AdvertisingData {
        var structures: [ADStructure] = []
        var index = 0
        var malformed = false
        while index < bytes.count {
            let length = Int(bytes[index])
            if length == 0 { break }
            guard index + 1 + length <= bytes.count else {
                malformed = true
                break
            }
            let type = bytes[index + 1]
            do {
                structures.append(try ADStructure(type: type, data: bytes[(index + 2)..<(index + 1 + length)]))
            } catch {
                malformed = true
            }
            index += 1 + length
        }
        if malformed { malformedDataCount += 1 }
        return AdvertisingData(structures)
    }

    /// The complete name from either source, else a shortened one; advertisement first.
    private static func name(in sources: [AdvertisingData]) -> String? {
        var shortened: String?
        for data in sources {
            for structure in data.structures {
                guard case .localName(let complete, _) = structure else { continue }
                if complete { return structure.localName }
                if shortened == nil { shortened = structure.localName }
            }
        }
        return shortened
    }
}
