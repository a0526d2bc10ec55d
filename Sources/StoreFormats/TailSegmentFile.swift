// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SDUSensor

/// A tail segment file's records as bytes in, values out, for tools and the fuzzer (Docs/FORMATS.md,
/// "Tail segments"): the store itself reads segments through `TailSegment`, whose events are its
/// `events` rows.
public enum TailSegmentFile {
    /// One whole record: its samples and its events' columns (`sequence` … `extra`), unchecked.
    public struct Record: Sendable {
        /// The samples, in recording order.
        public var samples: [IndexedSample]
        /// Each event's columns, as many as the format has.
        public var events: [[ColumnValue]]

        /// A record of `samples` and `events`.
        public init(samples: [IndexedSample], events: [[ColumnValue]] = []) {
            self.samples = samples
            self.events = events
        }
    }

    /// Columns per event.
    public static var eventColumns: Int { TailSegment<SegmentEventColumns>.eventColumns }

    /// Each whole record of a segment file in any readable version, in order. Throws when the
    /// header is unusable; a torn or damaged record ends the file there.
    public static func records(parsing bytes: [UInt8]) throws(SampleChunkCodec.DecodeError) -> [Record] {
        try TailSegment<SegmentEventColumns>(parsing: bytes).records.map {
            Record(samples: $0.samples, events: $0.events.map(\.values))
        }
    }

    /// A segment file in the current format holding `records` in order (each event with
    /// `eventColumns` values).
    public static func encode(session: UUID, chunk: Int64, records: [Record]) -> [UInt8] {
        TailSegment<SegmentEventColumns>.encode(
            .init(session: session, chunk: chunk),
            records.enumerated().map { ordinal, record in
                precondition(
                    record.events.allSatisfy { $0.count == eventColumns }, "an event needs \(eventColumns) columns")
                return .init(
                    ordinal: Int64(ordinal), samples: record.samples,
                    events: record.events.map { SegmentEventColumns(segmentValues: $0) },
                    counts: nil)
            })
    }
}
