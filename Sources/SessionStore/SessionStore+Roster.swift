// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB

/// A row of `teams`.
struct TeamRow: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "teams"

    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
    }

    var id: Int64?
    var name: String
    var created: Date

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row of `team_members`.
struct TeamMemberRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "team_members"

    enum CodingKeys: String, CodingKey {
        case teamID = "team_id"
        case athleteID = "athlete_id"
    }

    enum Columns {
        static let teamID = Column(CodingKeys.teamID)
        static let athleteID = Column(CodingKeys.athleteID)
    }

    var teamID: Int64
    var athleteID: Int64
}

/// A team and its members' ids.
public struct Team: Hashable, Sendable {
    /// The row id.
    public var id: Int64
    /// The name (unique).
    public var name: String
    /// When it was added.
    public var created: Date
    /// Its athletes' ids.
    public var athleteIDs: [Int64]

    /// Creates a value.
    public init(id: Int64, name: String, created: Date, athleteIDs: [Int64]) {
        self.id = id
        self.name = name
        self.created = created
        self.athleteIDs = athleteIDs
    }
}

/// What happens to an athlete's sessions when the athlete is removed.
public enum AthleteSessionsOnRemoval: Sendable {
    /// Refuse when the athlete has sessions.
    case refuse
    /// Keep the sessions without an athlete.
    case keep
    /// Delete the sessions with their events, samples and summaries.
    case delete
}

/// A change to an athlete; nil fields stay as they are.
public struct AthleteChange: Hashable, Sendable {
    /// A new name.
    public var name: String?
    /// A new body mass (`.some(nil)` clears it).
    public var massKg: Double??
    /// A new birth year (`.some(nil)` clears it).
    public var birthYear: Int??
    /// A new racket hand (`.some(nil)` clears it).
    public var racketHand: RacketHand??
    /// The teams the athlete is in afterwards, by team id; nil leaves them.
    public var teamIDs: [Int64]?

    /// A change.
    public init(
        name: String? = nil, massKg: Double?? = nil, birthYear: Int?? = nil, racketHand: RacketHand?? = nil,
        teamIDs: [Int64]? = nil
    ) {
        self.name = name
        self.massKg = massKg
        self.birthYear = birthYear
        self.racketHand = racketHand
        self.teamIDs = teamIDs
    }
}

extension SessionStore {
    /// Applies `change` to the athlete `id` in one transaction and returns it as stored.
    public func updateAthlete(id: Int64, _ change: AthleteChange) async throws(StoreError) -> Athlete {
        if let name = change.name, let other = try await athlete(named: name), other.id != id {
            throw StoreError(.invalidArgument, "an athlete named \(name) already exists: choose another name")
        }
        return try await write("changing an athlete") { db in
            guard var row = try AthleteRow.fetchOne(db, key: id) else {
                throw StoreError(.notFound, "no athlete has id \(id): list them with `sportsensorctl athletes list`")
            }
            if let name = change.name { row.name = name }
            if let massKg = change.massKg { row.massKg = massKg }
            if let birthYear = change.birthYear { row.birthYear = birthYear }
            if let racketHand = change.racketHand { row.racketHand = racketHand?.rawValue }
            try row.update(db)
            if let teamIDs = change.teamIDs {
                try TeamMemberRow.filter(TeamMemberRow.Columns.athleteID == id).deleteAll(db)
                for team in Set(teamIDs) { try TeamMemberRow(teamID: team, athleteID: id).insert(db) }
            }
            return row.athlete
        }
    }

    /// Removes an athlete. With sessions, `sessions` decides: `.refuse` throws and changes
    /// nothing, `.keep` keeps them without an athlete, `.delete` deletes them (never a session
    /// still recording). Returns how many sessions were kept or deleted.
    public func removeAthlete(id: Int64, sessions: AthleteSessionsOnRemoval) async throws(StoreError) -> Int {
        let (count, files) = try await write("removing an athlete") { db -> (Int, [String]) in
            guard let row = try AthleteRow.fetchOne(db, key: id) else {
                throw StoreError(.notFound, "no athlete has id \(id): list them with `sportsensorctl athletes list`")
            }
            let count =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions WHERE athlete_id = ?", arguments: [id]) ?? 0
            let open =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM sessions WHERE athlete_id = ? AND ended_at IS NULL", arguments: [id])
                ?? 0
            if open > 0 {
                throw StoreError(
                    .sessionLive,
                    "\(row.name) has a session still recording: stop it first with `sportsensorctl stop`")
            }
            var files: [String] = []
            switch sessions {
            case .refuse where count > 0:
                throw StoreError(
                    .invalidArgument,
                    "\(row.name) has \(count) session(s): remove with --keep-sessions (they stay, without an "
                        + "athlete) or --delete-sessions (they are deleted with their samples)")
            case .delete:
                files = try ChunkRow.files(
                    ofSessions: "SELECT id FROM sessions WHERE athlete_id = ?", arguments: [id], db)
                try db.execute(sql: "DELETE FROM sessions WHERE athlete_id = ?", arguments: [id])
            case .keep, .refuse:
                try db.execute(sql: "UPDATE sessions SET athlete_id = NULL WHERE athlete_id = ?", arguments: [id])
            }
            try db.execute(sql: "UPDATE sensors SET athlete_id = NULL WHERE athlete_id = ?", arguments: [id])
            _ = try AthleteRow.deleteOne(db, key: id)
            return (count, files)
        }
        removeChunkFiles(files)
        return count
    }

    /// Adds a team; the name must be new.
    public func addTeam(name: String, created: Date = Date()) async throws(StoreError) -> Team {
        if try await team(named: name) != nil {
            throw StoreError(.invalidArgument, "a team named \(name) already exists: choose another name")
        }
        return try await write("adding a team") { db in
            var row = TeamRow(id: nil, name: name, created: created)
            try row.insert(db)
            return Team(id: row.id ?? 0, name: name, created: created, athleteIDs: [])
        }
    }

    /// Every team with its members, by name.
    public func teams() async throws(StoreError) -> [Team] {
        try await read("listing teams") { db in
            let members = try TeamMemberRow.fetchAll(db)
            return try TeamRow.order(TeamRow.Columns.name).fetchAll(db).map { row in
                Team(
                    id: row.id ?? 0, name: row.name, created: row.created,
                    athleteIDs: members.filter { $0.teamID == row.id }.map(\.athleteID).sorted())
            }
        }
    }

    /// The team with this exact name.
    public func team(named name: String) async throws(StoreError) -> Team? {
        try await teams().first { $0.name == name }
    }

    /// Renames a team and/or sets its members (nil leaves them).
    public func updateTeam(id: Int64, name: String?, athleteIDs: [Int64]?) async throws(StoreError) -> Team {
        if let name, let other = try await team(named: name), other.id != id {
            throw StoreError(.invalidArgument, "a team named \(name) already exists: choose another name")
        }
        try await write("changing a team") { db in
            guard var row = try TeamRow.fetchOne(db, key: id) else {
                throw StoreError(.notFound, "no team has id \(id): list them with `sportsensorctl teams list`")
            }
            if let name {
                row.name = name
                try row.update(db)
            }
            if let athleteIDs {
                try TeamMemberRow.filter(TeamMemberRow.Columns.teamID == id).deleteAll(db)
                for athlete in Set(athleteIDs) { try TeamMemberRow(teamID: id, athleteID: athlete).insert(db) }
            }
        }
        guard let team = try await teams().first(where: { $0.id == id }) else {
            throw StoreError(.notFound, "no team has id \(id)")
        }
        return team
    }

    /// Removes a team; its athletes and their sessions stay.
    public func removeTeam(id: Int64) async throws(StoreError) {
        try await write("removing a team") { db in
            guard try TeamRow.deleteOne(db, key: id) else {
                throw StoreError(.notFound, "no team has id \(id): list them with `sportsensorctl teams list`")
            }
        }
    }

    /// The ids of the teams each athlete is in.
    public func teamIDsByAthlete() async throws(StoreError) -> [Int64: [Int64]] {
        try await read("listing team members") { db in
            Dictionary(grouping: try TeamMemberRow.fetchAll(db), by: \.athleteID).mapValues {
                $0.map(\.teamID).sorted()
            }
        }
    }
}
