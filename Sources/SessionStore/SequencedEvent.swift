// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import StoreFormats

/// An event with its place in its session.
struct SequencedEvent: Hashable, Sendable {
    /// 0-based, gap-free order of recording within the session.
    var sequence: Int64
    /// The event.
    var record: EventRecord
}

/// The store's tail segments: their events are `events` rows.
typealias SessionTailSegment = TailSegment<SequencedEvent>

extension SequencedEvent: TailSegmentEvent {
    /// The row's values after the session id: a segment holds the same columns as the table,
    /// through `EventRow`'s one mapping. The segment's header names the session, so the row's id
    /// column is only a placeholder here, never written or read.
    var segmentValues: [ColumnValue] {
        EventRow(sessionID: "", sequence: sequence, record: record).databaseValues.dropFirst().map(ColumnValue.init)
    }

    init?(segmentValues: [ColumnValue]) {
        let values = ["".databaseValue] + segmentValues.map(\.databaseValue)
        guard EventRow.accepts(values) else { return nil }
        let row = EventRow(values: values)
        self.init(sequence: row.sequence, record: row.record)
    }
}
