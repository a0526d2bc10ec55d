// SPDX-License-Identifier: GPL-2.0-or-later
import Logging
import PostgresNIO
import SessionStore

/// Writes one outbox batch into PostgreSQL in one transaction, idempotently: rows are upserted on
/// their key (gateway id + the local key), samples inserted with `ON CONFLICT DO NOTHING` on
/// gateway id + session + sample index. Sending a batch twice (a retry, or a crash between the
/// commit here and the acknowledgement in the store) leaves the same rows.
public struct CentralWriter: Sendable {
    /// What one batch wrote.
    public struct Counts: Hashable, Sendable {
        /// Rows upserted (after merging repeated keys).
        public var rows = 0
        /// Rows deleted (replaced events).
        public var deletions = 0
        /// Samples sent.
        public var samples = 0
    }

    /// The gateway id every row is written under.
    public var gatewayID: String

    /// PostgreSQL takes at most 65 535 binds per statement; stay well below.
    static let maxBinds = 30_000

    /// Creates a writer for `gatewayID`.
    public init(gatewayID: String) { self.gatewayID = gatewayID }

    /// Writes `batch` in one transaction.
    public func write(_ batch: OutboxBatch, on connection: PostgresConnection, logger: Logger) async throws -> Counts {
        var counts = Counts()
        var byTable: [String: [OutboxItem]] = [:]
        for item in batch.items { byTable[item.table.name, default: []].append(item) }
        let gatewayID = self.gatewayID
        return try await connection.withTransaction(logger: logger) { connection in
            for table in OutboxTable.all {
                guard let items = byTable[table.name], !items.isEmpty else { continue }
                if table.isSamples {
                    counts.samples += try await Self.insertSamples(items, gatewayID: gatewayID, connection, logger)
                    continue
                }
                guard let central = CentralTable.all[table.name] else { continue }
                // The last item of a key carries the row as it is now (all do: read together).
                var latest: [[OutboxValue]: OutboxItem] = [:]
                var order: [[OutboxValue]] = []
                for item in items {
                    if latest.updateValue(item, forKey: item.key) == nil { order.append(item.key) }
                }
                let present = order.compactMap { latest[$0]?.row }
                let perStatement = max(1, Self.maxBinds / table.columns.count)
                var start = 0
                while start < present.count {
                    let slice = present[start..<min(present.count, start + perStatement)]
                    var bindings = PostgresBindings(capacity: 1 + slice.count * table.columns.count)
                    bindings.append(gatewayID)
                    for row in slice { for value in row { Self.bind(value, into: &bindings) } }
                    try await connection.query(
                        PostgresQuery(unsafeSQL: central.upsertSQL(table, rows: slice.count), binds: bindings),
                        logger: logger)
                    start += slice.count
                }
                counts.rows += present.count
                for key in order {
                    guard let item = latest[key], item.row == nil, item.mirrorsDeletion else { continue }
                    var bindings = PostgresBindings()
                    bindings.append(gatewayID)
                    for value in item.key { Self.bind(value, into: &bindings) }
                    try await connection.query(
                        PostgresQuery(unsafeSQL: central.deleteSQL(table), binds: bindings), logger: logger)
                    counts.deletions += 1
                }
            }
            try await connection.query(
                "UPDATE sportsensor.gateways SET last_seen = now() WHERE gateway_id = \(gatewayID)", logger: logger)
            return counts
        }
    }

    /// All the batch's samples in one `INSERT … SELECT FROM unnest(arrays)`: six array binds
    /// however many samples, so the statement's cost is the rows, not the binding.
    static func insertSamples(
        _ items: [OutboxItem], gatewayID: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Int {
        var sessions: [String] = []
        var indices: [Int64] = []
        var times: [Double] = []
        var xs: [Int16] = []
        var ys: [Int16] = []
        var zs: [Int16] = []
        for item in items {
            guard let samples = item.samples, case .text(let session) = item.key.first else {
                if item.row != nil {
                    logger.warning(
                        "a stored sample chunk does not decode: its samples are not replicated",
                        metadata: ["replication.item": "\(item.key)"])
                }
                continue
            }
            sessions.append(contentsOf: repeatElement(session, count: samples.count))
            for sample in samples {
                indices.append(sample.index)
                times.append(sample.t)
                xs.append(sample.raw.x)
                ys.append(sample.raw.y)
                zs.append(sample.raw.z)
            }
        }
        guard !indices.isEmpty else { return 0 }
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(gatewayID)
        bindings.append(sessions)
        bindings.append(indices)
        bindings.append(times)
        bindings.append(xs)
        bindings.append(ys)
        bindings.append(zs)
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO sportsensor.samples (gateway_id, session_id, sample_index, t, x, y, z)
                    SELECT $1, s::uuid, i, t, x, y, z
                    FROM unnest($2::text[], $3::int8[], $4::float8[], $5::int2[], $6::int2[], $7::int2[])
                        AS u(s, i, t, x, y, z)
                    ON CONFLICT DO NOTHING
                    """, binds: bindings), logger: logger)
        return indices.count
    }

    static func bind(_ value: OutboxValue, into bindings: inout PostgresBindings) {
        switch value {
        case .null, .blob: bindings.appendNull()
        case .integer(let int): bindings.append(int)
        case .real(let double): bindings.append(double)
        case .text(let text): bindings.append(text)
        }
    }
}
