// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Detection
import Foundation
import GRDB

/// A row of `athletes`. Times are Unix seconds (REAL), as in every table.
struct AthleteRow: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "athletes"

    enum CodingKeys: String, CodingKey {
        case id, name, created
        case massKg = "mass_kg"
        case birthYear = "birth_year"
        case racketHand = "racket_hand"
    }

    /// The columns.
    enum Columns {
        static let id = Column(CodingKeys.id)
        static let name = Column(CodingKeys.name)
        static let created = Column(CodingKeys.created)
    }

    var id: Int64?
    var name: String
    var created: Date
    var massKg: Double?
    var birthYear: Int?
    /// `left` or `right` (schema v8); nil when unknown.
    var racketHand: String?

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    var athlete: Athlete {
        Athlete(
            id: id ?? 0, name: name, created: created, massKg: massKg, birthYear: birthYear,
            racketHand: racketHand.flatMap(RacketHand.init(rawValue:)))
    }
}

/// A row of `sensors`: every sensor paired or recorded from, keyed by its address text.
struct SensorRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sensors"

    enum CodingKeys: String, CodingKey {
        case address
        case addressType = "address_type"
        case advertisedName = "advertised_name"
        case alias
        case athleteID = "athlete_id"
        case lastSeen = "last_seen"
        case paired
    }

    /// The columns.
    enum Columns {
        static let address = Column(CodingKeys.address)
        static let addressType = Column(CodingKeys.addressType)
    }

    var address: String
    /// `public` or `random`.
    var addressType: String
    var advertisedName: String?
    var alias: String?
    var athleteID: Int64?
    var lastSeen: Date?
    var paired: Bool

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }

    init(_ sensor: SensorRecord) {
        address = sensor.address.description
        addressType = sensor.address.kind.description
        advertisedName = sensor.advertisedName
        alias = sensor.alias
        athleteID = sensor.athleteID
        lastSeen = sensor.lastSeen
        paired = sensor.paired
    }

    /// The address's kind as stored.
    static func kind(_ text: String?) -> BluetoothAddress.Kind { text == "random" ? .random : .public }

    /// The sensor; nil for an address this build cannot parse.
    var record: SensorRecord? {
        guard let parsed = BluetoothAddress(string: address, kind: Self.kind(addressType)) else { return nil }
        return SensorRecord(
            address: parsed, advertisedName: advertisedName, alias: alias, athleteID: athleteID, lastSeen: lastSeen,
            paired: paired)
    }
}

extension SessionStore {
    /// Adds an athlete; the name must be new.
    public func addAthlete(name: String, created: Date = Date()) async throws(StoreError) -> Athlete {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw StoreError(.invalidArgument, "an athlete needs a name") }
        if try await athlete(named: trimmed) != nil {
            throw StoreError(.invalidArgument, "an athlete named \(trimmed) already exists: choose another name")
        }
        return try await write("adding an athlete") { db in
            var row = AthleteRow(id: nil, name: trimmed, created: created)
            try row.insert(db)
            return row.athlete
        }
    }

    /// Every athlete, by name.
    public func athletes() async throws(StoreError) -> [Athlete] {
        try await read("listing athletes") { db in
            try AthleteRow.order(AthleteRow.Columns.name).fetchAll(db).map(\.athlete)
        }
    }

    /// The athlete with this exact name.
    public func athlete(named name: String) async throws(StoreError) -> Athlete? {
        try await read("finding an athlete") { db in
            try AthleteRow.filter(AthleteRow.Columns.name == name).fetchOne(db)?.athlete
        }
    }

    /// The athlete with this row id.
    public func athlete(id: Int64) async throws(StoreError) -> Athlete? {
        try await read("finding an athlete") { db in try AthleteRow.fetchOne(db, key: id)?.athlete }
    }

    /// Inserts or updates a sensor by address.
    public func saveSensor(_ sensor: SensorRecord) async throws(StoreError) {
        try await write("saving a sensor") { db in try SensorRow(sensor).upsert(db) }
    }

    /// Every known sensor, by address.
    public func sensors() async throws(StoreError) -> [SensorRecord] {
        try await read("listing sensors") { db in
            try SensorRow.order(SensorRow.Columns.address).fetchAll(db).compactMap(\.record)
        }
    }
}
