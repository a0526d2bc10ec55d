// SPDX-License-Identifier: GPL-2.0-or-later
import SessionStore

/// How a local table's columns land in PostgreSQL: the central table and each column's type. The
/// column names are the local ones (`OutboxTable.columns`); `ReplicationTests` checks every
/// declared column has a kind here, so adding a table is declaring it twice, once per side.
public struct CentralTable: Sendable {
    /// How a SQLite value becomes a PostgreSQL one.
    public enum Kind: Sendable {
        case text, bigint, double, uuid, jsonb
        /// Unix seconds (REAL) → `timestamptz`.
        case timestamp
        /// 0/1 → `boolean`.
        case boolean

        /// The SQL that turns bind `$n` into the column's type.
        func expression(_ n: Int) -> String {
            switch self {
            case .text: "$\(n)::text"
            case .bigint: "$\(n)::bigint"
            case .double: "$\(n)::float8"
            case .uuid: "$\(n)::text::uuid"
            case .jsonb: "$\(n)::text::jsonb"
            case .timestamp: "to_timestamp($\(n)::float8)"
            case .boolean: "($\(n)::bigint <> 0)"
            }
        }
    }

    /// The central table (in schema `sportsensor`).
    public var name: String
    /// Column kinds by local column name.
    public var kinds: [String: Kind]

    /// The central side of every replicated table but the samples, by local table name.
    public static let all: [String: CentralTable] = [
        "athletes": CentralTable(
            name: "athletes",
            kinds: [
                "id": .bigint, "name": .text, "created": .timestamp, "mass_kg": .double, "birth_year": .bigint,
                "racket_hand": .text,
            ]),
        "teams": CentralTable(name: "teams", kinds: ["id": .bigint, "name": .text, "created": .timestamp]),
        "team_members": CentralTable(name: "team_members", kinds: ["team_id": .bigint, "athlete_id": .bigint]),
        "session_summaries": CentralTable(
            name: "session_summaries", kinds: ["session_id": .uuid, "summary": .jsonb, "computed_at": .timestamp]),
        "sensors": CentralTable(
            name: "sensors",
            kinds: [
                "address": .text, "address_type": .text, "advertised_name": .text, "alias": .text,
                "athlete_id": .bigint, "paired": .boolean,
            ]),
        "sessions": CentralTable(
            name: "sessions",
            kinds: [
                "id": .uuid, "sensor_address": .text, "athlete_id": .bigint, "profile": .text,
                "profile_parameters": .jsonb, "started_at": .timestamp, "ended_at": .timestamp, "end_reason": .text,
                "sample_rate": .double, "received_count": .bigint, "lost_count": .bigint, "malformed_count": .bigint,
                "unsaved_samples": .bigint,
            ]),
        "events": CentralTable(
            name: "events",
            kinds: [
                "session_id": .uuid, "sequence": .bigint, "type": .text, "t": .double, "peak_g": .double,
                "intensity": .double, "takeoff": .double, "landing": .double, "flight_s": .double,
                "height_m": .double, "release": .double, "catch_t": .double, "saturated": .boolean, "extra": .jsonb,
            ]),
        "targets": CentralTable(
            name: "targets",
            kinds: [
                "id": .bigint, "athlete_id": .bigint, "session_id": .uuid, "metric": .text, "value": .double,
                "created": .timestamp,
            ]),
    ]

    /// `INSERT … VALUES (…), (…) ON CONFLICT (gateway_id, key) DO UPDATE` for `rows` rows of
    /// `table`; bind 1 is the gateway id, then each row's columns in order.
    func upsertSQL(_ table: OutboxTable, rows: Int) -> String {
        let columns = table.columns
        var values: [String] = []
        values.reserveCapacity(rows)
        var n = 2
        for _ in 0..<rows {
            let row = columns.map { column -> String in
                defer { n += 1 }
                return (kinds[column] ?? .text).expression(n)
            }
            values.append("($1, " + row.joined(separator: ", ") + ")")
        }
        let updates = columns.filter { !table.key.contains($0) }.map { "\($0) = EXCLUDED.\($0)" }
        let conflict = "ON CONFLICT (gateway_id, \(table.key.joined(separator: ", ")))"
        return "INSERT INTO sportsensor.\(name) (gateway_id, \(columns.joined(separator: ", "))) VALUES "
            + values.joined(separator: ", ") + " "
            + (updates.isEmpty
                ? "\(conflict) DO NOTHING" : "\(conflict) DO UPDATE SET \(updates.joined(separator: ", "))")
    }

    /// `DELETE` of one row by key; bind 1 is the gateway id, then the key.
    func deleteSQL(_ table: OutboxTable) -> String {
        let condition = table.key.enumerated().map { "\($1) = \((kinds[$1] ?? .text).expression($0 + 2))" }
        return "DELETE FROM sportsensor.\(name) WHERE gateway_id = $1 AND \(condition.joined(separator: " AND "))"
    }
}
