// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB

extension SessionStore {
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
            let old = SessionRow.filter(SessionRow.Columns.startedAt < cutoff && SessionRow.Columns.endedAt != nil)
            let ids = old.select(SessionRow.Columns.id)
            let affected = try old.fetchCount(db)
            let chunks = ChunkRow.filter(ids.contains(ChunkRow.Columns.sessionID))
            let chunkCount = try chunks.fetchCount(db)
            let samples = try chunks.select(total(ChunkRow.Columns.sampleCount), as: Double.self).fetchOne(db) ?? 0
            var events = 0
            if samplesOnly {
                try chunks.deleteAll(db)
            } else {
                events = try EventRow.filter(ids.contains(EventRow.Columns.sessionID)).fetchCount(db)
                // Events and chunks go with their session (ON DELETE CASCADE).
                try old.deleteAll(db)
            }
            return PruneResult(
                sessionsDeleted: samplesOnly ? 0 : affected, sessionsAffected: affected, chunksDeleted: chunkCount,
                samplesDeleted: Int64(samples), eventsDeleted: events)
        }
        if vacuum {
            do {
                try await database.vacuum()
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
}
