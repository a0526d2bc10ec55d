// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// An event as tail segment records carry it. The store owns the columns (its `events` rows after
/// the session id, which the segment's header holds instead); the format only frames them, so it
/// builds without the database.
package protocol TailSegmentEvent: Hashable, Sendable {
    /// The event's columns in the order the record stores them (`TailSegment.eventColumns`).
    var segmentValues: [ColumnValue] { get }
    /// The event read back from its columns; nil when their kinds do not fit, which makes the
    /// record damaged.
    init?(segmentValues: [ColumnValue])
}

/// What the segment file tools and the fuzzer read events as: their columns, unchecked.
package struct SegmentEventColumns: TailSegmentEvent {
    /// The columns.
    package var values: [ColumnValue]

    package var segmentValues: [ColumnValue] { values }

    package init(segmentValues: [ColumnValue]) { values = segmentValues }
}

extension ColumnValue {
    /// Appends the value: a tag (0 null, 1 integer, 2 real, 3 text, 4 blob), then its bytes.
    func encode(into out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(0)
        case .integer(let number):
            out.append(1)
            SampleChunkCodec.appendVarint(SampleChunkCodec.zigzag(number), to: &out)
        case .real(let number):
            out.append(2)
            SampleChunkCodec.appendDouble(number, to: &out)
        case .text(let text):
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

    /// Reads a value at `cursor` and moves past it.
    init(parsing bytes: [UInt8], _ cursor: inout Int) throws(SampleChunkCodec.DecodeError) {
        guard cursor < bytes.count else {
            throw SampleChunkCodec.DecodeError(code: .truncated, message: "tail record ends in an event")
        }
        let tag = bytes[cursor]
        cursor += 1
        switch tag {
        case 0:
            self = .null
        case 1:
            self = .integer(SampleChunkCodec.unzigzag(try SampleChunkCodec.readVarint(bytes, &cursor)))
        case 2:
            self = .real(try SampleChunkCodec.readDouble(bytes, &cursor))
        case 3, 4:
            let length = Int(clamping: try SampleChunkCodec.readVarint(bytes, &cursor))
            guard length <= bytes.count - cursor else {
                throw SampleChunkCodec.DecodeError(code: .truncated, message: "tail record ends in an event's text")
            }
            let content = Array(bytes[cursor..<cursor + length])
            cursor += length
            self = tag == 3 ? .text(String(decoding: content, as: UTF8.self)) : .blob(content)
        default:
            throw SampleChunkCodec.DecodeError(code: .malformed, message: "unknown value tag \(tag) in a tail record")
        }
    }
}
