// SPDX-License-Identifier: GPL-2.0-or-later

/// Reads btsnoop records one at a time straight out of a byte buffer, so a large capture (for
/// example a memory-mapped file as `UnsafeRawBufferPointer`) is never copied as a whole; only
/// each record's own bytes are.
///
/// `next()` returns records until the clean end of the file (nil). A file cut short inside its
/// last record throws `truncated` after every whole record before it was returned, so the
/// caller can tell "complete" from "cut short" and still use what was read; a record header
/// that cannot be right (included length above the original length, or absurdly large) throws
/// `invalidValue`. After a throw the reader is finished and returns nil.
public struct BTSnoopReader<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
    /// The largest included length accepted: an H4 ACL packet is at most 1 + 4 + 65535 bytes, and
    /// anything bigger means the record header is garbage.
    public static var maximumRecordLength: Int { 1 + 4 + 0xFFFF }

    /// The file header.
    public let header: BTSnoopFileHeader
    private let bytes: Bytes
    /// Offset of the next record from the start of `bytes`.
    public private(set) var offset: Int
    /// Records returned so far.
    public private(set) var recordCount = 0
    private var finished = false

    /// Reads and checks the file header. Throws `truncated` for fewer than 16 bytes,
    /// `invalidValue` for a wrong magic, `unsupported` for a version other than 1 or a datalink
    /// other than 1001, 1002 and 2001.
    public init(bytes: Bytes) throws(WireError) {
        let header = try BTSnoopFileHeader(parsing: bytes.prefix(BTSnoopFileHeader.size))
        guard header.datalink.isSupported else {
            throw WireError(
                .unsupported,
                "btsnoop datalink \(header.datalink) is not supported; expected 1001 (HCI), 1002 (H4, Android) "
                    + "or 2001 (btmon)")
        }
        self.header = header
        self.bytes = bytes
        self.offset = bytes.startIndex + BTSnoopFileHeader.size
    }

    /// The datalink of this capture.
    public var datalink: BTSnoopDatalink { header.datalink }

    /// The next stored record, nil at the clean end of the file.
    public mutating func nextRecord() throws(WireError) -> BTSnoopRecord? {
        guard !finished else { return nil }
        let available = bytes.endIndex - offset
        if available == 0 {
            finished = true
            return nil
        }
        guard available >= BTSnoopRecord.headerSize else {
            finished = true
            throw WireError(
                .truncated,
                "btsnoop: file ends inside the header of record \(recordCount) at offset \(offset) "
                    + "(\(available) of 24 bytes); the \(recordCount) record(s) before it are whole")
        }
        let originalLength = readUInt32BE(at: offset)
        let included = Int(readUInt32BE(at: offset + 4))
        let flags = readUInt32BE(at: offset + 8)
        let drops = readUInt32BE(at: offset + 12)
        let timestamp = Int64(
            bitPattern: UInt64(readUInt32BE(at: offset + 16)) << 32 | UInt64(readUInt32BE(at: offset + 20)))
        guard included <= Self.maximumRecordLength, UInt32(included) <= originalLength else {
            finished = true
            throw WireError(
                .invalidValue,
                "btsnoop: record \(recordCount) at offset \(offset) claims \(included) included byte(s) "
                    + "of \(originalLength); the file is corrupt from here on")
        }
        let start = offset + BTSnoopRecord.headerSize
        guard bytes.endIndex - start >= included else {
            finished = true
            throw WireError(
                .truncated,
                "btsnoop: record \(recordCount) at offset \(offset) needs \(included) byte(s), "
                    + "the file has \(bytes.endIndex - start) left; the \(recordCount) record(s) before it are whole")
        }
        offset = start + included
        recordCount += 1
        return BTSnoopRecord(
            originalLength: originalLength, flags: flags, cumulativeDrops: drops, timestamp: timestamp,
            data: Array(bytes[start..<start + included]))
    }

    /// The next record, normalised; nil at the clean end of the file.
    public mutating func next() throws(WireError) -> HCIRecord? {
        guard let record = try nextRecord() else { return nil }
        return try HCIRecord(record, datalink: header.datalink)
    }

    private func readUInt32BE(at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8
            | UInt32(bytes[index + 3])
    }
}

extension BTSnoopReader: Sendable where Bytes: Sendable {}

/// A whole capture read at once: its datalink, every whole record, and why reading stopped
/// early if it did.
public struct BTSnoopCapture: Hashable, Sendable {
    /// The capture's datalink.
    public var datalink: BTSnoopDatalink
    /// Every whole record, normalised.
    public var records: [HCIRecord]
    /// nil when the file ended cleanly; otherwise the `truncated` or `invalidValue` error that
    /// stopped reading after `records`.
    public var stoppedEarly: WireError?

    /// Creates a value.
    public init(datalink: BTSnoopDatalink, records: [HCIRecord], stoppedEarly: WireError? = nil) {
        self.datalink = datalink
        self.records = records
        self.stoppedEarly = stoppedEarly
    }

    /// Reads a whole capture. Throws only for a bad file header (see `BTSnoopReader.init`); a
    /// bad or cut-short record ends the list and is reported in `stoppedEarly`.
    public init(parsing bytes: some RandomAccessCollection<UInt8>) throws(WireError) {
        var reader = try BTSnoopReader(bytes: Array(bytes))
        var records: [HCIRecord] = []
        var stopped: WireError?
        do throws(WireError) {
            while let record = try reader.next() { records.append(record) }
        } catch {
            stopped = error
        }
        self.init(datalink: reader.datalink, records: records, stoppedEarly: stopped)
    }

    /// True when the capture was cut short inside a record.
    public var isTruncated: Bool { stoppedEarly?.code == .truncated }
}
