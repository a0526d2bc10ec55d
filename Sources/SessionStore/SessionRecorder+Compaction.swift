// SPDX-License-Identifier: GPL-2.0-or-later
import GRDB

extension SessionRecorder {
    /// Seals the segments of chunks that closed and registers them (with the events and counters
    /// so far, and the end when closing) in one transaction; then deletes a segment that held no
    /// samples. The samples are not written again: the sealed segment is the chunk.
    func compact(
        _ compactions: [RecordingTail.Compaction], _ state: inout WriterState, _ db: Database
    ) throws {
        let idText = session.idText
        let directory = store.tailDirectory
        let sealed = compactions.filter { !$0.extent.isEmpty }
        for compaction in sealed {
            if state.segment?.chunk != compaction.chunk {
                // A segment an earlier recorder left, full already: nothing appended to it here.
                state.segment?.closeDescriptor()
                state.segment = try TailSegmentWriter.resume(
                    directory.filePath(session: session.id, chunk: compaction.chunk), chunk: compaction.chunk,
                    validLength: state.resume?.length ?? SessionTailSegment.headerLength)
                state.resume = nil
            }
            try state.segment?.seal()
        }
        if !sealed.isEmpty { try directory.sync() }
        // The segments' events, read back now that they are whole on disk.
        let segmentEvents = try compactions.map { compaction throws(StoreError) in
            guard let sequences = compaction.segmentEvents else { return [SequencedEvent]() }
            return try directory.events(session: session.id, chunk: compaction.chunk, sequences: sequences)
        }
        // A close deletes an events-only segment after the commit, so that commit must be on
        // disk first; a chunk's row may be lost to a power cut (recovery registers its sealed file).
        let closing = compactions.contains { $0.close != nil }
        if closing { try db.execute(sql: "PRAGMA synchronous = FULL") }
        defer { if closing { try? db.execute(sql: "PRAGMA synchronous = NORMAL") } }
        try db.inTransaction {
            for (compaction, earlier) in zip(compactions, segmentEvents) {
                if !compaction.extent.isEmpty {
                    try ChunkRow.register(
                        file: directory.fileName(session: session.id, chunk: compaction.chunk),
                        extent: compaction.extent, number: compaction.chunk, session: idText, db)
                }
                for event in earlier + compaction.events {
                    try EventRow(sessionID: idText, sequence: event.sequence, record: event.record).insert(db)
                }
                if let counts = compaction.counts { try SessionRow.update(counts, session: idText, db) }
                if let close = compaction.close {
                    try SessionRow.close(
                        session: idText, endedAt: close.endedAt, reason: close.reason,
                        unsavedSamples: close.unsavedSamples, db)
                }
            }
            return .commit
        }
        for compaction in compactions where state.segment?.chunk == compaction.chunk {
            state.segment?.closeDescriptor()
            state.segment = nil
        }
        // Only the open chunk (the first compacted) can have a segment without samples.
        guard let first = compactions.first, first.extent.isEmpty,
            state.tail.records > 0 || state.resume != nil
        else { return }
        state.resume = nil
        let file = directory.filePath(session: session.id, chunk: first.chunk)
        do { try directory.remove(file) } catch {
            // Readers skip a segment whose chunk is closed; the next start deletes it.
            logger.warning("\(error.message)", metadata: ["store.path": "\(file)"])
        }
    }
}
