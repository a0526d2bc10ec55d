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
