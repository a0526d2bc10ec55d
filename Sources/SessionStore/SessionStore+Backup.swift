// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import SystemCalls

extension SessionStore {
    /// What `backup(to:)` copied.
    public struct BackupResult: Sendable, Hashable {
        /// The database copy.
        public var databasePath: String
        /// Chunk files copied (the samples of recorded chunks).
        public var chunkFiles: Int
        /// Open tail segments copied (the newest samples of sessions recording at the time).
        public var tailSegments: Int
        /// Chunks whose file went while copying (a prune that committed meanwhile): their rows
        /// are left out of the copy.
        public var chunksPruned: Int
        /// Bytes copied, database and files.
        public var bytes: Int64
    }

    /// Copies the store into directory `destination` (created when missing; it must not hold a
    /// store yet): the database as one snapshot (SQLite's online backup), the chunk files that
    /// snapshot's rows name, and the open tail segments of the sessions it shows recording, into
    /// `<database>-tail/` next to the copy. Works next to a recording daemon and on a store opened
    /// read-only; the copy is synced to its disk when this returns. Restoring is putting both in
    /// place of the originals (Docs/OPERATIONS.md, "Your data").
    public func backup(to destination: String) async throws(StoreError) -> BackupResult {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let target = destination + "/" + name
        let copies = TailDirectory(databasePath: target)
        do {
            try FileManager.default.createDirectory(
                atPath: destination, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        } catch {
            throw StoreError(
                .permission, "cannot create the backup directory \(destination): \(error.localizedDescription)",
                path: destination, cause: error)
        }
        for existing in [target, copies.path] where FileManager.default.fileExists(atPath: existing) {
            throw StoreError(
                .invalidArgument,
                "\(existing) exists already: back up into an empty directory (a backup never overwrites one)",
                path: existing)
        }
        do {
            return try await copyStore(into: target, tails: copies)
        } catch {
            // Never leave a partial backup that looks like one: remove what this call created.
            for leftover in [target, target + "-wal", target + "-shm", target + "-journal", copies.path] {
                try? FileManager.default.removeItem(atPath: leftover)
            }
            guard error.code == .diskFull else { throw error }
            throw StoreError(
                .diskFull,
                "cannot write the backup in \(destination): the disk holding it is full: free space on it or back up "
                    + "to another disk (the partial copy was removed)",
                path: destination, cause: error)
        }
    }

    /// The copy itself: the database at `target`, the files into `copies`.
    private func copyStore(into target: String, tails copies: TailDirectory) async throws(StoreError) -> BackupResult {
        let source = tailDirectory
        let copy: DatabaseQueue
        do {
            copy = try DatabaseQueue(path: target)
            // As private as the original (0640): it holds athletes' names and recordings.
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: target)
        } catch {
            throw StoreError.wrap(error, path: target, doing: "creating the backup copy")
        }
        var result = try await read("backing up the session database") { db -> BackupResult in
            try copy.writeWithoutTransaction { copyDB in try db.backup(to: copyDB) }
            var result = BackupResult(databasePath: target, chunkFiles: 0, tailSegments: 0, chunksPruned: 0, bytes: 0)
            try Self.makeDirectory(copies.path)
            let named = try Row.fetchAll(
                db, sql: "SELECT session_id, chunk, file FROM sample_chunks WHERE file IS NOT NULL")
            var gone: [(String, Int64)] = []
            for row in named {
                let file: String = row["file"]
                if let bytes = try Self.copyFile(source.path + "/" + file, to: copies.path + "/" + file) {
                    result.chunkFiles += 1
                    result.bytes += bytes
                } else {
                    gone.append((row["session_id"], row["chunk"]))
                }
            }
            for id in try String.fetchAll(
                db, SessionRow.filter(SessionRow.Columns.endedAt == nil).select(SessionRow.Columns.id))
            {
                guard let session = UUID(uuidString: id) else { continue }
                var chunk = (try Self.storedEnds(of: id, db).chunk ?? -1) + 1
                while let bytes = try Self.copyFile(
                    source.filePath(session: session, chunk: chunk), to: copies.filePath(session: session, chunk: chunk)
                ) {
                    result.tailSegments += 1
                    result.bytes += bytes
                    chunk += 1
                }
            }
            try copy.write { copyDB in
                for (session, chunk) in gone {
                    try copyDB.execute(
                        sql: "DELETE FROM sample_chunks WHERE session_id = ? AND chunk = ?",
                        arguments: [session, chunk])
                }
            }
            result.chunksPruned = gone.count
            return result
        }
        do {
            try await copy.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
            try copy.close()
            try copies.sync()
        } catch {
            throw StoreError.wrap(error, path: target, doing: "finishing the backup copy")
        }
        result.bytes += Int64((try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int) ?? 0)
        return result
    }

    private static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
    }

    /// Copies `from` to `to` whole or not at all (`WholeFileWriter`: every write checked, synced,
    /// renamed into place); nil when `from` does not exist. A file that exists but cannot be read
    /// fails the backup: a backup that silently lacks it would look complete.
    private static func copyFile(_ from: String, to: String) throws(StoreError) -> Int64? {
        let data: [UInt8]
        switch WholeFileReader.contents(of: from) {
        case .success(nil): return nil
        case .success(let bytes?): data = bytes
        case .failure(let failure):
            throw StoreError(
                .badChunk,
                "cannot read \(from) to back it up (\(failure)): check the disk (`dmesg`); the store is unchanged",
                path: from, cause: failure)
        }
        guard case .failure(let failure) = WholeFileWriter.replace(to, with: data, mode: 0o640) else {
            return Int64(data.count)
        }
        if failure.isWriteError { throw StoreError.diskFull(path: to, cause: failure) }
        throw StoreError(
            .permission, "cannot write the backup file \(to) (\(failure)): check the permissions of its directory",
            path: to, cause: failure)
    }
}
