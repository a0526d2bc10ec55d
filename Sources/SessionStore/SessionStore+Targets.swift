// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB

/// A row of `targets`: a goal for one metric, of an athlete (every session of theirs) or of one
/// session.
struct TargetRow: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "targets"

    enum CodingKeys: String, CodingKey {
        case id
        case athleteID = "athlete_id"
        case sessionID = "session_id"
        case metric, value, created
    }

    enum Columns {
        static let athleteID = Column(CodingKeys.athleteID)
        static let sessionID = Column(CodingKeys.sessionID)
        static let metric = Column(CodingKeys.metric)
    }

    var id: Int64?
    var athleteID: Int64?
    var sessionID: String?
    var metric: String
    var value: Double
    var created: Date

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    var target: Target? {
        guard let metric = SummaryMetric(rawValue: metric) else { return nil }
        return Target(id: id ?? 0, athleteID: athleteID, sessionID: sessionID, metric: metric, value: value)
    }
}

/// A goal for one metric: of an athlete (each of their sessions) or of one session.
public struct Target: Hashable, Sendable {
    /// The row id.
    public var id: Int64
    /// The athlete, for an athlete's target.
    public var athleteID: Int64?
    /// The session (lower-case UUID), for a session's target.
    public var sessionID: String?
    /// What is counted.
    public var metric: SummaryMetric
    /// The value to reach.
    public var value: Double
}

extension SessionStore {
    /// Sets (or replaces) the target for `metric` of an athlete or of a session; exactly one of
    /// them must be given.
    public func setTarget(
        _ metric: SummaryMetric, value: Double, athleteID: Int64? = nil, sessionID: UUID? = nil
    ) async throws(StoreError) -> Target {
        guard (athleteID == nil) != (sessionID == nil) else {
            throw StoreError(.invalidArgument, "a target is for an athlete or for a session: name exactly one")
        }
        guard value > 0, value.isFinite else {
            throw StoreError(.invalidArgument, "a target of \(value) cannot be reached: give a number above 0")
        }
        let session = sessionID?.uuidString.lowercased()
        return try await write("setting a target") { db in
            try TargetRow.filter(
                TargetRow.Columns.metric == metric.rawValue && TargetRow.Columns.athleteID == athleteID
                    && TargetRow.Columns.sessionID == session
            ).deleteAll(db)
            var row = TargetRow(
                id: nil, athleteID: athleteID, sessionID: session, metric: metric.rawValue, value: value,
                created: Date())
            try row.insert(db)
            guard let target = row.target else { throw StoreError(.database, "a stored target did not read back") }
            return target
        }
    }

    /// Every target, of athletes and of sessions.
    public func targets() async throws(StoreError) -> [Target] {
        try await read("listing targets") { db in try TargetRow.fetchAll(db).compactMap(\.target) }
    }

    /// Removes a target by id.
    public func removeTarget(id: Int64) async throws(StoreError) {
        try await write("removing a target") { db in
            guard try TargetRow.deleteOne(db, key: id) else {
                throw StoreError(.notFound, "no target has id \(id): list them with `sportsensorctl targets list`")
            }
        }
    }

    /// The targets a session counts towards: its own, and its athlete's for metrics it has none of.
    public func effectiveTargets(session: UUID, athleteID: Int64?) async throws(StoreError) -> [SummaryMetric: Double] {
        let all = try await targets()
        var result: [SummaryMetric: Double] = [:]
        if let athleteID {
            for target in all where target.athleteID == athleteID { result[target.metric] = target.value }
        }
        let id = session.uuidString.lowercased()
        for target in all where target.sessionID == id { result[target.metric] = target.value }
        return result
    }
}
