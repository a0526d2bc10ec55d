// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB

extension SessionStore {
    /// What a prune removes (or, as a dry run, would remove).
    public struct PruneOptions: Sendable, Hashable {
        /// Keep the sessions and their events; delete only their samples.
        public var samplesOnly = false
        /// Only report what would go.
        public var dryRun = false
        /// Rewrite the file afterwards to give the space back to the file system.
        public var vacuum = false
        /// The largest share (0…1) of the store's finished sessions one prune may take; nil for
        /// no limit. Past it the prune deletes nothing and throws, so a wrong age or a clock that
        /// jumped cannot empty the store at once.
        public var maximumShare: Double?

        /// Options; the defaults delete whole sessions, without a limit.
        public init(samplesOnly: Bool = false, dryRun: Bool = false, vacuum: Bool = false, maximumShare: Double? = nil)
        {
            self.samplesOnly = samplesOnly
            self.dryRun = dryRun
            self.vacuum = vacuum
            self.maximumShare = maximumShare
        }
    }

    /// Deletes finished sessions that entered this store before `date` (with their events and
    /// samples), or with `samplesOnly` only their sample chunks, in one transaction; open sessions
    /// are never touched. Every deleted session is logged by id.
    ///
    /// - Throws: ``StoreError`` `invalidArgument` when it would take more than
    ///   `maximumShare` of the finished sessions (nothing is deleted).
    public func prune(
        storedBefore date: Date, _ options: PruneOptions = PruneOptions()
    ) async throws(StoreError)
        -> PruneResult
    {
        let cutoff = date.timeIntervalSince1970
        let directory = tailDirectory
        let body = { @Sendable (db: Database) throws -> (PruneResult, [String]) in
            let finished = SessionRow.filter(SessionRow.Columns.endedAt != nil)
            let old = finished.filter(SessionRow.Columns.storedAt < cutoff)
            let ids = try String.fetchAll(db, old.select(SessionRow.Columns.id).order(SessionRow.Columns.startedAt))
            let chunks = ChunkRow.filter(ids.contains(ChunkRow.Columns.sessionID))
            let chunkCount = try chunks.fetchCount(db)
            let samples = try chunks.select(total(ChunkRow.Columns.sampleCount), as: Double.self).fetchOne(db) ?? 0
            let bytes = try chunks.select(total(length(ChunkRow.Columns.data)), as: Double.self).fetchOne(db) ?? 0
            let files = try ChunkRow.files(chunks, db)
            let events =
                options.samplesOnly ? 0 : try EventRow.filter(ids.contains(EventRow.Columns.sessionID)).fetchCount(db)
            let total = try finished.fetchCount(db)
            var result = PruneResult(
                sessionsDeleted: options.samplesOnly ? 0 : ids.count, sessionsAffected: ids.count,
                chunksDeleted: chunkCount, samplesDeleted: Int64(samples), eventsDeleted: events)
            result.sessionIDs = ids.compactMap(UUID.init(uuidString:))
            result.sampleBytes = Int64(bytes) + files.reduce(0) { $0 + directory.fileSize($1) }
            result.finishedSessions = total
            if let share = options.maximumShare, !ids.isEmpty, Double(ids.count) > share * Double(total) {
                throw StoreError(
                    .invalidArgument,
                    "this would \(options.samplesOnly ? "delete the samples of" : "delete") \(ids.count) of the "
                        + "\(total) finished sessions, more than the \(Int((share * 100).rounded())) % one prune may "
                        + "take: check the age with `sportsensorctl prune --dry-run`, then add --force")
            }
            guard !options.dryRun else { return (result, files) }
            if options.samplesOnly {
                try chunks.deleteAll(db)
            } else {
                // Events and chunks go with their session (ON DELETE CASCADE).
                try old.deleteAll(db)
            }
            return (result, files)
        }
        let (result, files) =
            options.dryRun ? try await read("planning a prune", body) : try await write("pruning sessions", body)
        guard !options.dryRun else { return result }
        removeChunkFiles(files)
        if options.vacuum {
            do {
                try await database.vacuum()
            } catch {
                throw StoreError.wrap(error, path: path, doing: "vacuuming the session database")
            }
        }
        if result.sessionsAffected > 0 {
            logger.notice(
                options.samplesOnly ? "pruned the samples of sessions" : "pruned sessions",
                metadata: [
                    "store.sessions": "\(result.sessionIDs.map { $0.uuidString.lowercased() })",
                    "store.samples": "\(result.samplesDeleted)", "store.sample_bytes": "\(result.sampleBytes)",
                ])
        }
        return result
    }
}
