// SPDX-License-Identifier: GPL-2.0-or-later

/// A local table whose rows are replicated (Docs/REPLICATION.md): declaring it here is all the
/// store needs. Enabling replication installs SQLite triggers from the declaration, so every write
/// path (recorder, import, reanalysis, pairing, in this process or in `sportsensorctl`) queues the
/// row's key in `replication_outbox` inside the transaction that wrote the row.
///
/// The outbox holds keys, not copies: the sender reads the row as it is when it sends, so a row
/// changed five times is sent as it is now, and a sample chunk is never copied.
public struct OutboxTable: Hashable, Sendable {
    /// The local table, and the name the replicator knows it by.
    public var name: String
    /// Key columns (one or two), in the order the outbox stores them.
    public var key: [String]
    /// The columns sent, key first; updates of other columns queue nothing.
    public var columns: [String]
    /// Deleting a row is mirrored only when this table's row (column of ours = its key) exists at
    /// the moment of the deletion: replaced events are deleted centrally, a session's rows pruned
    /// by retention (deleted by cascade with it) are not (the central database is the archive).
    public var parent: Parent?
    /// Queued only with `[replication] samples = true`.
    public var isSamples: Bool
    /// Every deletion is mirrored, parent or not: the table holds current settings, not history.
    public var mirrorsEveryDeletion: Bool

    /// The parent a deletion is judged by.
    public struct Parent: Hashable, Sendable {
        /// The parent table.
        public var table: String
        /// Our column holding the parent's key.
        public var column: String
        /// The parent's key column.
        public var parentKey: String
    }

    /// Every replicated table, in the order a backfill queues them (parents first).
    public static let all: [OutboxTable] = [
        OutboxTable(
            name: "athletes", key: ["id"], columns: ["id", "name", "created", "mass_kg", "birth_year", "racket_hand"]),
        OutboxTable(name: "teams", key: ["id"], columns: ["id", "name", "created"]),
        // A member taken off a team is removed centrally; a removed team's memberships stay there.
        OutboxTable(
            name: "team_members", key: ["team_id", "athlete_id"], columns: ["team_id", "athlete_id"],
            parent: Parent(table: "teams", column: "team_id", parentKey: "id")),
        OutboxTable(
            name: "sensors", key: ["address"],
            columns: ["address", "address_type", "advertised_name", "alias", "athlete_id", "paired"]),
        OutboxTable(
            name: "sessions", key: ["id"],
            columns: [
                "id", "sensor_address", "athlete_id", "profile", "profile_parameters", "started_at", "ended_at",
                "end_reason", "sample_rate", "received_count", "lost_count", "malformed_count", "unsaved_samples",
            ]),
        // Reanalysis replaces a summary in place (an update of the same key).
        OutboxTable(name: "session_summaries", key: ["session_id"], columns: ["session_id", "summary", "computed_at"]),
        OutboxTable(
            name: "events", key: ["session_id", "sequence"],
            columns: [
                "session_id", "sequence", "type", "t", "peak_g", "intensity", "takeoff", "landing", "flight_s",
                "height_m", "release", "catch_t", "saturated", "extra",
            ],
            parent: Parent(table: "sessions", column: "session_id", parentKey: "id")),
        OutboxTable(
            name: "sample_chunks", key: ["session_id", "chunk"],
            columns: ["session_id", "chunk", "first_index", "sample_count", "codec_version"],
            isSamples: true),
        // Goals are settings, not history: a target removed or replaced (a new id) goes centrally too.
        OutboxTable(
            name: "targets", key: ["id"], columns: ["id", "athlete_id", "session_id", "metric", "value", "created"],
            mirrorsEveryDeletion: true),
    ]

    /// The declaration of `name`.
    public static func named(_ name: String) -> OutboxTable? { all.first { $0.name == name } }

    /// Declares a table.
    public init(
        name: String, key: [String], columns: [String], parent: Parent? = nil, isSamples: Bool = false,
        mirrorsEveryDeletion: Bool = false
    ) {
        precondition((1...2).contains(key.count), "the outbox holds one or two key columns")
        self.name = name
        self.key = key
        self.columns = columns
        self.parent = parent
        self.isSamples = isSamples
        self.mirrorsEveryDeletion = mirrorsEveryDeletion
    }

    // MARK: Triggers

    /// The prefix of every trigger replication installs.
    static let triggerPrefix = "replication_"

    /// This table's triggers: queue the key on insert, on update of a sent column and (with a
    /// parent, or mirroring every deletion) on delete, while `replication_state.queueing` is 1. Each `sql` is the statement as
    /// SQLite keeps it in `sqlite_master`, so a changed declaration is told from an installed one.
    var triggers: [(name: String, sql: String)] {
        let when = "WHEN (SELECT queueing FROM replication_state WHERE id = 1) = 1"
        func queue(_ row: String, as queuedName: String) -> String {
            let second = key.count > 1 ? "\(row).\(key[1])" : "NULL"
            return "INSERT INTO replication_outbox (table_name, key1, key2, queued_at) "
                + "VALUES ('\(queuedName)', \(row).\(key[0]), \(second), \(Self.nowSQL));"
        }
        func queue(_ row: String) -> String { queue(row, as: name) }
        let prefix = Self.triggerPrefix + name
        var triggers = [
            (
                prefix + "_insert",
                "CREATE TRIGGER \(prefix)_insert AFTER INSERT ON \(name) \(when) BEGIN \(queue("NEW")) END"
            ),
            (
                prefix + "_update",
                "CREATE TRIGGER \(prefix)_update AFTER UPDATE OF \(columns.joined(separator: ", ")) ON \(name) \(when) "
                    + "BEGIN \(queue("NEW")) END"
            ),
        ]
        // The deletion is judged when it happens, not when it is sent: a member removed while its
        // team exists is mirrored even if the team is removed before the item goes out. SQLite
        // runs a cascade after deleting the parent row, so a cascaded deletion is never queued.
        if let parent {
            let exists = "EXISTS (SELECT 1 FROM \(parent.table) WHERE \(parent.parentKey) = OLD.\(parent.column))"
            triggers.append(
                (
                    prefix + "_delete",
                    "CREATE TRIGGER \(prefix)_delete AFTER DELETE ON \(name) \(when) AND \(exists) "
                        + "BEGIN \(queue("OLD", as: deletionName)) END"
                ))
        } else if mirrorsEveryDeletion {
            triggers.append(
                (
                    prefix + "_delete",
                    "CREATE TRIGGER \(prefix)_delete AFTER DELETE ON \(name) \(when) "
                        + "BEGIN \(queue("OLD", as: deletionName)) END"
                ))
        }
        return triggers
    }

    /// The outbox's name for a deletion of this table's rows that is to be mirrored.
    var deletionName: String { name + Self.deletionSuffix }

    /// Marks an outbox item as a mirrored deletion (`events:deleted`).
    static let deletionSuffix = ":deleted"

    /// Queues every row of the table (a backfill), in key order.
    var backfillSQL: String {
        let second = key.count > 1 ? key[1] : "NULL"
        return """
            INSERT INTO replication_outbox (table_name, key1, key2, queued_at)
            SELECT '\(name)', \(key[0]), \(second), \(Self.nowSQL) FROM \(name) ORDER BY \(key.joined(separator: ", "))
            """
    }

    /// Unix seconds now, in SQL (SQLite 3.40 has no `unixepoch('subsec')`).
    static let nowSQL = "((julianday('now') - 2440587.5) * 86400.0)"
}
