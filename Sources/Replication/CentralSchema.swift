// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Logging
import PostgresNIO

/// The central PostgreSQL schema (`sportsensor`), as forward-only migrations the gateway applies
/// on connecting: each runs once, in its own transaction, recorded in
/// `sportsensor.schema_migrations`. A transaction-level advisory lock serialises gateways starting
/// at once, so exactly one applies a migration and the others find it applied. Append a
/// migration, never edit one (a test applies them to a fresh PostgreSQL and checks the list).
///
/// Every replicated table is keyed by `gateway_id` first: rows of different halls never collide,
/// and it is the distribution column on Citus (Docs/REPLICATION.md). No foreign keys between
/// replicated tables: the outbox may deliver an event before its session after a resync, and
/// Citus distributes such tables freely.
public enum CentralSchema {
    /// One migration.
    public struct Migration: Sendable {
        /// Its number, 1, 2, … in order.
        public var version: Int
        /// What it does.
        public var name: String
        /// The statements.
        public var sql: String

        /// `sql` split at each `;` that ends a line (the migrations put none inside a statement).
        var statements: [String] {
            sql.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }
                .filter { !$0.isEmpty }
        }
    }

    /// The advisory lock key migrations run under ("SSND" in ASCII).
    static let lockKey: Int64 = 0x5353_4E44

    /// Every migration, oldest first.
    public static let migrations: [Migration] = [
        Migration(version: 1, name: "tables and views", sql: version1),
        Migration(version: 2, name: "roster and session summaries", sql: version2),
        Migration(version: 3, name: "targets", sql: version3),
        Migration(version: 4, name: "samples by chunk", sql: version4),
        Migration(version: 5, name: "leaderboard bests without flagged events", sql: version5),
        Migration(version: 6, name: "athletes' racket hand", sql: version6),
        Migration(version: 7, name: "sessions' unsaved samples", sql: version7),
    ]

    /// The hand an athlete holds the racket in (`left`, `right`; null when unknown). A hit's side
    /// needs no column: it travels in `events.extra` (`extra ->> 'side'`).
    static let version6 = """
        ALTER TABLE sportsensor.athletes ADD COLUMN racket_hand text;
        """

    /// Samples a session received that its gateway's store could not keep (a full disk): 0 for
    /// the sessions replicated before, as their gateways counted none.
    static let version7 = """
        ALTER TABLE sportsensor.sessions ADD COLUMN unsaved_samples bigint NOT NULL DEFAULT 0;
        """

    /// The version this build brings the schema to.
    public static var current: Int { migrations.last?.version ?? 0 }

    /// Applies what is missing; returns the versions applied now. Throws `newerSchema` when the
    /// database has a version this build does not know.
    @discardableResult
    public static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        // Under the lock too: concurrent CREATE … IF NOT EXISTS can still collide.
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query("CREATE SCHEMA IF NOT EXISTS sportsensor", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS sportsensor.schema_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
        }
        var applied: [Int] = []
        for migration in migrations {
            let done = try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                let rows = try await connection.query(
                    "SELECT coalesce(max(version), 0) FROM sportsensor.schema_migrations", logger: logger)
                var newest = 0
                for try await row in rows { newest = try row.decode(Int.self) }
                if newest > current {
                    throw ReplicationError(
                        .newerSchema,
                        "the central database has schema version \(newest), this sportsensord knows up to \(current)",
                        fix: "upgrade sportsensord on this gateway")
                }
                if newest >= migration.version { return false }
                // The extended protocol takes one statement at a time.
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO sportsensor.schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                return true
            }
            if done {
                applied.append(migration.version)
                logger.notice(
                    "central schema migrated",
                    metadata: [
                        "replication.schema": "\(migration.version)", "replication.migration": "\(migration.name)",
                    ])
            }
        }
        return applied
    }

    static let version1 = """
        CREATE TABLE sportsensor.gateways (
            gateway_id text PRIMARY KEY,
            instance_id uuid NOT NULL,
            hostname text NOT NULL,
            first_seen timestamptz NOT NULL DEFAULT now(),
            last_seen timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE sportsensor.athletes (
            gateway_id text NOT NULL,
            id bigint NOT NULL,
            name text NOT NULL,
            created timestamptz NOT NULL,
            PRIMARY KEY (gateway_id, id)
        );
        CREATE TABLE sportsensor.sensors (
            gateway_id text NOT NULL,
            address text NOT NULL,
            address_type text NOT NULL,
            advertised_name text,
            alias text,
            athlete_id bigint,
            paired boolean NOT NULL,
            PRIMARY KEY (gateway_id, address)
        );
        CREATE TABLE sportsensor.sessions (
            gateway_id text NOT NULL,
            id uuid NOT NULL,
            sensor_address text,
            athlete_id bigint,
            profile text NOT NULL,
            profile_parameters jsonb NOT NULL,
            started_at timestamptz NOT NULL,
            ended_at timestamptz,
            end_reason text,
            sample_rate double precision,
            received_count bigint NOT NULL,
            lost_count bigint NOT NULL,
            malformed_count bigint NOT NULL,
            PRIMARY KEY (gateway_id, id)
        );
        CREATE INDEX sessions_started ON sportsensor.sessions (started_at);
        CREATE INDEX sessions_athlete ON sportsensor.sessions (gateway_id, athlete_id, started_at);
        CREATE TABLE sportsensor.events (
            gateway_id text NOT NULL,
            session_id uuid NOT NULL,
            sequence bigint NOT NULL,
            type text NOT NULL,
            t double precision NOT NULL,
            peak_g double precision,
            intensity double precision,
            takeoff double precision,
            landing double precision,
            flight_s double precision,
            height_m double precision,
            release double precision,
            catch_t double precision,
            saturated boolean,
            extra jsonb,
            PRIMARY KEY (gateway_id, session_id, sequence)
        );
        CREATE TABLE sportsensor.samples (
            gateway_id text NOT NULL,
            session_id uuid NOT NULL,
            sample_index bigint NOT NULL,
            t double precision NOT NULL,
            x smallint NOT NULL,
            y smallint NOT NULL,
            z smallint NOT NULL,
            PRIMARY KEY (gateway_id, session_id, sample_index)
        );

        -- Sessions of every hall, with the athlete's name and the event count.
        CREATE VIEW sportsensor.sessions_overview AS
        SELECT s.gateway_id, s.id AS session_id, a.name AS athlete, s.sensor_address, s.profile,
               s.started_at, s.ended_at, s.end_reason,
               extract(epoch FROM coalesce(s.ended_at, now()) - s.started_at) / 60.0 AS minutes,
               s.received_count, s.lost_count,
               (SELECT count(*) FROM sportsensor.events e
                 WHERE e.gateway_id = s.gateway_id AND e.session_id = s.id) AS events
        FROM sportsensor.sessions s
        LEFT JOIN sportsensor.athletes a ON a.gateway_id = s.gateway_id AND a.id = s.athlete_id;

        -- Weekly load per athlete (by name, across halls): time on court, events and their
        -- summed intensity.
        CREATE VIEW sportsensor.weekly_load AS
        SELECT a.name AS athlete, date_trunc('week', s.started_at) AS week,
               count(*) AS sessions,
               sum(extract(epoch FROM coalesce(s.ended_at, s.started_at) - s.started_at) / 60.0) AS minutes,
               sum(x.events) AS events, sum(x.intensity_sum) AS intensity_sum,
               sum(x.jump_height_sum_m) AS jump_height_sum_m
        FROM sportsensor.sessions s
        JOIN sportsensor.athletes a ON a.gateway_id = s.gateway_id AND a.id = s.athlete_id
        CROSS JOIN LATERAL (
            SELECT count(*) AS events, coalesce(sum(e.intensity), 0) AS intensity_sum,
                   coalesce(sum(e.height_m), 0) AS jump_height_sum_m
            FROM sportsensor.events e WHERE e.gateway_id = s.gateway_id AND e.session_id = s.id) AS x
        GROUP BY a.name, date_trunc('week', s.started_at);

        -- Club-wide leaderboard per event type: count, best height and best peak per athlete,
        -- ranked by count.
        CREATE VIEW sportsensor.leaderboard AS
        SELECT e.type, a.name AS athlete, count(*) AS events,
               max(e.height_m) AS best_height_m, max(e.peak_g) AS best_peak_g,
               rank() OVER (PARTITION BY e.type ORDER BY count(*) DESC) AS rank_by_count,
               rank() OVER (PARTITION BY e.type ORDER BY max(e.height_m) DESC NULLS LAST) AS rank_by_height
        FROM sportsensor.events e
        JOIN sportsensor.sessions s ON s.gateway_id = e.gateway_id AND s.id = e.session_id
        JOIN sportsensor.athletes a ON a.gateway_id = s.gateway_id AND a.id = s.athlete_id
        GROUP BY e.type, a.name;
        """

    /// The roster (athletes' body mass and birth year, teams, memberships) and each session's
    /// summary; the views gain PlayerLoad from the summaries. Views are replaced with their columns
    /// kept and new ones appended (what `CREATE OR REPLACE VIEW` allows).
    static let version2 = """
        ALTER TABLE sportsensor.athletes ADD COLUMN mass_kg double precision;
        ALTER TABLE sportsensor.athletes ADD COLUMN birth_year integer;
        CREATE TABLE sportsensor.teams (
            gateway_id text NOT NULL,
            id bigint NOT NULL,
            name text NOT NULL,
            created timestamptz NOT NULL,
            PRIMARY KEY (gateway_id, id)
        );
        CREATE TABLE sportsensor.team_members (
            gateway_id text NOT NULL,
            team_id bigint NOT NULL,
            athlete_id bigint NOT NULL,
            PRIMARY KEY (gateway_id, team_id, athlete_id)
        );
        CREATE INDEX team_members_athlete ON sportsensor.team_members (gateway_id, athlete_id);
        CREATE TABLE sportsensor.session_summaries (
            gateway_id text NOT NULL,
            session_id uuid NOT NULL,
            summary jsonb NOT NULL,
            computed_at timestamptz NOT NULL,
            PRIMARY KEY (gateway_id, session_id)
        );

        -- As in version 1, plus the session's PlayerLoad (NULL until its summary arrives).
        CREATE OR REPLACE VIEW sportsensor.sessions_overview AS
        SELECT s.gateway_id, s.id AS session_id, a.name AS athlete, s.sensor_address, s.profile,
               s.started_at, s.ended_at, s.end_reason,
               extract(epoch FROM coalesce(s.ended_at, now()) - s.started_at) / 60.0 AS minutes,
               s.received_count, s.lost_count,
               (SELECT count(*) FROM sportsensor.events e
                 WHERE e.gateway_id = s.gateway_id AND e.session_id = s.id) AS events,
               (ss.summary->>'playerload')::double precision AS playerload
        FROM sportsensor.sessions s
        LEFT JOIN sportsensor.athletes a ON a.gateway_id = s.gateway_id AND a.id = s.athlete_id
        LEFT JOIN sportsensor.session_summaries ss ON ss.gateway_id = s.gateway_id AND ss.session_id = s.id;

        -- As in version 1, plus the summed PlayerLoad of the sessions that have a summary.
        CREATE OR REPLACE VIEW sportsensor.weekly_load AS
        SELECT a.name AS athlete, date_trunc('week', s.started_at) AS week,
               count(*) AS sessions,
               sum(extract(epoch FROM coalesce(s.ended_at, s.started_at) - s.started_at) / 60.0) AS minutes,
               sum(x.events) AS events, sum(x.intensity_sum) AS intensity_sum,
               sum(x.jump_height_sum_m) AS jump_height_sum_m,
               sum((ss.summary->>'playerload')::double precision) AS playerload
        FROM sportsensor.sessions s
        JOIN sportsensor.athletes a ON a.gateway_id = s.gateway_id AND a.id = s.athlete_id
        LEFT JOIN sportsensor.session_summaries ss ON ss.gateway_id = s.gateway_id AND ss.session_id = s.id
        CROSS JOIN LATERAL (
            SELECT count(*) AS events, coalesce(sum(e.intensity), 0) AS intensity_sum,
                   coalesce(sum(e.height_m), 0) AS jump_height_sum_m
            FROM sportsensor.events e WHERE e.gateway_id = s.gateway_id AND e.session_id = s.id) AS x
        GROUP BY a.name, date_trunc('week', s.started_at);

        -- Weekly load per team of a hall: its members' sessions, minutes and PlayerLoad.
        CREATE VIEW sportsensor.team_weekly_load AS
        SELECT t.gateway_id, t.name AS team, date_trunc('week', s.started_at) AS week,
               count(DISTINCT s.athlete_id) AS athletes, count(*) AS sessions,
               sum(extract(epoch FROM coalesce(s.ended_at, s.started_at) - s.started_at) / 60.0) AS minutes,
               sum((ss.summary->>'playerload')::double precision) AS playerload
        FROM sportsensor.teams t
        JOIN sportsensor.team_members m ON m.gateway_id = t.gateway_id AND m.team_id = t.id
        JOIN sportsensor.sessions s ON s.gateway_id = m.gateway_id AND s.athlete_id = m.athlete_id
        LEFT JOIN sportsensor.session_summaries ss ON ss.gateway_id = s.gateway_id AND ss.session_id = s.id
        GROUP BY t.gateway_id, t.id, t.name, date_trunc('week', s.started_at);
        """

    /// The athletes' and sessions' targets (goals for a summary metric), as each hall sets them:
    /// current settings, so a target removed or replaced locally is deleted here too.
    static let version3 = """
        CREATE TABLE sportsensor.targets (
            gateway_id text NOT NULL,
            id bigint NOT NULL,
            athlete_id bigint,
            session_id uuid,
            metric text NOT NULL,
            value double precision NOT NULL,
            created timestamptz NOT NULL,
            PRIMARY KEY (gateway_id, id)
        );
        CREATE INDEX targets_athlete ON sportsensor.targets (gateway_id, athlete_id);
        """

    /// Raw samples as one row per stored chunk, keyed as the store keys it (session, chunk): a
    /// backlog goes in thousands of samples per row, where a row per sample held PostgreSQL at
    /// its index and its write-ahead log (Docs/PERFORMANCE.md). `samples` becomes a view with the
    /// same columns, over the chunks and the rows replicated before this version.
    static let version4 = """
        ALTER TABLE sportsensor.samples RENAME TO sample_rows;
        ALTER INDEX sportsensor.samples_pkey RENAME TO sample_rows_pkey;
        CREATE TABLE sportsensor.sample_chunks (
            gateway_id text NOT NULL,
            session_id uuid NOT NULL,
            chunk bigint NOT NULL,
            first_index bigint NOT NULL,
            last_index bigint NOT NULL,
            sample_index bigint[] NOT NULL,
            t double precision[] NOT NULL,
            x smallint[] NOT NULL,
            y smallint[] NOT NULL,
            z smallint[] NOT NULL,
            PRIMARY KEY (gateway_id, session_id, chunk)
        );
        -- lz4 where the server has it (PostgreSQL 14 and later, built with lz4): pglz, the default,
        -- took 40 % of the server's time in the catch-up benchmark.
        DO $$ BEGIN IF current_setting('server_version_num')::int >= 140000 THEN EXECUTE 'ALTER TABLE sportsensor.sample_chunks ALTER COLUMN sample_index SET COMPRESSION lz4, ALTER COLUMN t SET COMPRESSION lz4, ALTER COLUMN x SET COMPRESSION lz4, ALTER COLUMN y SET COMPRESSION lz4, ALTER COLUMN z SET COMPRESSION lz4'; END IF; EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL; END $$;

        -- One row per sample, as before: the chunks unnested, and the rows of versions 1-3 that no
        -- chunk holds (a resync sends chunks again whose samples went out as rows).
        CREATE VIEW sportsensor.samples AS
        SELECT r.gateway_id, r.session_id, r.sample_index, r.t, r.x, r.y, r.z FROM sportsensor.sample_rows r
        WHERE NOT EXISTS (
            SELECT 1 FROM sportsensor.sample_chunks c
            WHERE c.gateway_id = r.gateway_id AND c.session_id = r.session_id
              AND r.sample_index BETWEEN c.first_index AND c.last_index)
        UNION ALL
        SELECT c.gateway_id, c.session_id, u.sample_index, u.t, u.x, u.y, u.z
        FROM sportsensor.sample_chunks c
        CROSS JOIN LATERAL unnest(c.sample_index, c.t, c.x, c.y, c.z) AS u(sample_index, t, x, y, z);
        """
}
