// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import SDUSensor
import StoreFormats

/// One queued change: a row to send as it is now, or a deletion.
public struct OutboxItem: Sendable {
    /// Its place in the outbox (sent in this order).
    public var sequence: Int64
    /// The table's declaration.
    public var table: OutboxTable
    /// The row's key, in `table.key` order.
    public var key: [ColumnValue]
    /// The row now, in `table.columns` order; nil when it is gone.
    public var row: [ColumnValue]?
    /// For a row that is gone: true when its deletion is to be mirrored (its parent still exists).
    public var mirrorsDeletion: Bool
    /// A sample chunk's samples, decoded; nil for other tables or a chunk that does not decode.
    public var samples: [IndexedSample]?
}

/// The outbox's head, read in one transaction.
public struct OutboxBatch: Sendable {
    /// The items, oldest first.
    public var items: [OutboxItem]
    /// The last outbox sequence read: acknowledge through it once the batch is stored centrally.
    public var lastSequence: Int64
}

/// This store's replication identity and switches (`replication_state`).
public struct ReplicationIdentity: Hashable, Sendable {
    /// The configured gateway id.
    public var gatewayID: String
    /// A random id made once per store: two boxes claiming one gateway id differ here.
    public var instanceID: UUID
    /// Whether samples are queued.
    public var samples: Bool
    /// False after the outbox reached its bound: changes are not queued until a resync.
    public var queueing: Bool
}

/// The outbox's size and age.
public struct OutboxStatus: Hashable, Sendable {
    /// Items waiting.
    public var count: Int
    /// When the oldest waiting item was queued.
    public var oldestQueuedAt: Date?
    /// False after the bound was reached (changes are not queued until the resync).
    public var queueing: Bool
}

extension SessionStore {
    /// Turns replication on for this store: records the gateway id, installs the triggers of the
    /// tables declared in `OutboxTable.all` (sample chunks only with `samples`), and queues every
    /// existing row of a table that was not replicated before (also after the gateway id changed),
    /// all in one transaction. Tables no longer replicated lose their triggers and queued items.
    public func enableReplication(gatewayID: String, samples: Bool) async throws(StoreError) -> ReplicationIdentity {
        try await write("enabling replication") { db in
            var instance = UUID()
            var previousGateway: String?
            if let row = try Row.fetchOne(db, sql: "SELECT gateway_id, instance_id FROM replication_state WHERE id = 1")
            {
                previousGateway = row["gateway_id"]
                instance = UUID(uuidString: row["instance_id"]) ?? instance
            }
            try db.execute(
                sql: """
                    INSERT INTO replication_state (id, gateway_id, instance_id, samples, queueing) VALUES (1, ?, ?, ?, 1)
                    ON CONFLICT (id) DO UPDATE SET gateway_id = excluded.gateway_id, samples = excluded.samples
                    """, arguments: [gatewayID, instance.uuidString.lowercased(), samples])
            var installed: [String: String] = [:]
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'replication\\_%' ESCAPE '\\'"
            ) {
                installed[row["name"]] = row["sql"]
            }
            let renamed = previousGateway != nil && previousGateway != gatewayID
            if renamed { try db.execute(sql: "DELETE FROM replication_outbox") }
            for table in OutboxTable.all {
                let wanted = samples || !table.isSamples
                // Installed as declared now; a table whose declaration changed (a column added) is
                // reinstalled and backfilled, so its rows go out with the new columns.
                let current = table.triggers.allSatisfy {
                    installed[$0.name].map(Self.normalized) == Self.normalized($0.sql)
                }
                let reinstall = wanted && (!current || renamed)
                for trigger in table.triggers where installed[trigger.name] != nil && (!wanted || reinstall) {
                    try db.execute(sql: "DROP TRIGGER \(trigger.name)")
                }
                if !wanted {
                    try db.execute(sql: "DELETE FROM replication_outbox WHERE table_name = ?", arguments: [table.name])
                    continue
                }
                if reinstall {
                    for trigger in table.triggers { try db.execute(sql: trigger.sql) }
                    try db.execute(sql: table.backfillSQL)
                }
            }
            let queueing = try Bool.fetchOne(db, sql: "SELECT queueing FROM replication_state WHERE id = 1") ?? true
            return ReplicationIdentity(gatewayID: gatewayID, instanceID: instance, samples: samples, queueing: queueing)
        }
    }

    static func normalized(_ sql: String) -> String {
        var text = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasSuffix(";") { text.removeLast() }
        return text
    }

    /// Turns replication off: removes the triggers and empties the outbox. Enabling it again
    /// queues every row anew (the central side ignores what it already has).
    public func disableReplication() async throws(StoreError) {
        try await write("disabling replication") { db in
            let installed = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'replication\\_%' ESCAPE '\\'"
            )
            for name in installed { try db.execute(sql: "DROP TRIGGER \(name)") }
            try db.execute(sql: "DELETE FROM replication_outbox")
        }
    }

    /// Stops queueing changes (the outbox reached its bound). Local data is untouched; `resync`
    /// queues everything once the outbox has drained.
    public func stopQueueing() async throws(StoreError) {
        try await write("pausing the replication outbox") { db in
            try db.execute(sql: "UPDATE replication_state SET queueing = 0 WHERE id = 1")
        }
    }

    /// Queues every row of every replicated table again and resumes queueing, in one transaction:
    /// what changed while queueing was stopped reaches the central database too.
    public func resyncReplication() async throws(StoreError) {
        try await write("resyncing replication") { db in
            let samples = try Bool.fetchOne(db, sql: "SELECT samples FROM replication_state WHERE id = 1") ?? false
            for table in OutboxTable.all where samples || !table.isSamples {
                try db.execute(sql: table.backfillSQL)
            }
            try db.execute(sql: "UPDATE replication_state SET queueing = 1 WHERE id = 1")
        }
    }

    /// The outbox's size, age and state.
    public func outboxStatus() async throws(StoreError) -> OutboxStatus {
        try await read("reading the replication outbox") { db in
            // Items leave only from the head, so the sequence span is the count without a scan.
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT max(seq) - min(seq) + 1 AS n,
                        (SELECT queued_at FROM replication_outbox ORDER BY seq LIMIT 1) AS oldest
                    FROM replication_outbox
                    """)
            let queueing = try Bool.fetchOne(db, sql: "SELECT queueing FROM replication_state WHERE id = 1") ?? true
            let oldest: Double? = row?["oldest"]
            let count: Int? = row?["n"]
            return OutboxStatus(
                count: count ?? 0, oldestQueuedAt: oldest.map { Date(timeIntervalSince1970: $0) },
                queueing: queueing)
        }
    }

    /// Up to `maxItems` items from the outbox's head, each with its row as it is now; stops early
    /// once the chunks read hold `maxSamples` samples. Nil when the outbox is empty.
    public func outboxBatch(maxItems: Int, maxSamples: Int) async throws(StoreError) -> OutboxBatch? {
        let directory = tailDirectory
        return try await read("reading the replication outbox") { db in
            let queued = try Row.fetchAll(
                db, sql: "SELECT seq, table_name, key1, key2 FROM replication_outbox ORDER BY seq LIMIT ?",
                arguments: [maxItems])
            var items: [OutboxItem] = []
            var samples = 0
            var last: Int64 = 0
            for entry in queued {
                last = entry["seq"]
                let name: String = entry["table_name"]
                let deletion = name.hasSuffix(OutboxTable.deletionSuffix)
                guard
                    let table = OutboxTable.named(
                        deletion ? String(name.dropLast(OutboxTable.deletionSuffix.count)) : name)
                else { continue }
                let keyValues: [DatabaseValue] = [entry["key1"], entry["key2"]].prefix(table.key.count).map { $0 }
                var item = try Self.outboxItem(table, key: keyValues, sequence: last, deletion: deletion, db)
                if table.isSamples, item.row != nil {
                    item.samples = try Self.chunkSamples(keyValues, directory, db)
                    samples += item.samples?.count ?? 0
                }
                items.append(item)
                if samples >= maxSamples { break }
            }
            return queued.isEmpty ? nil : OutboxBatch(items: items, lastSequence: last)
        }
    }

    /// Removes the items through `sequence`: the central database holds them.
    public func acknowledgeOutbox(through sequence: Int64) async throws(StoreError) {
        try await write("acknowledging replicated items") { db in
            try db.execute(sql: "DELETE FROM replication_outbox WHERE seq <= ?", arguments: [sequence])
        }
    }

    private static func outboxItem(
        _ table: OutboxTable, key: [DatabaseValue], sequence: Int64, deletion: Bool, _ db: Database
    ) throws -> OutboxItem {
        let condition = table.key.map { "\($0) = ?" }.joined(separator: " AND ")
        let row = try Row.fetchOne(
            db, sql: "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name) WHERE \(condition)",
            arguments: StatementArguments(key))
        // A deletion's trigger judged it when it happened; an item queued by an insert or update of
        // a row gone since (or queued before deletions were judged so) by its parent now.
        var mirrors = row == nil && (deletion || table.mirrorsEveryDeletion)
        if row == nil, !mirrors, let parent = table.parent, let index = table.key.firstIndex(of: parent.column) {
            mirrors =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM \(parent.table) WHERE \(parent.parentKey) = ?)",
                    arguments: [key[index]]) ?? false
        }
        return OutboxItem(
            sequence: sequence, table: table, key: key.map(ColumnValue.init),
            row: row.map { row in row.databaseValues.map(ColumnValue.init) }, mirrorsDeletion: mirrors, samples: nil)
    }

    private static func chunkSamples(
        _ key: [DatabaseValue], _ directory: TailDirectory, _ db: Database
    ) throws -> [IndexedSample]? {
        guard
            let row = try ChunkRow.fetchOne(
                db, sql: "SELECT * FROM sample_chunks WHERE session_id = ? AND chunk = ?",
                arguments: StatementArguments(key))
        else { return nil }
        return try? row.samples(in: directory)
    }
}
