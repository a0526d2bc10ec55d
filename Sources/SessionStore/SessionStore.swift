// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded session database: one SQLite file in the state directory, in WAL mode.
///
/// `open` (the daemon and the commands that write) opens it through a GRDB `DatabasePool` (one
/// writer, concurrent readers), refuses a file that is not a sportsensord database or was written
/// by a newer schema, runs pending migrations and closes sessions a crashed process left open.
/// `openReadOnly` (the commands that only read) changes nothing, not even the schema. Neither
/// checks the whole file: `quickCheck()` does, on demand (`sportsensorctl store check`, and once in
/// the background after the daemon starts). Every access runs on GRDB's own queues; the async
/// methods suspend the caller instead of blocking a cooperative thread. The work is split by
/// concern: opening, sensors and athletes, sessions, events, samples, pruning.
public final class SessionStore: Sendable {
    /// How to open the store.
    public struct Options: Sendable {
        /// How long an access waits for another process's lock before failing with `busy`, seconds.
        public var busyTimeout: Double
        /// Caps the database at this many pages (4 KiB each): a quota for the store. Reaching it
        /// behaves like a full disk.
        public var maxPageCount: Int?
        /// Where the store logs.
        public var logger: Logger
        /// Disk space held back for spilling unsaved rows when the disk fills (`SpillReserve`);
        /// 0 holds none. Only an open for writing that recovered the store allocates it.
        public var spillReserveBytes: Int

        /// Defaults: 5 s busy timeout, no cap, no spill reserve.
        public init(
            busyTimeout: Double = 5, maxPageCount: Int? = nil, logger: Logger = Logger(label: "sportsensord.store"),
            spillReserveBytes: Int = 0
        ) {
            self.busyTimeout = busyTimeout
            self.maxPageCount = maxPageCount
            self.logger = logger
            self.spillReserveBytes = spillReserveBytes
        }
    }

    /// The database file.
    public let path: String
    /// Sessions this open found unfinished and closed as `interrupted`.
    public let recoveredSessions: [UUID]
    /// True when opened with `openReadOnly`: every write fails.
    public let isReadOnly: Bool
    let database: any DatabaseWriter
    let logger: Logger
    /// Space held back for recorders to spill into when the disk is full.
    let spillReserve: SpillReserve?
    private let lock: StoreLock?

    init(
        path: String, database: any DatabaseWriter, lock: StoreLock?, logger: Logger, recovered: [UUID],
        isReadOnly: Bool, spillReserve: SpillReserve? = nil
    ) {
        self.path = path
        self.spillReserve = spillReserve
        self.database = database
        self.lock = lock
        self.logger = logger
        self.recoveredSessions = recovered
        self.isReadOnly = isReadOnly
    }

    /// Closes every connection. Further use throws.
    public func close() throws(StoreError) {
        do { try database.close() } catch {
            throw StoreError.wrap(error, path: path, doing: "closing the session database")
        }
        // Closed for good: the next opener may recover what this one left open.
        lock?.release()
    }

    // MARK: Access helpers

    func read<T: Sendable>(
        _ action: String, _ body: @Sendable @escaping (Database) throws -> T
    ) async throws(StoreError)
        -> T
    {
        do { return try await database.read(body) } catch {
            throw StoreError.wrap(error, path: path, doing: action)
        }
    }

    func write<T: Sendable>(
        _ action: String, _ body: @Sendable @escaping (Database) throws -> T
    ) async throws(StoreError)
        -> T
    {
        try refuseIfReadOnly(action)
        do { return try await database.write(body) } catch {
            throw StoreError.wrap(error, path: path, doing: action)
        }
    }

    func refuseIfReadOnly(_ action: String) throws(StoreError) {
        guard isReadOnly else { return }
        throw StoreError(
            .readOnly, "\(action): the session database \(path) was opened read-only", path: path)
    }

    // MARK: Checks and maintenance

    /// `PRAGMA quick_check`: returns when the file is sound, else throws `corrupt` with SQLite's
    /// first findings. Reads every page (seconds for a large store), on a reader connection, so
    /// recording goes on meanwhile; cancelling the task interrupts it.
    public func quickCheck() async throws(StoreError) {
        let problems = try await read("checking the session database") { db in
            try String.fetchAll(db, sql: "PRAGMA quick_check")
        }
        if problems != ["ok"] {
            throw StoreError.corrupt(
                path: path, detail: "quick_check: \(problems.prefix(3).joined(separator: "; "))", cause: nil)
        }
        try await checkChunkFiles()
    }

    /// Runs `quickCheck()` once in the background, logs what it finds (an error naming the fix
    /// when the file is damaged) and hands the damage, or nil, to `onResult`: the daemon's check
    /// after it starts. Cancel the task to stop it (`onResult` is then not called).
    @discardableResult
    public func checkInBackground(onResult: @escaping @Sendable (StoreError?) -> Void = { _ in }) -> Task<Void, Never> {
        Task.detached { [self] in
            let started = ContinuousClock.now
            do throws(StoreError) {
                try await quickCheck()
                logger.info(
                    "session database checked: no damage found",
                    metadata: ["store.path": "\(path)", "store.check_seconds": "\(ContinuousClock.now - started)"])
                onResult(nil)
            } catch  where Task.isCancelled {
                return
            } catch {
                logger.error("\(error.message)", metadata: ["store.path": "\(path)", "store.error": "\(error.code)"])
                onResult(error)
            }
        }
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file, else SQLite's findings.
    public func integrityCheck() async throws(StoreError) -> [String] {
        try await read("checking integrity") { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// Copies the WAL into the database file and truncates the WAL (what SQLite does on its own
    /// every 1000 pages); after it the file alone holds everything committed.
    public func checkpoint() async throws(StoreError) {
        try refuseIfReadOnly("checkpointing")
        do {
            _ = try await database.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        } catch {
            throw StoreError.wrap(error, path: path, doing: "checkpointing the session database")
        }
    }
}
