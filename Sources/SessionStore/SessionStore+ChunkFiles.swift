// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB

/// The files of sealed chunks (`ChunkRow.file`) when their rows go: a deletion collects the names
/// in its transaction and removes the files after the commit, so a crash in between leaves files
/// without rows, which the next start deletes (`removeUnreferencedSegments`), never a row without
/// its file.
extension ChunkRow {
    /// The file names of the chunk rows `request` selects.
    static func files(_ request: QueryInterfaceRequest<ChunkRow>, _ db: Database) throws -> [String] {
        try String.fetchAll(db, request.filter(Columns.file != nil).select(Columns.file))
    }

    /// The file names of the chunks of the sessions `sessions` (SQL selecting session ids) selects.
    static func files(ofSessions sessions: String, arguments: StatementArguments, _ db: Database) throws -> [String] {
        try String.fetchAll(
            db,
            sql: "SELECT file FROM sample_chunks WHERE file IS NOT NULL AND session_id IN (\(sessions))",
            arguments: arguments)
    }
}

extension SessionStore {
    /// Deletes the files of chunks whose rows a committed transaction deleted. One that cannot be
    /// deleted is logged; the next start deletes it.
    func removeChunkFiles(_ names: [String]) {
        let directory = tailDirectory
        for name in names {
            let file = directory.path + "/" + name
            do { try directory.remove(file) } catch {
                logger.warning("\(error.message)", metadata: ["store.path": "\(file)"])
            }
        }
    }

    /// Bytes the chunk files `names` take.
    func chunkFileBytes(_ names: [String]) -> Int64 {
        let directory = tailDirectory
        return names.reduce(0) { $0 + directory.fileSize($1) }
    }
}

extension SessionStore {
    /// Every chunk file a row names is there (part of `quickCheck`). A file missing in one snapshot
    /// is looked for again in a newer one, so a prune deleting files next to it is no damage.
    func checkChunkFiles() async throws(StoreError) {
        let directory = tailDirectory
        let missing = { @Sendable (db: Database) throws -> [String] in
            try String.fetchAll(db, sql: "SELECT file FROM sample_chunks WHERE file IS NOT NULL").filter {
                !FileManager.default.fileExists(atPath: directory.path + "/" + $0)
            }
        }
        guard !(try await read("checking the chunk files", missing)).isEmpty else { return }
        let gone = try await read("checking the chunk files", missing)
        guard let first = gone.first else { return }
        throw StoreError.corrupt(
            path: path,
            detail: "\(gone.count) chunk file(s) named by the database are missing from \(directory.path) "
                + "(first: \(first)); they hold recorded samples: restore the -tail directory with the database "
                + "from the same backup",
            cause: nil)
    }

    /// The chunk and tail segment files in the tail directory and the bytes they take: the part of
    /// the store outside the database file.
    public func segmentFileUsage() -> (files: Int, bytes: Int64) {
        let directory = tailDirectory
        let entries = directory.entries()
        return (
            entries.count,
            entries.reduce(0) { $0 + directory.fileSize(URL(fileURLWithPath: $1.path).lastPathComponent) }
        )
    }
}
