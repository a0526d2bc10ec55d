// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB

/// The database schema: named migrations in order, each stamping its version into
/// `PRAGMA user_version`, and the checks that refuse a database this build cannot read.
public enum StoreSchema {
    /// `PRAGMA application_id` of a sportsensord database: "SSND".
    public static let applicationID: Int32 = 0x5353_4E44

    /// One migration: its GRDB identifier and the schema version it leaves behind.
    public struct Version: Hashable, Sendable {
        /// The migration's name in `grdb_migrations`.
        public var name: String
        /// The value of `PRAGMA user_version` after it.
        public var number: Int
    }

    /// Every schema version, oldest first. Adding a schema change means appending here and to
    /// `migrator` below, never editing an entry.
    public static let versions: [Version] = [
        Version(name: "v1-initial", number: 1),
        Version(name: "v2-paired-sensors", number: 2),
        Version(name: "v3-session-stored-at", number: 3),
        Version(name: "v4-tail-segments", number: 4),
        Version(name: "v5-roster-summaries-targets", number: 5),
        Version(name: "v6-replication-outbox", number: 6),
        Version(name: "v7-sealed-chunk-files", number: 7),
        Version(name: "v8-athlete-racket-hand", number: 8),
        Version(name: "v9-session-unsaved-samples", number: 9),
    ]

    /// The version this build writes.
    public static var current: Version { versions[versions.count - 1] }

    /// The migrator with every version registered.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try createVersion1(db)
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        migrator.registerMigration("v2-paired-sensors") { db in
            // Pairing is a state of its own: a sensor row also exists for every sensor a session
            // was recorded from, and unpairing must keep those sessions' sensor. Sensors known
            // before v2 were all paired by hand.
            try db.execute(
                sql: """
                    ALTER TABLE sensors ADD COLUMN paired INTEGER NOT NULL DEFAULT 0;
                    UPDATE sensors SET paired = 1;
                    """)
            try db.execute(sql: "PRAGMA user_version = 2")
        }
        migrator.registerMigration("v3-session-stored-at") { db in
            // Retention counts from when a session entered this store, not from when it was
            // recorded: an import of last year's recording is new here. Sessions stored before
            // v3 count from the upgrade, so an upgrade never deletes anything at once.
            try db.execute(
                sql: "ALTER TABLE sessions ADD COLUMN stored_at REAL; UPDATE sessions SET stored_at = ?;",
                arguments: [Date().timeIntervalSince1970])
            try db.execute(sql: "PRAGMA user_version = 3")
        }
        migrator.registerMigration("v4-tail-segments") { db in
            // No table changes: a recording session's open chunk now lives in tail segments next to
            // the database (`<database>-tail/`) until it is compacted. An older build would not
            // read them, so it must refuse the store (newer schema) instead of missing samples.
            try db.execute(sql: "PRAGMA user_version = 4")
        }
        migrator.registerMigration("v5-roster-summaries-targets") { db in
            try createRosterSummariesTargets(db)
            try db.execute(sql: "PRAGMA user_version = 5")
        }
        migrator.registerMigration("v6-replication-outbox") { db in
            // The durable outbox of replication (Docs/REPLICATION.md): keys of changed rows, queued
            // by triggers that enabling replication installs, so a change and its outbox item
            // commit together. No triggers (nothing queued) until replication is configured.
            try db.execute(
                sql: """
                    CREATE TABLE replication_outbox (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        table_name TEXT NOT NULL,
                        key1 NOT NULL,
                        key2,
                        queued_at REAL NOT NULL
                    );
                    CREATE TABLE replication_state (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        gateway_id TEXT NOT NULL,
                        instance_id TEXT NOT NULL,
                        samples INTEGER NOT NULL DEFAULT 0,
                        queueing INTEGER NOT NULL DEFAULT 1
                    );
                    PRAGMA user_version = 6;
                    """)
        }
        migrator.registerMigration("v7-sealed-chunk-files") { db in
            // A recorded chunk stays in its sealed tail segment file and its row names that file
            // (`data` is then empty) instead of holding the chunk as a BLOB written twice through
            // the WAL (Docs/FORMATS.md, "Stored sample chunks"). Imported chunks keep their BLOB. An older
            // build would read a file row as an empty chunk, so it must refuse the store.
            try db.execute(
                sql: """
                    ALTER TABLE sample_chunks ADD COLUMN file TEXT;
                    PRAGMA user_version = 7;
                    """)
        }
        migrator.registerMigration("v8-athlete-racket-hand") { db in
            // The hand an athlete holds the racket in, which telling a table-tennis stroke's side
            // needs. Unknown for everyone before v8.
            try db.execute(
                sql: """
                    ALTER TABLE athletes ADD COLUMN racket_hand TEXT
                        CHECK (racket_hand IS NULL OR racket_hand IN ('left', 'right'));
                    PRAGMA user_version = 8;
                    """)
        }
        migrator.registerMigration("v9-session-unsaved-samples") { db in
            // Samples a session received that the store could not keep (a full disk, a full
            // recorder buffer): counted in the session's own row, so no loss goes uncounted. Zero
            // for every session before v9 (such losses were only in the journal).
            try db.execute(
                sql: """
                    ALTER TABLE sessions ADD COLUMN unsaved_samples INTEGER NOT NULL DEFAULT 0;
                    PRAGMA user_version = 9;
                    """)
        }
        return migrator
    }

    /// The first schema. Times are Unix seconds (REAL); sample and event times are seconds after
    /// the session's `started_at`.
    static func createVersion1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE athletes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE,
                    created REAL NOT NULL
                );
                CREATE TABLE sensors (
                    address TEXT PRIMARY KEY NOT NULL,
                    address_type TEXT NOT NULL CHECK (address_type IN ('public', 'random')),
                    advertised_name TEXT,
                    alias TEXT UNIQUE,
                    athlete_id INTEGER REFERENCES athletes(id) ON DELETE SET NULL,
                    last_seen REAL
                );
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY NOT NULL,
                    sensor_address TEXT REFERENCES sensors(address) ON DELETE SET NULL,
                    athlete_id INTEGER REFERENCES athletes(id) ON DELETE SET NULL,
                    profile TEXT NOT NULL,
                    profile_parameters TEXT NOT NULL DEFAULT '{}',
                    started_at REAL NOT NULL,
                    ended_at REAL,
                    end_reason TEXT,
                    sample_rate REAL,
                    received_count INTEGER NOT NULL DEFAULT 0,
                    lost_count INTEGER NOT NULL DEFAULT 0,
                    malformed_count INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX sessions_started ON sessions(started_at);
                CREATE INDEX sessions_athlete ON sessions(athlete_id, started_at);
                CREATE INDEX sessions_sensor ON sessions(sensor_address, started_at);
                CREATE INDEX sessions_profile ON sessions(profile, started_at);
                CREATE INDEX sessions_open ON sessions(ended_at) WHERE ended_at IS NULL;
                CREATE TABLE events (
                    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    sequence INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    t REAL NOT NULL,
                    peak_g REAL,
                    intensity REAL,
                    takeoff REAL,
                    landing REAL,
                    flight_s REAL,
                    height_m REAL,
                    release REAL,
                    catch_t REAL,
                    saturated INTEGER,
                    extra TEXT,
                    PRIMARY KEY (session_id, sequence)
                ) WITHOUT ROWID;
                CREATE TABLE sample_chunks (
                    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    chunk INTEGER NOT NULL,
                    first_index INTEGER NOT NULL,
                    sample_count INTEGER NOT NULL,
                    first_time REAL NOT NULL,
                    time_step REAL NOT NULL,
                    last_time REAL NOT NULL,
                    codec_version INTEGER NOT NULL,
                    data BLOB NOT NULL,
                    PRIMARY KEY (session_id, chunk)
                );
                """)
    }

    /// The roster (body mass, birth year, teams), the stored session summaries and targets.
    /// Athletes already had ids, and sensors and sessions referred to them by id since v1 (the
    /// name given at `start`/`import` became an `athletes` row), so the roster only adds columns:
    /// every existing athlete keeps its id and sessions, with mass and birth year unknown.
    /// Summaries are JSON (`SessionSummary`, one key per metric), so a new metric needs no
    /// migration; sessions stored before v5 get theirs from `reanalyze` (until then `show`
    /// computes it on the fly).
    static func createRosterSummariesTargets(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE athletes ADD COLUMN mass_kg REAL CHECK (mass_kg IS NULL OR (mass_kg > 0 AND mass_kg < 500));
                ALTER TABLE athletes ADD COLUMN birth_year INTEGER;
                CREATE TABLE teams (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE,
                    created REAL NOT NULL
                );
                CREATE TABLE team_members (
                    team_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
                    athlete_id INTEGER NOT NULL REFERENCES athletes(id) ON DELETE CASCADE,
                    PRIMARY KEY (team_id, athlete_id)
                ) WITHOUT ROWID;
                CREATE INDEX team_members_athlete ON team_members(athlete_id);
                CREATE TABLE session_summaries (
                    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    summary TEXT NOT NULL,
                    computed_at REAL NOT NULL
                );
                CREATE TABLE targets (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    athlete_id INTEGER REFERENCES athletes(id) ON DELETE CASCADE,
                    session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
                    metric TEXT NOT NULL,
                    value REAL NOT NULL CHECK (value > 0),
                    created REAL NOT NULL,
                    CHECK ((athlete_id IS NULL) != (session_id IS NULL)),
                    UNIQUE (athlete_id, metric),
                    UNIQUE (session_id, metric)
                );
                """)
    }

    /// Refuses a database this build must not touch: another application's, or one written by a
    /// newer sportsensord (a higher `user_version` or migrations this build does not know).
    static func checkCompatible(_ db: Database, path: String) throws {
        let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        let userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        let tableCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
        if applicationID != 0 && applicationID != Self.applicationID {
            throw StoreError(
                .notOurDatabase,
                "\(path) is a SQLite database of another application (application_id \(applicationID)): point "
                    + "--state-dir elsewhere",
                path: path)
        }
        let hasMigrations = try db.tableExists("grdb_migrations")
        if applicationID == 0 && tableCount > 0 && !hasMigrations {
            throw StoreError(
                .notOurDatabase,
                "\(path) holds tables but is not a sportsensord database: point --state-dir elsewhere", path: path)
        }
        let known = Set(versions.map(\.name))
        var unknown: [String] = []
        if hasMigrations {
            unknown = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").filter {
                !known.contains($0)
            }
        }
        if userVersion > current.number || !unknown.isEmpty {
            let schema = max(userVersion, current.number + (unknown.isEmpty ? 0 : 1))
            let names = unknown.isEmpty ? "" : " (unknown migrations: \(unknown.sorted().joined(separator: ", ")))"
            throw StoreError(
                .newerSchema,
                "\(path) was written by a newer sportsensord (schema \(schema))\(names); this build reads up to "
                    + "schema \(current.number): upgrade sportsensord or point --state-dir elsewhere",
                path: path)
        }
    }
}
