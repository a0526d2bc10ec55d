// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// An athlete of the roster (`GET /v1/athletes`).
public struct AthleteInfo: Codable, Hashable, Sendable {
    /// The row id.
    public var id: Int64
    /// The name, unique.
    public var name: String
    /// Body mass, kg; nil when unknown (then a summary's kcal is null).
    public var massKg: Double?
    /// Year of birth.
    public var birthYear: Int?
    /// The hand holding the racket, `left` or `right` (`RacketHand`); nil when unknown. Kept for
    /// telling a table-tennis stroke's side, which no detector does yet.
    public var racketHand: String?
    /// The teams' names, sorted.
    public var teams: [String]
    /// How many sessions the store keeps of the athlete.
    public var sessions: Int

    /// Creates athlete information.
    public init(
        id: Int64, name: String, massKg: Double?, birthYear: Int?, racketHand: String? = nil, teams: [String],
        sessions: Int
    ) {
        self.id = id
        self.name = name
        self.massKg = massKg
        self.birthYear = birthYear
        self.racketHand = racketHand
        self.teams = teams
        self.sessions = sessions
    }
}

/// `POST /v1/athletes` and `PATCH /v1/athletes/{athlete}`: absent fields stay (for a PATCH); a
/// `mass_kg` or `birth_year` of 0 clears it, and so does a `racket_hand` of "".
public struct AthleteRequest: Codable, Hashable, Sendable {
    /// The name (required to add).
    public var name: String?
    /// Body mass, kg (0 < mass < 500; 0 clears).
    public var massKg: Double?
    /// Year of birth (1900 to this year; 0 clears).
    public var birthYear: Int?
    /// The racket hand, `left` or `right` ("" clears).
    public var racketHand: String?
    /// The teams, by name, the athlete is in afterwards (replacing the old list).
    public var teams: [String]?

    /// Creates a request.
    public init(
        name: String? = nil, massKg: Double? = nil, birthYear: Int? = nil, racketHand: String? = nil,
        teams: [String]? = nil
    ) {
        self.name = name
        self.massKg = massKg
        self.birthYear = birthYear
        self.racketHand = racketHand
        self.teams = teams
    }
}

/// The answer to `DELETE /v1/athletes/{athlete}?sessions=keep|delete`.
public struct AthleteRemoval: Codable, Hashable, Sendable {
    /// The athlete removed.
    public var athlete: String
    /// Sessions kept without an athlete.
    public var sessionsKept: Int
    /// Sessions deleted.
    public var sessionsDeleted: Int

    /// Creates a removal report.
    public init(athlete: String, sessionsKept: Int, sessionsDeleted: Int) {
        self.athlete = athlete
        self.sessionsKept = sessionsKept
        self.sessionsDeleted = sessionsDeleted
    }
}

/// A team (`GET /v1/teams`).
public struct TeamInfo: Codable, Hashable, Sendable {
    /// The row id.
    public var id: Int64
    /// The name, unique.
    public var name: String
    /// The athletes' names, sorted.
    public var athletes: [String]

    /// Creates team information.
    public init(id: Int64, name: String, athletes: [String]) {
        self.id = id
        self.name = name
        self.athletes = athletes
    }
}

/// `POST /v1/teams` and `PATCH /v1/teams/{team}`: absent fields stay.
public struct TeamRequest: Codable, Hashable, Sendable {
    /// The name (required to add).
    public var name: String?
    /// The members, by athlete name (replacing the old list).
    public var athletes: [String]?

    /// Creates a request.
    public init(name: String? = nil, athletes: [String]? = nil) {
        self.name = name
        self.athletes = athletes
    }
}
