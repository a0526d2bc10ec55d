// SPDX-License-Identifier: GPL-2.0-or-later

/// One sample of an import: its unwrapped index, seconds from the start, raw counts (16384 per g).
public struct ImportSample: Hashable, Sendable {
    public var index: Int64
    public var t: Double
    public var x: Int16
    public var y: Int16
    public var z: Int16

    /// Creates a sample.
    public init(index: Int64, t: Double, x: Int16, y: Int16, z: Int16) {
        self.index = index
        self.t = t
        self.x = x
        self.y = y
        self.z = z
    }

    /// A `[index, t, x, y, z]` row: nil unless five finite numbers, a whole index and whole 16-bit
    /// counts.
    public init?(row: [Double]) {
        guard row.count == 5, row.allSatisfy(\.isFinite), let index = Int64(exactly: row[0]),
            let x = Int16(exactly: row[2]), let y = Int16(exactly: row[3]), let z = Int16(exactly: row[4])
        else { return nil }
        self.init(index: index, t: row[1], x: x, y: y, z: z)
    }

    /// What a row that is not a sample is told (1-based `position`).
    public static func invalidRow(_ position: Int) -> String {
        "sample \(position) is not [index, t, x, y, z] with whole 16-bit counts: send each sample as five numbers, "
            + "its index, its time in seconds and its raw x, y, z counts"
    }
}

/// The samples of `POST /v1/sessions/import`, 24 bytes each (an array of arrays of `Double` took
/// about 90). On the wire a JSON array of `[index, t, x, y, z]` rows; a row of another shape
/// does not decode (`ImportSample.invalidRow`).
public struct ImportSamples: Hashable, Sendable, Codable, RandomAccessCollection {
    /// The samples, in order.
    public private(set) var rows: [ImportSample]

    /// The samples `rows`.
    public init(_ rows: [ImportSample] = []) {
        self.rows = rows
    }

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> ImportSample { rows[position] }

    /// Adds a sample.
    public mutating func append(_ sample: ImportSample) {
        rows.append(sample)
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var rows: [ImportSample] = []
        if let count = container.count { rows.reserveCapacity(count) }
        while !container.isAtEnd {
            let values = try container.decode([Double].self)
            guard let sample = ImportSample(row: values) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: ImportSample.invalidRow(rows.count + 1))
            }
            rows.append(sample)
        }
        self.rows = rows
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for sample in rows {
            try container.encode([Double(sample.index), sample.t, Double(sample.x), Double(sample.y), Double(sample.z)])
        }
    }
}
