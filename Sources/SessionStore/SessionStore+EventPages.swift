// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB

/// Where a paged read of a session's events continues: after this event in (time, sequence)
/// order.
public struct EventPosition: Hashable, Sendable {
    let t: Double
    let sequence: Int64
}

/// Some of a session's events in time order, and where the next page starts (nil: this was the
/// last).
public struct EventPage: Sendable {
    public var events: [EventRecord]
    public var next: EventPosition?
}

extension SessionStore {
    /// Events one page holds: a few hundred kB as `EventRecord`s.
    public static let eventsPerPage = 1_024

    /// A session's events one page at a time, ordered by time (ties in recording order): pass nil
    /// for the first page, then each page's `next` until it is nil. A download that goes page by
    /// page holds one page, never the whole session. Each page reads the session's tail segments
    /// with its rows (as `events(of:)` does), so a live session's events are met whether they are
    /// still in a segment or already in the database, once each.
    public func eventPage(of id: UUID, after position: EventPosition?) async throws(StoreError) -> EventPage {
        let idText = id.uuidString.lowercased()
        let limit = Self.eventsPerPage
        let (stored, tail) = try await readWithTail("reading events", of: id) { db in
            var request = EventRow.filter(EventRow.Columns.sessionID == idText)
            if let position {
                request = request.filter(
                    sql: "t > ? OR (t = ? AND sequence > ?)",
                    arguments: [position.t, position.t, position.sequence])
            }
            let rows = try request.order(EventRow.Columns.t, EventRow.Columns.sequence).limit(limit + 1).fetchAll(db)
            let last = try Self.storedEnds(of: idText, db).sequence
            return (rows.map { SequencedEvent(sequence: $0.sequence, record: $0.record) }, last)
        }
        let pending = tail.events(after: stored.1).filter { event in
            guard let position else { return true }
            return (event.record.t, event.sequence) > (position.t, position.sequence)
        }
        let merged = (stored.0 + pending).sorted { ($0.record.t, $0.sequence) < ($1.record.t, $1.sequence) }
        let page = merged.prefix(limit)
        let next = merged.count > limit ? page.last.map { EventPosition(t: $0.record.t, sequence: $0.sequence) } : nil
        return EventPage(events: page.map(\.record), next: next)
    }
}
