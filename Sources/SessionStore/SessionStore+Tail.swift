// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GRDB
import Logging
import SDUSensor
import StoreFormats

/// A session's rows that are still in tail segments (Docs/ARCHITECTURE.md, "Session store"):
/// what every reader adds to the database's rows.
struct SessionTail: Sendable {
    /// The segments past the last stored chunk, in chunk order.
    var segments: [SessionTailSegment]

    /// Their samples, in recording order.
    var samples: [IndexedSample] { segments.flatMap(\.samples) }
    /// Their events past `stored` (the last sequence in the database), in sequence order.
    func events(after stored: Int64?) -> [SequencedEvent] {
        segments.flatMap(\.events).filter { $0.sequence > (stored ?? -1) }.sorted { $0.sequence < $1.sequence }
    }
    /// Their latest counters.
    var counts: SessionCounts? { segments.last(where: { $0.counts != nil })?.counts }
    /// The session's end, when the recorder spilled it (the database could not take it).
    var ending: SessionTailSegment.Ending? { segments.last(where: { $0.ending != nil })?.ending }
    /// Bytes their records take.
    var bytes: Int64 { segments.reduce(0) { $0 + Int64($1.validLength - SessionTailSegment.headerLength) } }
}

extension SessionStore {
    var tailDirectory: TailDirectory { TailDirectory(databasePath: path) }

    /// `body`'s reading of the database, with session `id`'s rows still in tail segments (past its
    /// last stored chunk). The segments are read after the last stored chunk is known and before
    /// the read's snapshot starts: a compaction in between makes a segment obsolete (a sealed one
    /// stays, named by its new row), never a chunk or an event missing.
    func readWithTail<T: Sendable>(
        _ action: String, of id: UUID, _ body: @Sendable @escaping (Database) throws -> T
    ) async throws(StoreError) -> (T, SessionTail) {
        let directory = tailDirectory
        let logger = logger
        let idText = id.uuidString.lowercased()
        let before = try await read(action) { db in try Self.storedEnds(of: idText, db).chunk }
        return try await read(action) { db in
            let segments = Self.tailSegments(of: id, after: before, in: directory, logger: logger)
            let value = try body(db)
            let stored = try Self.storedEnds(of: idText, db).chunk ?? -1
            return (value, SessionTail(segments: segments.filter { $0.header.chunk > stored }))
        }
    }

    static func tailSegments(
        of id: UUID, after: Int64?, in directory: TailDirectory, logger: Logger
    ) -> [SessionTailSegment] {
        directory.segments(of: id, after: after) { file, problem in
            logger.warning(
                "ignoring an unreadable tail segment: \(problem)",
                metadata: ["store.path": "\(file)", "session.id": "\(id.uuidString.lowercased())"])
        }
    }

    /// The last stored chunk and event sequence of a session.
    static func storedEnds(of idText: String, _ db: Database) throws -> (chunk: Int64?, sequence: Int64?) {
        let chunk = try ChunkRow.filter(ChunkRow.Columns.sessionID == idText)
            .select(max(ChunkRow.Columns.chunk), as: Int64.self).fetchOne(db)
        let sequence = try EventRow.filter(EventRow.Columns.sessionID == idText)
            .select(max(EventRow.Columns.sequence), as: Int64.self).fetchOne(db)
        return (chunk, sequence)
    }

    /// Seals a session's tail segments that hold samples, cutting a torn last record off first, so
    /// that each can be registered as its chunk; then makes their names durable.
    static func seal(_ tail: SessionTail, in directory: TailDirectory) throws(StoreError) {
        let sealed = tail.segments.filter { !$0.samples.isEmpty }
        for segment in sealed {
            let writer = try TailSegmentWriter.resume(
                directory.filePath(session: segment.header.session, chunk: segment.header.chunk),
                chunk: segment.header.chunk, validLength: segment.validLength)
            defer { writer.closeDescriptor() }
            try writer.seal()
        }
        if !sealed.isEmpty { try directory.sync() }
    }

    /// Registers a session's sealed tail in the database: each segment with samples as its chunk
    /// (the file stays, as it is), the events not stored yet, the latest counters. Part of the
    /// caller's transaction.
    static func register(
        _ tail: SessionTail, session idText: String, storedSequence: Int64?, directory: TailDirectory,
        _ db: Database
    ) throws {
        for segment in tail.segments where !segment.samples.isEmpty {
            let name = directory.fileName(session: segment.header.session, chunk: segment.header.chunk)
            try ChunkRow.register(
                file: name, extent: segment.extent, number: segment.header.chunk, session: idText, db)
        }
        for event in tail.events(after: storedSequence) {
            try EventRow(sessionID: idText, sequence: event.sequence, record: event.record).insert(db)
        }
        // A recovery file's counters are held within their ranges: readers must not trap on them.
        if let counts = tail.counts { try SessionRow.update(counts.clampedToStoredRanges, session: idText, db) }
    }
}

extension SessionStore {
    /// Closes sessions without an end, after registering their tail segments as chunks (a segment
    /// sealed by a recorder whose commit did not happen is registered here, once: its chunk number
    /// is the row's key): `ended_at` becomes the time of the last stored sample, else the last
    /// event, else the start; the reason `interrupted`. Then deletes every segment no row names:
    /// those of closed sessions that held only events, and the files of chunks whose rows a
    /// deletion removed before it could delete them. Runs only when no other process has the store
    /// open, so a live recorder's sessions are never closed under it.
    static func recoverInterruptedSessions(
        _ pool: DatabasePool, path: String, logger: Logger
    ) throws(StoreError) -> [UUID] {
        let directory = TailDirectory(databasePath: path)
        do {
            let closed = try pool.writeWithoutTransaction { db -> [UUID] in
                // The segments that held only events go once the commit is on disk.
                try db.execute(sql: "PRAGMA synchronous = FULL")
                defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
                var tails: [(SessionRow, UUID, SessionTail, Int64?)] = []
                for session in try SessionRow.filter(SessionRow.Columns.endedAt == nil).fetchAll(db) {
                    guard let id = UUID(uuidString: session.id) else { continue }
                    let stored = try storedEnds(of: session.id, db)
                    let tail = SessionTail(
                        segments: tailSegments(of: id, after: stored.chunk, in: directory, logger: logger))
                    try seal(tail, in: directory)
                    tails.append((session, id, tail, stored.sequence))
                }
                var closed: [UUID] = []
                try db.inTransaction {
                    for (row, id, tail, storedSequence) in tails {
                        var session = row
                        try register(
                            tail, session: session.id, storedSequence: storedSequence, directory: directory, db)
                        let lastSample = try ChunkRow.filter(ChunkRow.Columns.sessionID == session.id)
                            .select(max(ChunkRow.Columns.lastTime), as: Double.self).fetchOne(db)
                        let lastEvent = try EventRow.filter(EventRow.Columns.sessionID == session.id)
                            .select(max(EventRow.Columns.t), as: Double.self).fetchOne(db)
                        session.endedAt = session.startedAt.addingTimeInterval(lastSample ?? lastEvent ?? 0)
                        session.endReason = SessionEndReason.interrupted.rawValue
                        if tail.ending == nil {
                            logger.warning(
                                "closed a session left open by a process that stopped while recording (interrupted)",
                                metadata: ["session.id": "\(session.id)"])
                        }
                        if let ending = tail.ending {
                            // Held within the stored ranges as the counters are: an end before the
                            // start or past the wall clock's range keeps the one found above.
                            if StoredRanges.wallClock.problem(with: ending.endedAt) == nil,
                                ending.endedAt >= session.startedAt
                            {
                                session.endedAt = ending.endedAt
                            }
                            session.endReason = ending.reason.rawValue
                            session.unsavedSamples = min(
                                max(ending.unsavedSamples, 0), StoredRanges.sampleCount.bounds.upperBound)
                            logRecovered(ending, of: session.id, samples: tail.samples.count, logger: logger)
                        }
                        try session.update(
                            db,
                            columns: [
                                SessionRow.Columns.endedAt, SessionRow.Columns.endReason,
                                SessionRow.Columns.unsavedSamples,
                            ])
                        closed.append(id)
                    }
                    return .commit
                }
                return closed
            }
            try removeUnreferencedSegments(pool, directory: directory, logger: logger)
            return closed
        } catch {
            throw StoreError.wrap(error, path: path, doing: "closing interrupted sessions")
        }
    }

    /// Says what a recovery file held: the rows the database could not take, or only the note of
    /// a loss (the disk had no room for the rows themselves).
    static func logRecovered(_ ending: SessionTailSegment.Ending, of id: String, samples: Int, logger: Logger) {
        let metadata: Logger.Metadata = [
            "session.id": "\(id)", "session.reason": "\(ending.reason)", "store.samples": "\(samples)",
            "store.unsaved_samples": "\(ending.unsavedSamples)",
        ]
        if ending.unsavedSamples > 0 {
            logger.error(
                """
                closed a session as it ended (\(ending.reason)) from its recovery file; samples the disk had no room \
                for are lost and counted in its unsaved_samples
                """,
                metadata: metadata)
        } else {
            logger.notice(
                "imported the recovery file of a session whose end the disk could not take", metadata: metadata)
        }
    }

    /// Deletes every segment file no chunk row names. Only when every session is closed (at start,
    /// alone with the store): then a segment without a row is obsolete.
    static func removeUnreferencedSegments(
        _ pool: DatabasePool, directory: TailDirectory, logger: Logger
    ) throws {
        let entries = directory.entries()
        guard !entries.isEmpty else { return }
        let named = try pool.read { db in
            Set(try String.fetchAll(db, sql: "SELECT file FROM sample_chunks WHERE file IS NOT NULL"))
        }
        for entry in entries where !named.contains(directory.fileName(session: entry.session, chunk: entry.chunk)) {
            do { try directory.remove(entry.path) } catch {
                logger.warning("\(error.message)", metadata: ["store.path": "\(entry.path)"])
            }
        }
    }
}
