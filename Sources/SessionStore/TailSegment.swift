// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB

/// An event with its place in its session.
struct SequencedEvent: Hashable, Sendable {
    /// 0-based, gap-free order of recording within the session.
    var sequence: Int64
    /// The event.
    var record: EventRecord
}

/// A tail segment: the rows of a session's open chunk that are not in the database yet, as the
/// recorder appended them, one record per flush (Docs/FORMATS.md, "Tail segments"). Pure: bytes
/// in, values out.
///
/// A file is its header and then records, each framed by its payload's length and CRC-32. A crash
/// or a full disk can tear the last record; reading stops at the first record that is incomplete,
/// fails its checksum or is out of order, and `validLength` says where the next append goes.
struct TailSegment: Hashable, Sendable {
    typealias DecodeError = SampleChunkCodec.DecodeError

    /// "SSTS": sportsensord tail segment.
    static let magic: [UInt8] = [0x53, 0x53, 0x54, 0x53]
    /// The format version written in the header: 3, whose records' samples continue one coder
    /// (`SampleStream`) flushed in as few bytes as decode. Version 2 (the same with each record's
    /// range code flushed in full) and version 1 (each record's samples a chunk BLOB of their own)
    /// are still read.
    static let version: UInt8 = 3
    /// The versions this build reads.
    static let readableVersions: ClosedRange<UInt8> = 1...3
    /// Bytes of the header: magic, version, session id (16), chunk number (8, little-endian).
    static let headerLength = 29
    /// Bytes before a record's payload: its length and its checksum (4 each, little-endian).
    static let frameLength = 8
    /// A record larger than this is damage, not a flush.
    static let maxPayload = 64 << 20

    /// Whose rows the segment holds.
    struct Header: Hashable, Sendable {
        /// The session.
        var session: UUID
        /// The chunk these samples will become.
        var chunk: Int64
        /// The segment's format version (only `TailSegment.version` is written).
        var version: UInt8 = TailSegment.version

        init(session: UUID, chunk: Int64) {
            self.session = session
            self.chunk = chunk
        }

        init(parsing bytes: [UInt8]) throws(DecodeError) {
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

        func encode(into out: inout [UInt8]) {
            out += TailSegment.magic
            out.append(TailSegment.version)
            withUnsafeBytes(of: session.uuid) { out += $0 }
            let number = UInt64(bitPattern: chunk)
            for offset in 0..<8 { out.append(UInt8(truncatingIfNeeded: number >> UInt64(8 * offset))) }
        }
    }

    /// How a session ended, when the database could not take it (disk full): the end goes into
    /// the segment with the last rows, and crash recovery writes it.
    struct Ending: Hashable, Sendable {
        var endedAt: Date
        var reason: SessionEndReason
        /// Samples the session received that neither the database nor this file holds (a note
        /// written when even the spill failed), plus those the recorder's full buffer dropped.
        var unsavedSamples: Int64 = 0
    }

    /// One flush's rows.
    struct Record: Hashable, Sendable {
        /// 0-based position in the segment (a stale record past a torn one cannot pass as the next).
        var ordinal: Int64
        /// Samples, in recording order.
        var samples: [StoredSample]
        /// Events, in sequence order.
        var events: [SequencedEvent]
        /// The session's counters when written, if they changed.
        var counts: SessionCounts?
        /// How the session ended, in a record spilled because the database could not take the
        /// end: crash recovery closes the session so instead of as `interrupted`.
        var ending: Ending?

        init(
            ordinal: Int64, samples: [StoredSample], events: [SequencedEvent], counts: SessionCounts?,
            ending: Ending? = nil
        ) {
            self.ordinal = ordinal
            self.samples = samples
            self.events = events
            self.counts = counts
            self.ending = ending
        }

        /// Reads a payload (without its frame) of a segment of format `version`; from version 2 on
        /// its samples continue `stream`. Events are decoded through `EventRow`, as the table holds them.
        /// Without `decodingSamples` the samples are skipped (`samples` is empty, `stream` untouched).
        init(
            parsing payload: [UInt8], session: UUID, version: UInt8, stream: inout SampleStream,
            decodingSamples: Bool = true
        ) throws(DecodeError) {
            var cursor = 0
            ordinal = Int64(bitPattern: try SampleChunkCodec.readVarint(payload, &cursor))
            let blobLength = Int(clamping: try SampleChunkCodec.readVarint(payload, &cursor))
            guard blobLength <= payload.count - cursor else {
                throw DecodeError(code: .truncated, message: "tail record ends inside its samples")
            }
            let section = Array(payload[cursor..<cursor + blobLength])
            if blobLength == 0 || !decodingSamples {
                samples = []
            } else if version == 1 {
                samples = try SampleChunkCodec.decode(section)
            } else {
                samples = try stream.decode(section, trimmed: version >= 3)
            }
            cursor += blobLength
            let eventCount = Int(clamping: try SampleChunkCodec.readVarint(payload, &cursor))
            guard eventCount <= payload.count - cursor else {
                throw DecodeError(code: .malformed, message: "tail record announces more events than it holds")
            }
            let sessionValue = session.uuidString.lowercased().databaseValue
            events = []
            for _ in 0..<eventCount {
                var values = [sessionValue]
                for _ in 1..<EventRow.columnNames.count { values.append(try Self.readValue(payload, &cursor)) }
                guard EventRow.accepts(values) else {
                    throw DecodeError(code: .malformed, message: "tail record holds an event of the wrong shape")
                }
                let row = EventRow(values: values)
                events.append(SequencedEvent(sequence: row.sequence, record: row.record))
            }
            guard cursor < payload.count else {
                throw DecodeError(code: .truncated, message: "tail record ends before its counters")
            }
            let flags = payload[cursor]
            cursor += 1
            guard flags & ~15 == 0 else {
                throw DecodeError(code: .malformed, message: "tail record has unknown flags \(flags)")
            }
            if flags & 1 == 1 {
                var counts = SessionCounts(
                    received: SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(payload, &cursor)),
                    lost: SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(payload, &cursor)),
                    malformed: SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(payload, &cursor)))
                if flags & 2 == 2 { counts.sampleRate = try SampleChunkCodec.readDouble(payload, &cursor) }
                self.counts = counts
            } else {
                counts = nil
            }
            ending = nil
            if flags & 4 == 4 {
                let endedAt = Date(timeIntervalSince1970: try SampleChunkCodec.readDouble(payload, &cursor))
                let length = Int(clamping: try SampleChunkCodec.readVarint(payload, &cursor))
                guard length <= payload.count - cursor else {
                    throw DecodeError(code: .truncated, message: "tail record ends in its end reason")
                }
                let reason = String(decoding: payload[cursor..<cursor + length], as: UTF8.self)
                cursor += length
                ending = Ending(endedAt: endedAt, reason: SessionEndReason(rawValue: reason))
                if flags & 8 == 8 {
                    ending?.unsavedSamples = SampleChunkCodec.unzigzag(
                        try SampleChunkCodec.readVarint(payload, &cursor))
                }
            } else if flags & 8 == 8 {
                throw DecodeError(code: .malformed, message: "tail record counts unsaved samples without an end")
            }
            guard cursor == payload.count else {
                throw DecodeError(code: .malformed, message: "tail record has bytes after its counters")
            }
        }

        /// Appends the framed record in format 3, its samples continuing `stream`: length, CRC-32
        /// and payload.
        func encode(session: UUID, stream: inout SampleStream, into out: inout [UInt8]) {
            var payload: [UInt8] = []
            SampleChunkCodec.appendVarint(UInt64(bitPattern: ordinal), to: &payload)
            var blob: [UInt8] = []
            if !samples.isEmpty { stream.encode(samples, into: &blob) }
            SampleChunkCodec.appendVarint(UInt64(blob.count), to: &payload)
            payload += blob
            SampleChunkCodec.appendVarint(UInt64(events.count), to: &payload)
            let idText = session.uuidString.lowercased()
            for event in events {
                let values = EventRow(sessionID: idText, sequence: event.sequence, record: event.record).databaseValues
                for value in values.dropFirst() { Self.appendValue(value, to: &payload) }
            }
            let endingFlag: UInt8 = ending.map { $0.unsavedSamples == 0 ? 4 : 12 } ?? 0
            if let counts {
                payload.append((counts.sampleRate == nil ? 1 : 3) | endingFlag)
                for value in [counts.received, counts.lost, counts.malformed] {
                    SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(value), to: &payload)
                }
                if let rate = counts.sampleRate { SampleChunkCodec.appendDouble(rate, to: &payload) }
            } else {
                payload.append(endingFlag)
            }
            if let ending {
                SampleChunkCodec.appendDouble(ending.endedAt.timeIntervalSince1970, to: &payload)
                let reason = Array(ending.reason.rawValue.utf8)
                SampleChunkCodec.appendVarint(UInt64(reason.count), to: &payload)
                payload += reason
                if ending.unsavedSamples != 0 {
                    SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(ending.unsavedSamples), to: &payload)
                }
            }
            TailSegment.appendUInt32(UInt32(payload.count), to: &out)
            TailSegment.appendUInt32(CRC32.checksum(payload), to: &out)
            out += payload
        }

        /// A column value: a tag (0 null, 1 integer, 2 real, 3 text, 4 blob), then the value.
        static func appendValue(_ value: DatabaseValue, to out: inout [UInt8]) {
            switch value.storage {
            case .null:
                out.append(0)
            case .int64(let number):
                out.append(1)
                SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(number), to: &out)
            case .double(let number):
                out.append(2)
                SampleChunkCodec.appendDouble(number, to: &out)
            case .string(let text):
                out.append(3)
                let bytes = Array(text.utf8)
                SampleChunkCodec.appendVarint(UInt64(bytes.count), to: &out)
                out += bytes
            case .blob(let data):
                out.append(4)
                SampleChunkCodec.appendVarint(UInt64(data.count), to: &out)
                out += data
            }
        }

        static func readValue(_ bytes: [UInt8], _ cursor: inout Int) throws(DecodeError) -> DatabaseValue {
            guard cursor < bytes.count else {
                throw DecodeError(code: .truncated, message: "tail record ends in an event")
            }
            let tag = bytes[cursor]
            cursor += 1
            switch tag {
            case 0:
                return .null
            case 1:
                return SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(bytes, &cursor)).databaseValue
            case 2:
                return try SampleChunkCodec.readDouble(bytes, &cursor).databaseValue
            case 3, 4:
                let length = Int(clamping: try SampleChunkCodec.readVarint(bytes, &cursor))
                guard length <= bytes.count - cursor else {
                    throw DecodeError(code: .truncated, message: "tail record ends in an event's text")
                }
                let content = Array(bytes[cursor..<cursor + length])
                cursor += length
                return tag == 3 ? String(decoding: content, as: UTF8.self).databaseValue : Data(content).databaseValue
            default:
                throw DecodeError(code: .malformed, message: "unknown value tag \(tag) in a tail record")
            }
        }
    }

    /// Whose rows these are.
    var header: Header
    /// The whole, valid records, in order.
    var records: [Record]
    /// Bytes up to the end of the last valid record: where the next append goes.
    var validLength: Int
    /// The samples' coder after the last valid record (formats 2 and 3): where the next append continues.
    var stream: SampleStream

    /// Reads a whole file. Throws only when the header is unusable; a torn or damaged record ends
    /// the segment there. Without `decodingSamples` the records' samples are skipped, not decoded
    /// (what a compaction reading back the segment's events needs), and `stream` is not the coder's.
    init(parsing bytes: [UInt8], decodingSamples: Bool = true) throws(DecodeError) {
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
                    parsing: payload, session: header.session, version: header.version, stream: &next,
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
    var samples: [StoredSample] { records.flatMap(\.samples) }
    /// The count, first and last of those samples, without gathering them.
    var extent: ChunkExtent {
        records.reduce(into: ChunkExtent()) { $0.append(contentsOf: $1.samples) }
    }
    /// The events of every record, in order.
    var events: [SequencedEvent] { records.flatMap(\.events) }
    /// The counters of the last record that carried them.
    var counts: SessionCounts? { records.last(where: { $0.counts != nil })?.counts }
    /// The session's end, when a record spilled it.
    var ending: Ending? { records.last(where: { $0.ending != nil })?.ending }

    /// A whole segment of the current format: `header` and `records` in order.
    static func encode(_ header: Header, _ records: [Record]) -> [UInt8] {
        var bytes: [UInt8] = []
        header.encode(into: &bytes)
        var stream = SampleStream()
        for record in records { record.encode(session: header.session, stream: &stream, into: &bytes) }
        return bytes
    }

    static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
    }
}

/// A tail segment file's samples as bytes in, values out, for tools and the fuzzer (Docs/FORMATS.md,
/// "Tail segments"): the store itself reads segments through `TailSegment`.
public enum TailSegmentFile {
    /// The samples of each whole record of a segment file in any readable version, in order.
    /// Throws when the header is unusable; a torn or damaged record ends the file there.
    public static func records(parsing bytes: [UInt8]) throws(SampleChunkCodec.DecodeError) -> [[StoredSample]] {
        try TailSegment(parsing: bytes).records.map(\.samples)
    }

    /// A segment file in the current format holding one record per element of `records`.
    public static func encode(session: UUID, chunk: Int64, records: [[StoredSample]]) -> [UInt8] {
        TailSegment.encode(
            TailSegment.Header(session: session, chunk: chunk),
            records.enumerated().map { ordinal, samples in
                TailSegment.Record(ordinal: Int64(ordinal), samples: samples, events: [], counts: nil)
            })
    }
}
