// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import Logging

#if canImport(Glibc)
import Glibc
#endif

extension SessionStore {
    /// Each connection's page cache, KiB (SQLite's default is 2 000). The samples live in segment
    /// files; what the database holds is small rows written at seals and read by short queries,
    /// and the default cache grew on the writer a seal at a time and stayed resident
    /// (Docs/PERFORMANCE.md, "Memory: anonymous").
    static let pageCacheKiB = 512

    /// Opens (creating when missing) the database in a state directory, for reading and writing.
    public static func open(
        at directory: StateDirectory, options: Options = Options()
    ) throws(StoreError)
        -> SessionStore
    {
        try directory.create()
        return try open(path: directory.databasePath, options: options)
    }

    /// Opens (creating when missing) the database file at `path` for reading and writing: checks
    /// that it is a sportsensord database of a schema this build knows, migrates it to the current
    /// schema and, when no other process has it open, closes sessions a crashed process left open.
    public static func open(path: String, options: Options = Options()) throws(StoreError) -> SessionStore {
        let logger = options.logger
        // Refuse a file this build must not touch before a writer connection opens it.
        try openReadOnly(path: path, options: options).close()

        var configuration = Configuration()
        configuration.label = "sportsensord.store"
        configuration.busyMode = .timeout(options.busyTimeout)
        configuration.foreignKeysEnabled = true
        let maxPageCount = options.maxPageCount
        configuration.prepareDatabase { db in
            // WAL + NORMAL: a commit is durable once the OS has the WAL pages; a power cut can lose
            // only the last commits not yet checkpointed-synced, never corrupt the file (Docs/ARCHITECTURE.md).
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA cache_size = -\(Self.pageCacheKiB)")
            if let maxPageCount { try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)") }
        }

        // A new database is made 0640 here, whatever the umask: SQLite would make it 0644 under
        // the usual umask 022, and it gives the WAL and SHM files the database file's mode.
        let created = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        if created >= 0 { Glibc.close(created) }

        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError.wrap(error, path: path, doing: "opening the session database")
        }

        let lock = try StoreLock(path: path + ".lock")
        let exclusive = lock.tryExclusive()
        do {
            try StoreSchema.migrator.migrate(pool)
        } catch {
            throw StoreError.wrap(error, path: path, doing: "migrating the session database")
        }

        var recovered: [UUID] = []
        if exclusive {
            // Each closed session is logged there: interrupted, or ended as its recovery file says.
            recovered = try recoverInterruptedSessions(pool, path: path, logger: logger)
        } else {
            logger.debug(
                "another process has the session database open: leaving open sessions to it",
                metadata: ["store.path": "\(path)"])
        }
        lock.holdShared()
        var reserve: SpillReserve?
        if exclusive, options.spillReserveBytes > 0 {
            reserve = SpillReserve(
                directory: TailDirectory(databasePath: path), bytes: options.spillReserveBytes, logger: logger)
            reserve?.renew()
        }
        return SessionStore(
            path: path, database: pool, lock: lock, logger: logger, recovered: recovered, isReadOnly: false,
            spillReserve: reserve)
    }

    /// Opens the database in a state directory for reading only.
    public static func openReadOnly(
        at directory: StateDirectory, options: Options = Options()
    ) throws(StoreError)
        -> SessionStore
    {
        try openReadOnly(path: directory.databasePath, options: options)
    }

    /// Opens the database file at `path` for reading only, changing nothing: no file is created
    /// (not even the lock, WAL or shared-memory file when they are missing), no migration runs and
    /// no session is closed, so it works on a directory the caller may only read (the daemon's,
    /// through its group) and on a read-only file system, next to a running daemon. A file of a
    /// newer schema is refused (`newerSchema`, naming the fix); an older one is read as it is. A
    /// missing file reads as an empty store.
    public static func openReadOnly(path: String, options: Options = Options()) throws(StoreError) -> SessionStore {
        try checkHeader(path: path)
        var configuration = Configuration()
        configuration.label = "sportsensord.store"
        configuration.busyMode = .timeout(options.busyTimeout)
        configuration.readonly = true
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let queue: DatabaseQueue
        do {
            if size == 0 {
                // Nothing stored yet: an empty store in memory answers every read the same way.
                var memory = configuration
                memory.readonly = false
                queue = try DatabaseQueue(configuration: memory)
                try StoreSchema.migrator.migrate(queue)
            } else {
                if FileManager.default.fileExists(atPath: path + "-wal") {
                    // A process has the store open (or stopped without closing it): read through the WAL.
                    queue = try DatabaseQueue(path: path, configuration: configuration)
                } else {
                    // No WAL: nobody has the store open and the file alone holds every commit.
                    // Reading it as immutable needs no lock or shared-memory file, which a reader
                    // may be unable to create.
                    queue = try DatabaseQueue(path: immutableURI(path), configuration: configuration)
                }
                try queue.read { db in try StoreSchema.checkCompatible(db, path: path) }
            }
        } catch {
            throw StoreError.wrap(error, path: path, doing: "opening the session database to read it")
        }
        return SessionStore(
            path: path, database: queue, lock: nil, logger: options.logger, recovered: [], isReadOnly: true)
    }

    /// `file:` URI of `path` with `immutable=1` (SQLite then takes no locks and never looks for a WAL).
    static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
    }

    /// Rejects a file that exists but does not start like a SQLite database, before SQLite touches it.
    static func checkHeader(path: String) throws(StoreError) {
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
}
