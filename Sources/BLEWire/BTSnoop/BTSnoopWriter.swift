// SPDX-License-Identifier: GPL-2.0-or-later

/// Produces btsnoop bytes for datalink 1001, 1002 or 2001 from `HCIRecord`s. It only appends to
/// a buffer; writing the buffer to a file is the caller's job.
public struct BTSnoopWriter: Hashable, Sendable {
    /// The datalink written.
    public let datalink: BTSnoopDatalink

    /// Creates a writer; a datalink other than 1001, 1002 and 2001 is `unsupported`.
    public init(datalink: BTSnoopDatalink) throws(WireError) {
        guard datalink.isSupported else {
            throw WireError(.unsupported, "btsnoop datalink \(datalink) cannot be written; use 1001, 1002 or 2001")
        }
        self.datalink = datalink
    }

    /// Appends the 16-byte file header.
    public func encodeHeader(into buffer: inout [UInt8]) {
        BTSnoopFileHeader(datalink: datalink).encode(into: &buffer)
    }

    /// Appends one record. Throws `unsupported`, appending nothing, when the datalink cannot
    /// carry the packet (see `HCIRecord.btsnoopRecord(datalink:)`).
    public func encode(_ record: HCIRecord, into buffer: inout [UInt8]) throws(WireError) {
        try record.btsnoopRecord(datalink: datalink).encode(into: &buffer)
    }

    /// A whole file: header and every record.
    public static func file(datalink: BTSnoopDatalink, records: [HCIRecord]) throws(WireError) -> [UInt8] {
        let writer = try BTSnoopWriter(datalink: datalink)
        var bytes: [UInt8] = []
        writer.encodeHeader(into: &bytes)
        for record in records { try writer.encode(record, into: &bytes) }
        return bytes
    }
}
