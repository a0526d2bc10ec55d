// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Logging
import PostgresNIO
import SessionStore
import StoreFormats

/// Writes one outbox batch into PostgreSQL in one transaction, idempotently: rows are upserted on
/// their key (gateway id + the local key), sample chunks likewise on gateway id + session +
/// chunk. Sending a batch twice (a retry, or a crash between the
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
                var latest: [[ColumnValue]: OutboxItem] = [:]
                var order: [[ColumnValue]] = []
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

    /// The batch's samples, one row per stored chunk (its key, and its samples as five binary
    /// arrays), replaced when sent again: the store's chunk is the unit on both sides, so a retry,
    /// or a chunk the store rewrote, leaves exactly the store's samples.
    static func insertSamples(
        _ items: [OutboxItem], gatewayID: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> Int {
        var sent = 0
        for item in items {
            guard let samples = item.samples, case .text(let session) = item.key.first,
                case .integer(let chunk) = item.key.dropFirst().first, let id = UUID(uuidString: session)
            else {
                if item.row != nil {
                    logger.warning(
                        "a stored sample chunk does not decode: its samples are not replicated",
                        metadata: ["replication.item": "\(item.key)"])
                }
                continue
            }
            var indices: [Int64] = []
            var times: [Double] = []
            var xs: [Int16] = []
            var ys: [Int16] = []
            var zs: [Int16] = []
            indices.reserveCapacity(samples.count)
            times.reserveCapacity(samples.count)
            xs.reserveCapacity(samples.count)
            ys.reserveCapacity(samples.count)
            zs.reserveCapacity(samples.count)
            for sample in samples {
                indices.append(sample.index)
                times.append(sample.t)
                xs.append(sample.raw.x)
                ys.append(sample.raw.y)
                zs.append(sample.raw.z)
            }
            var bindings = PostgresBindings(capacity: 10)
            bindings.append(gatewayID)
            bindings.append(id)
            bindings.append(chunk)
            bindings.append(indices.min() ?? 0)
            bindings.append(indices.max() ?? -1)
            bindings.append(BinaryArray(indices))
            bindings.append(BinaryDoubleArray(elements: times))
            bindings.append(BinaryArray(xs))
            bindings.append(BinaryArray(ys))
            bindings.append(BinaryArray(zs))
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO sportsensor.sample_chunks
                            (gateway_id, session_id, chunk, first_index, last_index, sample_index, t, x, y, z)
                        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                        ON CONFLICT (gateway_id, session_id, chunk) DO UPDATE SET first_index = EXCLUDED.first_index,
                            last_index = EXCLUDED.last_index, sample_index = EXCLUDED.sample_index, t = EXCLUDED.t,
                            x = EXCLUDED.x, y = EXCLUDED.y, z = EXCLUDED.z
                        """, binds: bindings), logger: logger)
            sent += samples.count
        }
        return sent
    }

    static func bind(_ value: ColumnValue, into bindings: inout PostgresBindings) {
        switch value {
        case .null, .blob: bindings.appendNull()
        case .integer(let int): bindings.append(int)
        case .real(let double): bindings.append(double)
        case .text(let text): bindings.append(text)
        }
    }
}
