// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB

/// A row of `session_summaries`: a session's `SessionSummary` as JSON (kcal left out: it follows
/// the athlete's current body mass when read).
struct SummaryRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "session_summaries"

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case summary
        case computedAt = "computed_at"
    }

    var sessionID: String
    var summary: String
    var computedAt: Date

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }
}

/// One row of a leaderboard: an athlete's best value of a metric and the session it came from.
public struct LeaderboardEntry: Hashable, Sendable {
    /// 1 for the best; equal values share a rank.
    public var rank: Int
    /// The athlete's id and name.
    public var athleteID: Int64
    public var athlete: String
    /// The metric's value.
    public var value: Double
    /// The session it came from.
    public var sessionID: String
    /// When that session started.
    public var at: Date

    /// Creates an entry.
    public init(rank: Int, athleteID: Int64, athlete: String, value: Double, sessionID: String, at: Date) {
        self.rank = rank
        self.athleteID = athleteID
        self.athlete = athlete
        self.value = value
        self.sessionID = sessionID
        self.at = at
    }
}

/// A leaderboard's time window.
public enum LeaderboardPeriod: String, CaseIterable, Sendable {
    case day, week, month, all

    /// The earliest start a session may have to count, seen from `now`.
    public func start(before now: Date) -> Date? {
        switch self {
        case .day: now.addingTimeInterval(-86_400)
        case .week: now.addingTimeInterval(-7 * 86_400)
        case .month: now.addingTimeInterval(-30 * 86_400)
        case .all: nil
        }
    }
}

extension SessionStore {
    /// Stores (or replaces) a session's summary.
    public func saveSummary(_ summary: SessionSummary, of id: UUID, at date: Date = Date()) async throws(StoreError) {
        var massFree = summary
        massFree.kcal = nil
        massFree.kcalNote = nil
        let row = SummaryRow(sessionID: id.uuidString.lowercased(), summary: massFree.jsonLine, computedAt: date)
        try await write("saving a session summary") { db in try row.upsert(db) }
    }

    /// A session's stored summary with kcal for its athlete's body mass; nil when none is stored.
    public func summary(of id: UUID) async throws(StoreError) -> SessionSummary? {
        let found = try await read("reading a session summary") { db -> (String, Double?, Bool)? in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT ss.summary AS summary, a.mass_kg AS mass, s.athlete_id IS NOT NULL AS has_athlete
                        FROM session_summaries ss JOIN sessions s ON s.id = ss.session_id
                        LEFT JOIN athletes a ON a.id = s.athlete_id WHERE ss.session_id = ?
                        """, arguments: [id.uuidString.lowercased()])
            else { return nil }
            return (row["summary"], row["mass"], row["has_athlete"])
        }
        guard let (text, mass, hasAthlete) = found else { return nil }
        do {
            let summary = try JSONDecoder().decode(SessionSummary.self, from: Data(text.utf8))
            return hasAthlete
                ? summary.withBodyMass(mass)
                : summary.withBodyMass(nil, note: "the session has no athlete: no body mass to count kcal with")
        } catch {
            throw StoreError(
                .database, "the summary of session \(id.uuidString.lowercased()) is unreadable: run `reanalyze` on it",
                cause: error)
        }
    }

    /// Computes a finished session's summary from its stored samples and events and stores it.
    @discardableResult
    public func computeSummary(of record: SessionRecord) async throws(StoreError) -> SessionSummary? {
        guard let profile = DetectionProfile(rawValue: record.profile) else { return nil }
        let samples = try await detectionSamples(of: record.id)
        let events = try await events(of: record.id).compactMap(\.detectorEvent).sorted { $0.time < $1.time }
        let summary = SessionSummaryAccumulator.summary(profile: profile, samples: samples, events: events)
        try await saveSummary(summary, of: record.id)
        return try await self.summary(of: record.id)
    }

    /// Each athlete's best `metric` over sessions started from `from` (all time when nil), only
    /// athletes of team `teamID` when given; best first.
    public func leaderboard(
        _ metric: SummaryMetric, from: Date? = nil, teamID: Int64? = nil, athleteID: Int64? = nil
    ) async throws(StoreError) -> [LeaderboardEntry] {
        let value =
            metric == .kcal
            ? "json_extract(ss.summary, '$.met_min') * 3.5 * a.mass_kg / 200"
            : "json_extract(ss.summary, '$.\(metric.rawValue)')"
        // The window and the team choose the sessions each athlete's best is taken from.
        var conditions = ["s.ended_at IS NOT NULL", "\(value) IS NOT NULL"]
        var arguments: [DatabaseValue] = []
        if let from {
            conditions.append("s.started_at >= ?")
            arguments.append(from.timeIntervalSince1970.databaseValue)
        }
        if let teamID {
            conditions.append("s.athlete_id IN (SELECT athlete_id FROM team_members WHERE team_id = ?)")
            arguments.append(teamID.databaseValue)
        }
        if let athleteID {
            conditions.append("s.athlete_id = ?")
            arguments.append(athleteID.databaseValue)
        }
        let sql = """
            SELECT athlete_id, name, v, session_id, started_at FROM (
                SELECT s.athlete_id AS athlete_id, a.name AS name, \(value) AS v, s.id AS session_id,
                    s.started_at AS started_at,
                    row_number() OVER (PARTITION BY s.athlete_id ORDER BY \(value) DESC, s.started_at) AS n
                FROM sessions s JOIN session_summaries ss ON ss.session_id = s.id
                JOIN athletes a ON a.id = s.athlete_id
                WHERE \(conditions.joined(separator: " AND "))
            ) WHERE n = 1
            ORDER BY v DESC, started_at
            """
        let frozen = StatementArguments(arguments)
        let rows = try await read("reading a leaderboard") { db in
            try Row.fetchAll(db, sql: sql, arguments: frozen).map { row in
                LeaderboardEntry(
                    rank: 0, athleteID: row["athlete_id"], athlete: row["name"], value: row["v"],
                    sessionID: row["session_id"], at: Date(timeIntervalSince1970: row["started_at"]))
            }
        }
        var entries: [LeaderboardEntry] = []
        for var entry in rows {
            entry.rank = entries.last.map { $0.value == entry.value ? $0.rank : entries.count + 1 } ?? 1
            entries.append(entry)
        }
        return entries
    }

    /// An athlete's personal bests: every metric's best over all their finished sessions.
    public func personalBests(athleteID: Int64) async throws(StoreError) -> [(SummaryMetric, LeaderboardEntry)] {
        var bests: [(SummaryMetric, LeaderboardEntry)] = []
        for metric in SummaryMetric.allCases {
            if let best = try await leaderboard(metric, athleteID: athleteID).first { bests.append((metric, best)) }
        }
        return bests
    }
}
