// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SDUSensor

/// A tail segment: the rows of a session's open chunk that are not in the database yet, as the
/// recorder appended them, one record per flush (Docs/FORMATS.md, "Tail segments"). Pure: bytes
/// in, values out.
///
/// A file is its header and then records, each framed by its payload's length and CRC-32. A crash
/// or a full disk can tear the last record; reading stops at the first record that is incomplete,
/// fails its checksum or is out of order, and `validLength` says where the next append goes.
///
/// Generic over what an event is: the store's rows (`SessionStore`), or their bare columns
/// (`SegmentEventColumns`, for `TailSegmentFile`).
package struct TailSegment<Event: TailSegmentEvent>: Hashable, Sendable {
    package typealias DecodeError = SampleChunkCodec.DecodeError

    /// "SSTS": sportsensord tail segment.
    package static var magic: [UInt8] { [0x53, 0x53, 0x54, 0x53] }
    /// The format version written in the header: 3, whose records' samples continue one coder
    /// (`SampleStream`) flushed in as few bytes as decode. Version 2 (the same with each record's
    /// range code flushed in full) and version 1 (each record's samples a chunk BLOB of their own)
    /// are still read.
    package static var version: UInt8 { 3 }
    /// The versions this build reads.
    package static var readableVersions: ClosedRange<UInt8> { 1...3 }
    /// Bytes of the header: magic, version, session id (16), chunk number (8, little-endian).
    package static var headerLength: Int { 29 }
    /// Bytes before a record's payload: its length and its checksum (4 each, little-endian).
    package static var frameLength: Int { 8 }
    /// A record larger than this is damage, not a flush.
    package static var maxPayload: Int { 64 << 20 }
    /// Values per event: the columns of the store's `events` table after the session id.
    package static var eventColumns: Int { 13 }

    /// Whose rows the segment holds.
    package struct Header: Hashable, Sendable {
        /// The session.
        package var session: UUID
        /// The chunk these samples will become.
        package var chunk: Int64
        /// The segment's format version (only `TailSegment.version` is written).
        package var version: UInt8 = TailSegment.version

        package init(session: UUID, chunk: Int64) {
            self.session = session
            self.chunk = chunk
        }

        package init(parsing bytes: [UInt8]) throws(DecodeError) {
            guard bytes.count >= TailSegment.headerLength else {
                throw DecodeError(code: .truncated, message: "tail segment shorter than its header")
            }
            guard Array(bytes[0..<4]) == TailSegment.magic else {
                throw DecodeError(code: .malformed, message: "not a tail segment (no SSTS magic)")
            }
            guard TailSegment.readableVersions.contains(bytes[4]) else {
                throw DecodeError(
                    code: .unknownVersion,
                    message: "tail segment version \(bytes[4]) is newer than this build: upgrade sportsensord")
            }
            let id = bytes[5..<21]
            session = UUID(
                uuid: (
                    id[5], id[6], id[7], id[8], id[9], id[10], id[11], id[12], id[13], id[14], id[15], id[16],
                    id[17], id[18], id[19], id[20]
                ))
            var number: UInt64 = 0
            for offset in 0..<8 { number |= UInt64(bytes[21 + offset]) << UInt64(8 * offset) }
            chunk = Int64(bitPattern: number)
            version = bytes[4]
        }

        package func encode(into out: inout [UInt8]) {
            out += TailSegment.magic
            out.append(TailSegment.version)
            withUnsafeBytes(of: session.uuid) { out += $0 }
            let number = UInt64(bitPattern: chunk)
            for offset in 0..<8 { out.append(UInt8(truncatingIfNeeded: number >> UInt64(8 * offset))) }
        }
    }

    /// How a session ended, when the database could not take it (disk full): the end goes into
    /// the segment with the last rows, and crash recovery writes it.
    package struct Ending: Hashable, Sendable {
        package var endedAt: Date
        package var reason: SessionEndReason
        /// Samples the session received that neither the database nor this file holds (a note
        /// written when even the spill failed), plus those the recorder's full buffer dropped.
        package var unsavedSamples: Int64 = 0

        package init(endedAt: Date, reason: SessionEndReason, unsavedSamples: Int64 = 0) {
            self.endedAt = endedAt
            self.reason = reason
            self.unsavedSamples = unsavedSamples
        }
    }

    /// Whose rows these are.
    package var header: Header
    /// The whole, valid records, in order.
    package var records: [Record]
    /// Bytes up to the end of the last valid record: where the next append goes.
    package var validLength: Int
    /// The samples' coder after the last valid record (formats 2 and 3): where the next append continues.
    package var stream: SampleStream

    /// Reads a whole file. Throws only when the header is unusable; a torn or damaged record ends
    /// the segment there. Without `decodingSamples` the records' samples are skipped, not decoded
    /// (what a compaction reading back the segment's events needs), and `stream` is not the coder's.
    package init(parsing bytes: [UInt8], decodingSamples: Bool = true) throws(DecodeError) {
        header = try Header(parsing: bytes)
        records = []
        stream = SampleStream()
        var cursor = Self.headerLength
        // Each record decodes on a second coder whose tables stay allocated, kept only when the
        // record is whole (`SampleStream.overwrite(with:)`).
        var next = SampleStream()
        while bytes.count - cursor >= Self.frameLength {
            let length = Int(Self.readUInt32(bytes, at: cursor))
            let checksum = Self.readUInt32(bytes, at: cursor + 4)
            let start = cursor + Self.frameLength
            guard length <= Self.maxPayload, length <= bytes.count - start else { break }
            let payload = Array(bytes[start..<start + length])
            if decodingSamples { next.overwrite(with: stream) }
            guard CRC32.checksum(payload) == checksum,
                let record = try? Record(
                    parsing: payload, version: header.version, stream: &next,
                    decodingSamples: decodingSamples),
                record.ordinal == Int64(records.count)
            else { break }
            records.append(record)
            if decodingSamples { swap(&stream, &next) }
            cursor = start + length
        }
        validLength = cursor
    }

    /// The samples of every record, in order.
    package var samples: [IndexedSample] { records.flatMap(\.samples) }
    /// The count, first and last of those samples, without gathering them.
    package var extent: ChunkExtent {
        records.reduce(into: ChunkExtent()) { $0.append(contentsOf: $1.samples) }
    }
    /// The events of every record, in order.
    package var events: [Event] { records.flatMap(\.events) }
    /// The counters of the last record that carried them.
    package var counts: SessionCounts? { records.last(where: { $0.counts != nil })?.counts }
    /// The session's end, when a record spilled it.
    package var ending: Ending? { records.last(where: { $0.ending != nil })?.ending }

    /// A whole segment of the current format: `header` and `records` in order.
    package static func encode(_ header: Header, _ records: [Record]) -> [UInt8] {
        var bytes: [UInt8] = []
        header.encode(into: &bytes)
        var stream = SampleStream()
        for record in records { record.encode(stream: &stream, into: &bytes) }
        return bytes
    }

    package static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    package static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
    }
}
