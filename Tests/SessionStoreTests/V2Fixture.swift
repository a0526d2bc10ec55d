// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor
import SessionStore
import StoreFormats

/// A database as schema v2 wrote it, frozen as SQL: the last schema whose recorder rewrote its
/// open chunk in place (no tail segments). A finished session whose chunks are a format-1 and a
/// format-2 BLOB, and a session a crash left open with a partial chunk. It must stay readable by
/// every later build: never edit it when the schema changes; add a fixture for the new version.
enum V2Fixture {
    /// The finished session.
    static let finished = "5e55e55e-2222-4222-8333-444455556666"
    /// The session left open.
    static let open = "0be40be4-3333-4333-8333-444455556666"

    /// The finished session's samples: the v1 fixture's chunk, then the codec fixture's.
    static var finishedSamples: [IndexedSample] { V1Fixture.samples + SampleChunkFixtures.samples }

    static let sql = """
        PRAGMA application_id = 1397968452;
        PRAGMA user_version = 2;
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1-initial');
        INSERT INTO grdb_migrations VALUES ('v2-paired-sensors');
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
            last_seen REAL,
            paired INTEGER NOT NULL DEFAULT 0
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
        INSERT INTO sensors VALUES ('FC:97:8B:75:10:AB', 'random', 'BC05FC978B7510AB', 'left wrist', 1, 1700000100.0,
            1);
        INSERT INTO sessions VALUES ('5e55e55e-2222-4222-8333-444455556666', 'FC:97:8B:75:10:AB', 1,
            'table-tennis', '{"threshold_g":1.5}', 1700000000.0, 1700000060.0, 'stopped', 99.5, 76, 5, 0);
        INSERT INTO sessions VALUES ('0be40be4-3333-4333-8333-444455556666', 'FC:97:8B:75:10:AB', 1,
            'jump', '{}', 1700001000.0, NULL, NULL, 100.0, 6, 0, 0);
        INSERT INTO events VALUES ('5e55e55e-2222-4222-8333-444455556666', 0, 'hit', 0.51, 1.9, 0.8, NULL, NULL,
            NULL, NULL, NULL, NULL, 1, NULL);
        INSERT INTO events VALUES ('5e55e55e-2222-4222-8333-444455556666', 1, 'step', 12.6, NULL, NULL, NULL, NULL,
            NULL, NULL, NULL, NULL, NULL, '{"cadence_spm":121.5}');
        INSERT INTO events VALUES ('0be40be4-3333-4333-8333-444455556666', 0, 'jump', 0.53, NULL, NULL, 0.52, 1.02,
            0.5, 0.31, NULL, NULL, NULL, NULL);
        INSERT INTO sample_chunks VALUES ('5e55e55e-2222-4222-8333-444455556666', 0, 1000, 6, 0.5, 0.01, 0.55, 1,
            X'0106d00f0000000000000000e03f8014ae47e17a843f00c0d13d0e828c8c8cccf0f7ff0c8001300006c000c06c00');
        INSERT INTO sample_chunks VALUES ('5e55e55e-2222-4222-8333-444455556666', 1, 5000, 70, 12.5, 0.01, 13.24, 2,
            X'0246904e01280a0000000000000029407d14ae47e17a843f007bd18d7a37546b1fa818d3146473aca17b5d7c70d3975c'
            || X'20ffd2b2b0a06f705db4b620996f2908da2ae9e760ceff016fee28495fdb217cf81b602c87804cb3ffe5d3ab2e8ff3bc'
            || X'faee138fdfcb812fcb32f3bdb649ec2ab812853a0c8bc867059a9d2f9f7e7d8be66734b7cc0f238af094fac883631aab'
            || X'89db9b7cfec6bbb977b5806645e127e45e3e5a0cc8b2cb23c6a57101b73dd83451e4ddd2e23419334faf6ae3acb88fec'
            || X'0bc669de322be0393330735880cd6386b0a6cb308c3912a9762fbedbcf7ed6ade121d2acb4481b538900cd3983964fd3'
            || X'e2638c19960dc6ea315f0a349e470dbb9eead4c9b200');
        INSERT INTO sample_chunks VALUES ('0be40be4-3333-4333-8333-444455556666', 0, 1000, 6, 0.5, 0.01, 0.55, 1,
            X'0106d00f0000000000000000e03f8014ae47e17a843f00c0d13d0e828c8c8cccf0f7ff0c8001300006c000c06c00');
        """
}
