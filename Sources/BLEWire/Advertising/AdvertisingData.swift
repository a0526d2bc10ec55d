// SPDX-License-Identifier: GPL-2.0-or-later

/// Advertising or scan-response data: a sequence of `ADStructure`s (Core Vol 3 Part C 11).
///
/// A zero length byte ends the significant part; what follows it is padding and is not kept, so
/// `encode(into:)` reproduces the significant part only.
public struct AdvertisingData: Hashable, Sendable {
    /// The structures in the order they were advertised.
    public var structures: [ADStructure]

    /// Creates advertising data from structures.
    public init(_ structures: [ADStructure] = []) {
        self.structures = structures
    }

    /// Parses advertising data. A length byte that runs past the end is `truncated`; a structure
    /// whose data does not fit its type throws that structure's error.
    public init(parsing bytes: some Collection<UInt8>) throws(WireError) {
        var reader = WireReader(bytes, context: "advertising data")
        var structures: [ADStructure] = []
        while !reader.isAtEnd {
            let length = Int(try reader.readUInt8())
            if length == 0 { break }  // the rest is padding
            guard reader.count >= length else {
                throw WireError(
                    .truncated,
                    "advertising data: structure \(structures.count) claims \(length) byte(s), \(reader.count) left")
            }
            let type = try reader.readUInt8()
            structures.append(try ADStructure(type: type, data: try reader.readBytes(length - 1)))
        }
        self.structures = structures
    }

    /// Appends every structure.
    public func encode(into buffer: inout [UInt8]) {
        for structure in structures { structure.encode(into: &buffer) }
    }

    /// The complete local name if advertised, else the shortened one.
    public var localName: String? {
        var shortened: String?
        for structure in structures {
            guard case .localName(let complete, _) = structure else { continue }
            if complete { return structure.localName }
            if shortened == nil { shortened = structure.localName }
        }
        return shortened
    }

    /// Every service UUID advertised, in every width, complete or incomplete lists alike.
    public var serviceUUIDs: [BluetoothUUID] {
        structures.flatMap { structure -> [BluetoothUUID] in
            switch structure {
            case .serviceUUIDs16(_, let list), .serviceUUIDs32(_, let list), .serviceUUIDs128(_, let list): list
            default: []
            }
        }
    }

    /// The advertised TX power level in dBm.
    public var txPower: Int8? {
        for case .txPowerLevel(let power) in structures { return power }
        return nil
    }

    /// The first manufacturer-specific data structure.
    public var manufacturerData: (companyID: UInt16, data: [UInt8])? {
        for case .manufacturerData(let company, let data) in structures { return (company, data) }
        return nil
    }

    /// The advertised flags byte.
    public var flags: UInt8? {
        for case .flags(let value) in structures { return value }
        return nil
    }
}
