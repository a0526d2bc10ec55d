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
    /// through `EventRow`'s one mapping.
    func segmentValues(session: UUID) -> [SegmentValue] {
        EventRow(sessionID: session.uuidString.lowercased(), sequence: sequence, record: record).databaseValues
            .dropFirst().map(SegmentValue.init)
    }

    init?(segmentValues: [SegmentValue], session: UUID) {
        let values = [session.uuidString.lowercased().databaseValue] + segmentValues.map(\.databaseValue)
        guard EventRow.accepts(values) else { return nil }
        let row = EventRow(values: values)
        self.init(sequence: row.sequence, record: row.record)
    }
}

extension SegmentValue {
    /// The value a column of the table holds.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(Array(data))
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}
