// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import SessionStore
import StoreFormats

/// A database as schema v1 wrote it, frozen as SQL (tables, GRDB's migration record, pragmas and
/// rows, including one sample chunk's bytes). It must stay readable by every later build: never
/// edit it when the schema changes; add a fixture for the new version instead.
enum V1Fixture {
    /// The samples the chunk below holds.
    static var samples: [IndexedSample] {
        var samples: [IndexedSample] = []
        for n in 0..<6 {
            let x = Int16(100 * n - 200)
            let y = Int16(-16384 + 3 * n)
            let z = Int16(n * n)
            let t = 0.5 + Double(n) * 0.01
            samples.append(IndexedSample(index: 1000 + Int64(n), t: t, raw: RawAcceleration(x: x, y: y, z: z)))
        }
        return samples
    }

    static let sql = """
        PRAGMA application_id = 1397968452;
        PRAGMA user_version = 1;
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1-initial');
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
        INSERT INTO athletes VALUES (1, 'Ada', 1700000000.0);
        INSERT INTO sensors VALUES ('FC:97:8B:75:10:AB', 'random', 'BC05FC978B7510AB', 'left wrist', 1, 1700000100.0);
        INSERT INTO sessions VALUES ('5e55e55e-1111-4222-8333-444455556666', 'FC:97:8B:75:10:AB', 1,
            'table-tennis', '{"threshold_g":1.5}', 1700000000.0, 1700000060.0, 'stopped', 99.5, 6, 1, 2);
        INSERT INTO events VALUES ('5e55e55e-1111-4222-8333-444455556666', 0, 'hit', 0.51, 1.9, 0.8, NULL, NULL,
            NULL, NULL, NULL, NULL, 1, NULL);
        INSERT INTO events VALUES ('5e55e55e-1111-4222-8333-444455556666', 1, 'jump', 0.53, NULL, NULL, 0.52, 1.02,
            0.5, 0.31, NULL, NULL, 0, '{"k":1}');
        INSERT INTO sample_chunks VALUES ('5e55e55e-1111-4222-8333-444455556666', 0, 1000, 6, 0.5, 0.01, 0.55, 1,
            X'0106d00f0000000000000000e03f8014ae47e17a843f00c0d13d0e828c8c8cccf0f7ff0c8001300006c000c06c00');
        """
}
