// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB

/// A row of `events`: one `EventRecord` at its place in its session.
///
/// The columns keep the record's fields under the names schema v1 gave them (`intensity` is
/// `intensity_g`, `catch_t` is `catch`); a step's cadence, which has no column, goes in `extra` as
/// `{"cadence_spm":…}` with the shortest text that reads back as the same `Double`, and the quality
/// flags, which have no column either, go there as `"quality":["clipped",…]`, and so does a hit's
/// side, `"side":"forehand"` (rows written before them have none and read back without). So a
/// record reads back exactly as it was written.
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
            cadenceSpm: extra.flatMap { EventExtra.number(EventExtra.cadenceKey, in: $0) },
            quality: extra.flatMap { EventExtra.texts(EventExtra.qualityKey, in: $0) },
            side: extra.flatMap { EventExtra.text(EventExtra.sideKey, in: $0) })
    }

    /// The columns `insert` writes, in the order of `databaseValues`.
    static let columnNames = [
        "session_id", "sequence", "type", "t", "peak_g", "intensity", "takeoff", "landing", "flight_s", "height_m",
        "release", "catch_t", "saturated", "extra",
    ]

    /// The row's values in `columnNames` order: the table's and the tail segments' one mapping of
    /// a record to columns.
    var databaseValues: [DatabaseValue] {
        [
            sessionID.databaseValue, sequence.databaseValue, record.type.databaseValue, record.t.databaseValue,
            record.peakG.databaseValue, record.intensityG.databaseValue, record.takeoff.databaseValue,
            record.landing.databaseValue, record.flightS.databaseValue, record.heightM.databaseValue,
            record.release.databaseValue, record.catch.databaseValue, record.saturated.databaseValue,
            EventExtra.column(cadence: record.cadenceSpm, quality: record.quality, side: record.side).databaseValue,
        ]
    }

    /// True when `values` (in `columnNames` order) have the kinds the columns hold: integer
    /// sequence, text type, numbers or null, text or null `extra`. A row built from others would
    /// trap when read.
    static func accepts(_ values: [DatabaseValue]) -> Bool {
        guard values.count == columnNames.count else { return false }
        func isNumber(_ value: DatabaseValue, orNull: Bool) -> Bool {
            switch value.storage {
            case .int64, .double: true
            case .null: orNull
            default: false
            }
        }
        guard case .string = values[0].storage, case .int64 = values[1].storage, case .string = values[2].storage,
            isNumber(values[3], orNull: false)
        else { return false }
        switch values[13].storage {
        case .null, .string: return values[4..<13].allSatisfy { isNumber($0, orNull: true) }
        default: return false
        }
    }

    /// The row from values in `columnNames` order (as `databaseValues` gives them; check them with
    /// `accepts` first).
    init(values: [DatabaseValue]) {
        var columns: [String: (any DatabaseValueConvertible)?] = [:]
        for (name, value) in zip(Self.columnNames, values) { columns[name] = value }
        self.init(row: Row(columns))
    }

    /// Inserts the row through one cached statement: it runs for every event of a live session.
    func insert(_ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO events (\(Self.columnNames.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: Self.columnNames.count).joined(separator: ", ") + ")")
        try statement.execute(arguments: StatementArguments(databaseValues))
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
    /// A session's events in recording order: the stored ones, then those still in its tail
    /// segments.
    public func events(of id: UUID) async throws(StoreError) -> [EventRecord] {
        let idText = id.uuidString.lowercased()
        let (stored, tail) = try await readWithTail("reading events", of: id) { db in
            try EventRow.filter(EventRow.Columns.sessionID == idText).order(EventRow.Columns.sequence).fetchAll(db)
        }
        return stored.map(\.record) + tail.events(after: stored.last?.sequence).map(\.record)
    }

    /// How many events of each type a session holds, its unsealed tail's included: counted by the
    /// database, so a listing of sessions does not read every event of every session.
    public func eventCounts(of id: UUID) async throws(StoreError) -> [String: Int] {
        let idText = id.uuidString.lowercased()
        // Per type: how many, and the last sequence, whose largest is where the tail's events begin.
        let (rows, tail) = try await readWithTail("counting events", of: id) { db in
            try Row.fetchAll(
                db,
                EventRow.filter(EventRow.Columns.sessionID == idText)
                    .select(EventRow.Columns.type, count(EventRow.Columns.sequence), max(EventRow.Columns.sequence))
                    .group(EventRow.Columns.type)
            ).map { row -> (type: String, count: Int, last: Int64) in (row[0], row[1], row[2]) }
        }
        var counts = Dictionary(rows.map { ($0.type, $0.count) }, uniquingKeysWith: +)
        for event in tail.events(after: rows.map(\.last).max()) { counts[event.record.type, default: 0] += 1 }
        return counts
    }
}

/// The flat JSON objects in `events.extra`: the record's fields that have no column of their own.
///
/// Numbers are written in Swift's shortest round-trip form, so they read back as the same
/// `Double`; a value that is not finite is written as `null` and reads back as NaN. Texts (flags,
/// a side) are plain words: no escapes are written or read.
enum EventExtra {
    /// The key of a step's cadence, as the event record names it.
    static let cadenceKey = "cadence_spm"
    /// The key of the quality flags, as the event record names it.
    static let qualityKey = "quality"
    /// The key of a hit's side, as the event record names it.
    static let sideKey = "side"

    /// The `extra` text of a record: its cadence, quality flags and side, nil when it has none.
    static func column(cadence: Double?, quality: [String]?, side: String? = nil) -> String? {
        let flags = quality.flatMap { $0.isEmpty ? nil : $0 }
        guard cadence != nil || flags != nil || side != nil else { return nil }
        var text = cadence.map { String(object([(cadenceKey, $0)]).dropLast()) } ?? "{"
        if let flags {
            if text.count > 1 { text += "," }
            text += "\"\(qualityKey)\":[" + flags.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        }
        if let side {
            if text.count > 1 { text += "," }
            text += "\"\(sideKey)\":\"\(side)\""
        }
        return text + "}"
    }

    /// The string stored under `key` in a flat object, nil when the key is missing or its value is
    /// not a string.
    static func text(_ key: String, in object: String) -> String? {
        guard let keyRange = object.firstRange(of: "\"\(key)\"") else { return nil }
        let rest = object[keyRange.upperBound...].drop { $0 == " " || $0 == ":" || $0 == "\t" || $0 == "\n" }
        guard rest.first == "\"" else { return nil }
        let body = rest.dropFirst()
        guard let close = body.firstIndex(of: "\"") else { return nil }
        return String(body[..<close])
    }

    /// The strings of the array stored under `key` in a flat object, nil when the key is missing or
    /// its array is empty. Flags are plain words, so no escapes need reading.
    static func texts(_ key: String, in object: String) -> [String]? {
        guard let keyRange = object.firstRange(of: "\"\(key)\"") else { return nil }
        let rest = object[keyRange.upperBound...].drop { $0 == " " || $0 == ":" || $0 == "\t" || $0 == "\n" }
        guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return nil }
        let words = rest[rest.index(after: rest.startIndex)..<close].split(separator: ",").map {
            String($0.filter { $0 != "\"" && $0 != " " && $0 != "\n" && $0 != "\t" })
        }.filter { !$0.isEmpty }
        return words.isEmpty ? nil : words
    }

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
