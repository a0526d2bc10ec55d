// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB

/// A row of `events`: one `EventRecord` at its place in its session.
///
/// The columns keep the record's fields under the names schema v1 gave them (`intensity` is
/// `intensity_g`, `catch_t` is `catch`); a step's cadence, which has no column, goes in `extra` as
/// `{"cadence_spm":…}` with the shortest text that reads back as the same `Double`. So a record
/// reads back exactly as it was written.
struct EventRow: FetchableRecord, TableRecord {
    static let databaseTableName = "events"

    /// The columns.
    enum Columns {
        static let sessionID = Column("session_id")
        static let sequence = Column("sequence")
        static let type = Column("type")
        static let t = Column("t")
        static let peakG = Column("peak_g")
        static let intensity = Column("intensity")
        static let takeoff = Column("takeoff")
        static let landing = Column("landing")
        static let flightS = Column("flight_s")
        static let heightM = Column("height_m")
        static let release = Column("release")
        static let catchTime = Column("catch_t")
        static let saturated = Column("saturated")
        static let extra = Column("extra")
    }

    /// The session's id as stored (lower-case UUID text).
    var sessionID: String
    /// 0-based, gap-free order of recording within the session.
    var sequence: Int64
    /// The event.
    var record: EventRecord

    init(sessionID: String, sequence: Int64, record: EventRecord) {
        self.sessionID = sessionID
        self.sequence = sequence
        self.record = record
    }

    init(row: Row) {
        sessionID = row[Columns.sessionID]
        sequence = row[Columns.sequence]
        let extra: String? = row[Columns.extra]
        record = EventRecord(
            type: row[Columns.type], t: row[Columns.t], peakG: row[Columns.peakG], saturated: row[Columns.saturated],
            intensityG: row[Columns.intensity], takeoff: row[Columns.takeoff], landing: row[Columns.landing],
            release: row[Columns.release], catch: row[Columns.catchTime], flightS: row[Columns.flightS],
            heightM: row[Columns.heightM],
            cadenceSpm: extra.flatMap { EventExtra.number(EventExtra.cadenceKey, in: $0) })
    }

    /// Inserts the row through one cached statement: it runs for every event of a live session.
    func insert(_ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO events (session_id, sequence, type, t, peak_g, intensity, takeoff, landing, flight_s,
                    height_m, release, catch_t, saturated, extra)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        try statement.execute(arguments: [
            sessionID, sequence, record.type, record.t, record.peakG, record.intensityG, record.takeoff,
            record.landing, record.flightS, record.heightM, record.release, record.catch, record.saturated,
            record.cadenceSpm.map { EventExtra.object([(EventExtra.cadenceKey, $0)]) },
        ])
    }
}

extension EventRow {
    /// Inserts `events` as session `session`'s, numbered from 0 in order.
    static func insert(_ events: [EventRecord], session: String, _ db: Database) throws {
        for (sequence, event) in events.enumerated() {
            try EventRow(sessionID: session, sequence: Int64(sequence), record: event).insert(db)
        }
    }
}

extension SessionStore {
    /// A session's events in recording order.
    public func events(of id: UUID) async throws(StoreError) -> [EventRecord] {
        let idText = id.uuidString.lowercased()
        return try await read("reading events") { db in
            try EventRow.filter(EventRow.Columns.sessionID == idText).order(EventRow.Columns.sequence).fetchAll(db)
                .map(\.record)
        }
    }
}

/// The flat JSON objects of numbers in `events.extra`.
///
/// Numbers are written in Swift's shortest round-trip form, so they read back as the same
/// `Double`; a value that is not finite is written as `null` and reads back as NaN.
enum EventExtra {
    /// The key of a step's cadence, as the event record names it.
    static let cadenceKey = "cadence_spm"

    /// `{"key":number,…}` in the given order.
    static func object(_ fields: [(String, Double)]) -> String {
        let members = fields.map { key, value in "\"\(key)\":" + (value.isFinite ? "\(value)" : "null") }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The number stored under `key` in a flat object, nil when the key is missing or its value is
    /// not a number (`null` gives NaN).
    static func number(_ key: String, in object: String) -> Double? {
        let marker = "\"\(key)\""
        guard let keyRange = object.firstRange(of: marker) else { return nil }
        var rest = object[keyRange.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        let text = rest.prefix { $0 != "," && $0 != "}" && $0 != " " && $0 != "\n" }
        if text == "null" { return .nan }
        return Double(text)
    }
}
