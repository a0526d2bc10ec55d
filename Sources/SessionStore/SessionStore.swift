// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Foundation
import GRDB
import Logging
import SDUSensor

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded session database: one SQLite file in the state directory, in WAL mode, opened
/// through a GRDB `DatabasePool` (one writer, concurrent readers).
///
/// Opening checks the file (a damaged one is reported and left untouched), refuses a database
/// written by a newer schema, runs pending migrations and closes sessions a crashed process left
/// open (see `recoverInterruptedSessions`). Every access runs on GRDB's own queues; the async
/// methods suspend the caller instead of blocking a cooperative thread.
public final class SessionStore: Sendable {
    /// How to open the store.
    public struct Options: Sendable {
        /// Run `PRAGMA quick_check` on open (linear in the file size; on by default).
        public var checkIntegrity: Bool
        /// How long a write waits for another process's lock before failing with `busy`, seconds.
        public var busyTimeout: Double
        /// Caps the database at this many pages (4 KiB each): a quota for the store. Reaching it
        /// behaves like a full disk.
        public var maxPageCount: Int?
        /// Where the store logs.
        public var logger: Logger

        /// Defaults: integrity check on, 5 s busy timeout, no cap.
        public init(
            checkIntegrity: Bool = true, busyTimeout: Double = 5, maxPageCount: Int? = nil,
            logger: Logger = Logger(label: "sportsensord.store")
        ) {
            self.checkIntegrity = checkIntegrity
            self.busyTimeout = busyTimeout
            self.maxPageCount = maxPageCount
            self.logger = logger
        }
    }

    /// The database file.
    public let path: String
    /// Sessions this open found unfinished and closed as `interrupted`.
    public let recoveredSessions: [UUID]
    let pool: DatabasePool
    let logger: Logger
    private let lock: StoreLock

    private init(path: String, pool: DatabasePool, lock: StoreLock, logger: Logger, recovered: [UUID]) {
        self.path = path
        self.pool = pool
        self.lock = lock
        self.logger = logger
        self.recoveredSessions = recovered
    }

    // MARK: Opening

    /// Opens (creating when missing) the database in a state directory.
    public static func open(
        at directory: StateDirectory, options: Options = Options()
    ) throws(StoreError)
        -> SessionStore
    {
        try directory.create()
        return try open(path: directory.databasePath, options: options)
    }

    /// Opens (creating when missing) the database file at `path`.
    public static func open(path: String, options: Options = Options()) throws(StoreError) -> SessionStore {
        let logger = options.logger
        try checkHeader(path: path)
        if options.checkIntegrity { try checkIntegrity(path: path, busyTimeout: options.busyTimeout) }

        var configuration = Configuration()
        configuration.label = "sportsensord.store"
        configuration.busyMode = .timeout(options.busyTimeout)
        configuration.foreignKeysEnabled = true
        let maxPageCount = options.maxPageCount
        configuration.prepareDatabase { db in
            // WAL + NORMAL: a commit is durable once the OS has the WAL pages; a power cut can lose
            // only the last commits not yet checkpointed-synced, never corrupt the file (Docs/ARCHITECTURE.md).
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if let maxPageCount { try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)") }
        }

        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError.wrap(error, path: path, doing: "opening the session database")
        }

        let lock = try StoreLock(path: path + ".lock")
        let exclusive = lock.tryExclusive()
        do {
            try pool.read { db in try StoreSchema.checkCompatible(db, path: path) }
            try StoreSchema.migrator.migrate(pool)
        } catch {
            throw StoreError.wrap(error, path: path, doing: "migrating the session database")
        }

        var recovered: [UUID] = []
        if exclusive {
            recovered = try recoverInterruptedSessions(pool: pool, path: path)
            for id in recovered {
                var logger = logger
                logger[metadataKey: "session.id"] = "\(id.uuidString.lowercased())"
                logger.warning("closed a session left open by a process that stopped while recording (interrupted)")
            }
        } else {
            logger.debug(
                "another process has the session database open: leaving open sessions to it",
                metadata: ["store.path": "\(path)"])
        }
        lock.holdShared()
        return SessionStore(path: path, pool: pool, lock: lock, logger: logger, recovered: recovered)
    }

    /// `PRAGMA quick_check` through a read-only connection, before anything opens the file for
    /// writing, so a damaged file is reported exactly as it was found.
    private static func checkIntegrity(path: String, busyTimeout: Double) throws(StoreError) {
        guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > 0 else {
            return
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        let problems: [String]
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            problems = try queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            try queue.close()
        } catch {
            throw StoreError.wrap(error, path: path, doing: "checking the session database")
        }
        if problems != ["ok"] {
            let detail = problems.prefix(3).joined(separator: "; ")
            throw StoreError.corrupt(path: path, detail: "quick_check: \(detail)", cause: nil)
        }
    }

    /// Rejects a file that exists but does not start like a SQLite database, before SQLite touches it.
    private static func checkHeader(path: String) throws(StoreError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw StoreError(
                    .permission, "cannot read \(path): check its permissions or point --state-dir elsewhere", path: path
                )
            }
            return
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty { return }
        if header != Data("SQLite format 3\0".utf8) {
            throw StoreError.corrupt(path: path, detail: "the file does not start with the SQLite header", cause: nil)
        }
    }

    /// Closes sessions without an end: `ended_at` becomes the time of the last stored sample, else
    /// the last event, else the start; the reason `interrupted`. Runs only when no other process has
    /// the store open, so a live recorder's sessions are never closed under it.
    static func recoverInterruptedSessions(pool: DatabasePool, path: String) throws(StoreError) -> [UUID] {
        do {
            return try pool.write { db in
                let open = try String.fetchAll(db, sql: "SELECT id FROM sessions WHERE ended_at IS NULL")
                guard !open.isEmpty else { return [] }
                try db.execute(
                    sql: """
                        UPDATE sessions SET
                            end_reason = ?,
                            ended_at = started_at + coalesce(
                                (SELECT max(last_time) FROM sample_chunks c WHERE c.session_id = sessions.id),
                                (SELECT max(t) FROM events e WHERE e.session_id = sessions.id),
                                0)
                        WHERE ended_at IS NULL
                        """,
                    arguments: [SessionEndReason.interrupted.rawValue])
                return open.compactMap(UUID.init(uuidString:))
            }
        } catch {
            throw StoreError.wrap(error, path: path, doing: "closing interrupted sessions")
        }
    }

    /// Closes every connection. Further use throws.
    public func close() throws(StoreError) {
        do { try pool.close() } catch {
            throw StoreError.wrap(error, path: path, doing: "closing the session database")
        }
    }

    // MARK: Access helpers

    func read<T: Sendable>(
        _ action: String, _ body: @Sendable @escaping (Database) throws -> T
    ) async throws(StoreError)
        -> T
    {
        do { return try await pool.read(body) } catch { throw StoreError.wrap(error, path: path, doing: action) }
    }

    func write<T: Sendable>(
        _ action: String, _ body: @Sendable @escaping (Database) throws -> T
    ) async throws(StoreError)
        -> T
    {
        do { return try await pool.write(body) } catch { throw StoreError.wrap(error, path: path, doing: action) }
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file, else SQLite's findings.
    public func integrityCheck() async throws(StoreError) -> [String] {
        try await read("checking integrity") { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// Copies the WAL into the database file and truncates the WAL (what SQLite does on its own
    /// every 1000 pages); after it the file alone holds everything committed.
    public func checkpoint() async throws(StoreError) {
        do {
            _ = try await pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        } catch {
            throw StoreError.wrap(error, path: path, doing: "checkpointing the session database")
        }
    }

    // MARK: Athletes and sensors

    /// Adds an athlete; the name must be new.
    public func addAthlete(name: String, created: Date = Date()) async throws(StoreError) -> Athlete {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw StoreError(.invalidArgument, "an athlete needs a name") }
        if try await athlete(named: trimmed) != nil {
            throw StoreError(.invalidArgument, "an athlete named \(trimmed) already exists: choose another name")
        }
        let id = try await write("adding an athlete") { db in
            try db.execute(
                sql: "INSERT INTO athletes (name, created) VALUES (?, ?)",
                arguments: [trimmed, created.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
        return Athlete(id: id, name: trimmed, created: created)
    }

    /// Every athlete, by name.
    public func athletes() async throws(StoreError) -> [Athlete] {
        try await read("listing athletes") { db in
            try Row.fetchAll(db, sql: "SELECT id, name, created FROM athletes ORDER BY name").map(Self.athlete(from:))
        }
    }

    /// The athlete with this exact name.
    public func athlete(named name: String) async throws(StoreError) -> Athlete? {
        try await read("finding an athlete") { db in
            try Row.fetchOne(db, sql: "SELECT id, name, created FROM athletes WHERE name = ?", arguments: [name])
                .map(Self.athlete(from:))
        }
    }

    /// Inserts or updates a sensor by address.
    public func saveSensor(_ sensor: SensorRecord) async throws(StoreError) {
        try await write("saving a sensor") { db in
            try db.execute(
                sql: """
                    INSERT INTO sensors (address, address_type, advertised_name, alias, athlete_id, last_seen, paired)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(address) DO UPDATE SET
                        address_type = excluded.address_type, advertised_name = excluded.advertised_name,
                        alias = excluded.alias, athlete_id = excluded.athlete_id, last_seen = excluded.last_seen,
                        paired = excluded.paired
                    """,
                arguments: [
                    sensor.address.description, sensor.address.kind.description, sensor.advertisedName, sensor.alias,
                    sensor.athleteID, sensor.lastSeen?.timeIntervalSince1970, sensor.paired ? 1 : 0,
                ])
        }
    }

    /// The athlete with this row id.
    public func athlete(id: Int64) async throws(StoreError) -> Athlete? {
        try await read("finding an athlete") { db in
            try Row.fetchOne(db, sql: "SELECT id, name, created FROM athletes WHERE id = ?", arguments: [id])
                .map(Self.athlete(from:))
        }
    }

    /// Every known sensor, by address.
    public func sensors() async throws(StoreError) -> [SensorRecord] {
        try await read("listing sensors") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sensors ORDER BY address").compactMap(Self.sensor(from:))
        }
    }

    // MARK: Sessions

    /// Creates an open session (and the sensor's row, when the sensor is new).
    public func createSession(_ new: NewSession) async throws(StoreError) -> SessionRecord {
        let record = SessionRecord(
            id: new.id, sensor: new.sensor, athleteID: new.athleteID, profile: new.profile,
            profileParameters: new.profileParameters, startedAt: new.startedAt, endedAt: nil, endReason: nil,
            counts: SessionCounts())
        try await write("creating a session") { db in try Self.insert(record, db) }
        return record
    }

    /// Stores a whole finished session in one transaction (import, or a re-analysis saved as new).
    public func importSession(
        _ new: NewSession, samples: [StoredSample], events: [StoredEvent], counts: SessionCounts? = nil,
        endedAt: Date? = nil, reason: SessionEndReason = .imported, chunkLength: Int = 8192
    ) async throws(StoreError) -> SessionRecord {
        let duration = max(samples.last?.t ?? 0, events.map(\.t).max() ?? 0)
        var record = SessionRecord(
            id: new.id, sensor: new.sensor, athleteID: new.athleteID, profile: new.profile,
            profileParameters: new.profileParameters, startedAt: new.startedAt,
            endedAt: endedAt ?? new.startedAt.addingTimeInterval(duration), endReason: reason,
            counts: counts ?? SessionCounts(received: Int64(samples.count)))
        let finished = record
        try await write("importing a session") { db in
            try Self.insert(finished, db)
            var chunk: Int64 = 0
            var start = 0
            while start < samples.count {
                let end = min(start + max(chunkLength, 1), samples.count)
                try Self.writeChunk(Array(samples[start..<end]), number: chunk, session: finished.idText, db)
                chunk += 1
                start = end
            }
            for (sequence, event) in events.enumerated() {
                try Self.insertEvent(event, sequence: Int64(sequence), session: finished.idText, db)
            }
        }
        record.endedAt = finished.endedAt
        return record
    }

    /// Replaces a session's events (after re-running detection with other settings).
    public func replaceEvents(of id: UUID, with events: [StoredEvent]) async throws(StoreError) {
        let idText = id.uuidString.lowercased()
        try await write("replacing events") { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM sessions WHERE id = ?", arguments: [idText]) == true else {
                throw StoreError(.notFound, "no session \(idText): list sessions with `sportsensorctl sessions`")
            }
            try db.execute(sql: "DELETE FROM events WHERE session_id = ?", arguments: [idText])
            for (sequence, event) in events.enumerated() {
                try Self.insertEvent(event, sequence: Int64(sequence), session: idText, db)
            }
        }
    }

    /// Sessions matching `filter`, newest first.
    public func sessions(filter: SessionFilter = SessionFilter()) async throws(StoreError) -> [SessionRecord] {
        var clauses: [String] = []
        var arguments = StatementArguments()
        if let athlete = filter.athleteID {
            clauses.append("sessions.athlete_id = ?")
            arguments += [athlete]
        }
        if let sensor = filter.sensor {
            clauses.append("sessions.sensor_address = ?")
            arguments += [sensor.description]
        }
        if let profile = filter.profile {
            clauses.append("sessions.profile = ?")
            arguments += [profile]
        }
        if let from = filter.startedFrom {
            clauses.append("sessions.started_at >= ?")
            arguments += [from.timeIntervalSince1970]
        }
        if let before = filter.startedBefore {
            clauses.append("sessions.started_at < ?")
            arguments += [before.timeIntervalSince1970]
        }
        var sql = Self.sessionSelect
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY sessions.started_at DESC, sessions.id"
        if let limit = filter.limit { sql += " LIMIT \(max(0, limit))" }
        let query = sql
        let bound = arguments
        return try await read("listing sessions") { db in
            try Row.fetchAll(db, sql: query, arguments: bound).compactMap(Self.session(from:))
        }
    }

    /// One session by its full id.
    public func session(id: UUID) async throws(StoreError) -> SessionRecord {
        try await session(idPrefix: id.uuidString.lowercased())
    }

    /// One session by its id or a unique prefix of it (any case, dashes as printed).
    public func session(idPrefix: String) async throws(StoreError) -> SessionRecord {
        let prefix = idPrefix.lowercased()
        guard !prefix.isEmpty, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw StoreError(
                .notFound, "'\(idPrefix)' is not a session id or prefix: ids are hex digits and dashes")
        }
        let matches = try await read("finding a session") { db in
            try Row.fetchAll(
                db,
                sql: Self.sessionSelect
                    + " WHERE substr(sessions.id, 1, ?) = ? ORDER BY sessions.started_at DESC LIMIT 11",
                arguments: [prefix.count, prefix]
            ).compactMap(Self.session(from:))
        }
        switch matches.count {
        case 0:
            throw StoreError(
                .notFound, "no session id starts with '\(idPrefix)': list them with `sportsensorctl sessions`")
        case 1:
            return matches[0]
        default:
            let shown = matches.prefix(10).map { "\($0.idText) (\($0.profile), started \($0.startedAt))" }
            let more = matches.count > 10 ? "\n  …" : ""
            throw StoreError(
                .ambiguousPrefix,
                "'\(idPrefix)' matches \(matches.count > 10 ? "more than 10" : "\(matches.count)") sessions; give more "
                    + "digits:\n  " + shown.joined(separator: "\n  ") + more)
        }
    }

    /// A session's events in recording order.
    public func events(of id: UUID) async throws(StoreError) -> [StoredEventRecord] {
        let idText = id.uuidString.lowercased()
        return try await read("reading events") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM events WHERE session_id = ? ORDER BY sequence", arguments: [idText]
            )
            .map(Self.event(from:))
        }
    }

    /// A session's samples, decoded, in recording order.
    public func samples(of id: UUID) async throws(StoreError) -> [StoredSample] {
        let idText = id.uuidString.lowercased()
        let blobs = try await read("reading samples") { db in
            try Row.fetchAll(
                db, sql: "SELECT chunk, data FROM sample_chunks WHERE session_id = ? ORDER BY chunk",
                arguments: [idText]
            ).map { row -> (Int64, [UInt8]) in (row["chunk"], [UInt8](row["data"] as Data)) }
        }
        var samples: [StoredSample] = []
        for (chunk, blob) in blobs {
            do {
                samples += try SampleChunkCodec.decode(blob)
            } catch {
                throw StoreError(
                    .badChunk, "sample chunk \(chunk) of session \(idText) cannot be decoded: \(error)", path: path,
                    cause: error)
            }
        }
        return samples
    }

    /// A session's samples in g, with their times.
    public func accelerationSamples(of id: UUID) async throws(StoreError) -> [AccelerationSample] {
        try await samples(of: id).map(\.acceleration)
    }

    /// How many samples a session holds and the bytes their chunks take (BLOB sizes).
    public func sampleStorage(of id: UUID) async throws(StoreError) -> (samples: Int64, bytes: Int64) {
        let idText = id.uuidString.lowercased()
        return try await read("measuring samples") { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT total(sample_count), total(length(data)) FROM sample_chunks WHERE session_id = ?",
                arguments: [idText])
            return (Int64((row?[0] as Double?) ?? 0), Int64((row?[1] as Double?) ?? 0))
        }
    }

    // MARK: Pruning

    /// Deletes finished sessions started before `date` (with their events and samples), or with
    /// `samplesOnly` only their sample chunks, in one transaction. Open sessions are never touched.
    /// `vacuum` then rewrites the file to give the space back to the file system.
    public func prune(
        olderThan date: Date, samplesOnly: Bool = false, vacuum: Bool = false
    ) async throws(StoreError)
        -> PruneResult
    {
        let cutoff = date.timeIntervalSince1970
        let result = try await write("pruning sessions") { db -> PruneResult in
            let selection = "SELECT id FROM sessions WHERE started_at < ? AND ended_at IS NOT NULL"
            let affected = try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(selection))", arguments: [cutoff]) ?? 0
            let chunkRow = try Row.fetchOne(
                db,
                sql: "SELECT count(*), total(sample_count) FROM sample_chunks WHERE session_id IN (\(selection))",
                arguments: [cutoff])
            let chunks: Int = chunkRow?[0] ?? 0
            let samples = Int64((chunkRow?[1] as Double?) ?? 0)
            var events = 0
            if samplesOnly {
                try db.execute(sql: "DELETE FROM sample_chunks WHERE session_id IN (\(selection))", arguments: [cutoff])
            } else {
                events =
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM events WHERE session_id IN (\(selection))", arguments: [cutoff])
                    ?? 0
                try db.execute(
                    sql: "DELETE FROM sessions WHERE started_at < ? AND ended_at IS NOT NULL", arguments: [cutoff])
            }
            return PruneResult(
                sessionsDeleted: samplesOnly ? 0 : affected, sessionsAffected: affected, chunksDeleted: chunks,
                samplesDeleted: samples, eventsDeleted: events)
        }
        if vacuum {
            do {
                try await pool.vacuum()
            } catch {
                throw StoreError.wrap(error, path: path, doing: "vacuuming the session database")
            }
        }
        logger.info(
            "pruned sessions",
            metadata: [
                "store.sessions": "\(result.sessionsAffected)", "store.samples": "\(result.samplesDeleted)",
                "store.samplesOnly": "\(samplesOnly)",
            ])
        return result
    }

    // MARK: Row mapping and statements shared with the recorder

    static func athlete(from row: Row) -> Athlete {
        Athlete(id: row["id"], name: row["name"], created: Date(timeIntervalSince1970: row["created"]))
    }

    static func sensor(from row: Row) -> SensorRecord? {
        let kind: BluetoothAddress.Kind = (row["address_type"] as String) == "random" ? .random : .public
        guard let address = BluetoothAddress(string: row["address"], kind: kind) else { return nil }
        return SensorRecord(
            address: address, advertisedName: row["advertised_name"], alias: row["alias"],
            athleteID: row["athlete_id"],
            lastSeen: (row["last_seen"] as Double?).map(Date.init(timeIntervalSince1970:)),
            paired: (row["paired"] as Int?).map { $0 != 0 } ?? true)
    }

    /// Sessions with their sensor's address type, which `sessions` does not repeat.
    static let sessionSelect = """
        SELECT sessions.*, sensors.address_type AS sensor_address_type FROM sessions
        LEFT JOIN sensors ON sensors.address = sessions.sensor_address
        """

    static func session(from row: Row) -> SessionRecord? {
        guard let id = UUID(uuidString: row["id"]) else { return nil }
        let kind: BluetoothAddress.Kind = (row["sensor_address_type"] as String?) == "random" ? .random : .public
        return SessionRecord(
            id: id, sensor: (row["sensor_address"] as String?).flatMap { BluetoothAddress(string: $0, kind: kind) },
            athleteID: row["athlete_id"], profile: row["profile"], profileParameters: row["profile_parameters"],
            startedAt: Date(timeIntervalSince1970: row["started_at"]),
            endedAt: (row["ended_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            endReason: (row["end_reason"] as String?).map(SessionEndReason.init(rawValue:)),
            counts: SessionCounts(
                received: row["received_count"], lost: row["lost_count"], malformed: row["malformed_count"],
                sampleRate: row["sample_rate"]))
    }

    static func event(from row: Row) -> StoredEventRecord {
        StoredEventRecord(
            sequence: row["sequence"],
            event: StoredEvent(
                type: row["type"], t: row["t"], peakG: row["peak_g"], intensity: row["intensity"],
                takeoff: row["takeoff"], landing: row["landing"], flightSeconds: row["flight_s"],
                heightMeters: row["height_m"], release: row["release"], catchTime: row["catch_t"],
                saturated: (row["saturated"] as Int?).map { $0 != 0 }, extra: row["extra"]))
    }

    static func insert(_ session: SessionRecord, _ db: Database) throws {
        if let sensor = session.sensor {
            try db.execute(
                sql: "INSERT INTO sensors (address, address_type) VALUES (?, ?) ON CONFLICT(address) DO NOTHING",
                arguments: [sensor.description, sensor.kind.description])
        }
        try db.execute(
            sql: """
                INSERT INTO sessions (id, sensor_address, athlete_id, profile, profile_parameters, started_at,
                    ended_at, end_reason, sample_rate, received_count, lost_count, malformed_count)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                session.idText, session.sensor?.description, session.athleteID, session.profile,
                session.profileParameters, session.startedAt.timeIntervalSince1970,
                session.endedAt?.timeIntervalSince1970, session.endReason?.rawValue, session.counts.sampleRate,
                session.counts.received, session.counts.lost, session.counts.malformed,
            ])
    }

    static func insertEvent(_ event: StoredEvent, sequence: Int64, session: String, _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO events (session_id, sequence, type, t, peak_g, intensity, takeoff, landing, flight_s,
                    height_m, release, catch_t, saturated, extra)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        try statement.execute(arguments: [
            session, sequence, event.type, event.t, event.peakG, event.intensity, event.takeoff, event.landing,
            event.flightSeconds, event.heightMeters, event.release, event.catchTime, event.saturated.map { $0 ? 1 : 0 },
            event.extra,
        ])
    }

    /// Writes (or rewrites) one chunk row.
    static func writeChunk(_ samples: [StoredSample], number: Int64, session: String, _ db: Database) throws {
        let summary = SampleChunkCodec.summary(of: samples)
        let blob = SampleChunkCodec.encode(samples)
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO sample_chunks (session_id, chunk, first_index, sample_count, first_time,
                    time_step, last_time, codec_version, data)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        try statement.execute(arguments: [
            session, number, summary.firstIndex, summary.count, summary.firstTime, summary.timeStep,
            samples.last?.t ?? summary.firstTime, Int(SampleChunkCodec.version), Data(blob),
        ])
    }

    static func updateCounts(_ counts: SessionCounts, session: String, _ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE sessions SET received_count = ?, lost_count = ?, malformed_count = ?,
                    sample_rate = coalesce(?, sample_rate)
                WHERE id = ?
                """,
            arguments: [counts.received, counts.lost, counts.malformed, counts.sampleRate, session])
    }

    static func close(session: String, endedAt: Date, reason: SessionEndReason, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?",
            arguments: [endedAt.timeIntervalSince1970, reason.rawValue, session])
    }
}
