// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import Logging
import NIOConcurrencyHelpers
import SDUSensor
import StoreFormats

/// Spilling: when the database cannot take a session's end, what is still in memory goes with the
/// end into the open chunk's tail segment, the recovery file the next start imports.
extension SessionRecorder {
    /// Writes what the database could not take, with the end, to the open chunk's segment after
    /// releasing the store's reserve; always throws: `spilled` naming the file, else `failure`.
    func spill(_ close: RecordingTail.Close, failure: StoreError) async throws(StoreError) {
        store.spillReserve?.release()
        let spilled: (samples: Int, events: Int, file: String)
        do {
            spilled = try await store.database.writeWithoutTransaction { _ in try self.spillOnWriter(close) }
        } catch {
            let unsaved = statistics
            let noted = await noteLoss(close, unsavedSamples: Int64(unsaved.bufferedSamples) + unsaved.droppedSamples)
            logger.critical(
                """
                cannot save the session's last rows, nor spill them to a recovery file: they are lost when \
                sportsensord stops: \(failure.message)
                """,
                metadata: [
                    "store.unsaved_samples": "\(unsaved.bufferedSamples)",
                    "store.unsaved_events": "\(unsaved.bufferedEvents)",
                    "store.spill_error": "\(error)",
                    "store.loss_noted": "\(noted)",
                ])
            throw failure
        }
        wake.finish()
        logger.error(
            "cannot close the session in the database: spilled its unsaved rows to a recovery file, imported next start",
            metadata: [
                "store.path": "\(spilled.file)", "store.samples": "\(spilled.samples)",
                "store.events": "\(spilled.events)",
                "error": "\(failure.message)",
            ])
        throw StoreError(
            .spilled,
            "session \(session.idText) ended, but the database could not take its end (\(failure.message)): "
                + "\(spilled.samples) samples and \(spilled.events) events not in it were spilled to the recovery file "
                + "\(spilled.file), which the next start of sportsensord imports",
            path: spilled.file, cause: failure)
    }

    /// When even the spill failed: appends to the open chunk's segment a record with no rows, only
    /// the end, the final counters and the samples not kept (`unsavedSamples`), using the space
    /// held for such notes. The next start closes the session as it ended, with that count, instead
    /// of as `interrupted` at its last saved sample. The rows stay in memory: a later `finish`
    /// that stores them closes the session with its real count. Returns whether the note (or an
    /// earlier one with the same count) is on disk.
    func noteLoss(_ close: RecordingTail.Close, unsavedSamples: Int64) async -> Bool {
        if buffer.withLockedValue({ $0.notedUnsaved == unsavedSamples }) { return true }
        store.spillReserve?.releaseNoteSpace()
        var noted = close
        noted.unsavedSamples = unsavedSamples
        let note = noted
        do {
            try await store.database.writeWithoutTransaction { _ in
                // What the note left of the space is held again before the writer queue runs any
                // other write: it stays for the next session's note instead of going to whichever
                // write comes first (a retry then waits for space that really returned).
                defer { self.store.spillReserve?.reholdNoteSpace() }
                try self.noteOnWriter(note)
            }
        } catch {
            logger.critical(
                "cannot even note the loss in a recovery file: the next start closes the session at its last saved sample",
                metadata: ["store.unsaved_samples": "\(unsavedSamples)", "error": "\(error)"])
            return false
        }
        buffer.withLockedValue { $0.notedUnsaved = unsavedSamples }
        return true
    }

    /// On GRDB's writer queue (no SQL): the note, synced.
    private func noteOnWriter(_ close: RecordingTail.Close) throws {
        var writerState = writer.withLockedValue { $0 }
        let step = writerState.tail.spill(samples: [], events: [], close: close)
        guard case .append(let append) = step.action else { preconditionFailure("a note is an append") }
        try self.append(append, &writerState)
        try writerState.segment?.sync()
        writerState.tail.apply(step)
        writer.withLockedValue { $0 = writerState }
    }

    /// On GRDB's writer queue (no SQL): one record with every buffered row and the end, synced.
    private func spillOnWriter(_ close: RecordingTail.Close) throws -> (samples: Int, events: Int, file: String) {
        let (samples, events) = buffer.withLockedValue { state -> ([IndexedSample], [SequencedEvent]) in
            let taken = (state.samples, state.events)
            state.samples = []
            state.events = []
            state.inFlightSamples = taken.0.count
            state.inFlightEvents = taken.1.count
            return taken
        }
        var writerState = writer.withLockedValue { $0 }
        let step = writerState.tail.spill(samples: samples, events: events, close: close)
        do {
            guard case .append(let append) = step.action else { preconditionFailure("a spill is an append") }
            try self.append(append, &writerState)
            try writerState.segment?.sync()
        } catch {
            buffer.withLockedValue { state in
                state.samples = samples + state.samples
                state.events = events + state.events
                state.inFlightSamples = 0
                state.inFlightEvents = 0
            }
            throw error
        }
        writerState.tail.apply(step)
        let file = writerState.segment?.path ?? store.tailDirectory.path
        writer.withLockedValue { $0 = writerState }
        buffer.withLockedValue { state in
            state.inFlightSamples = 0
            state.inFlightEvents = 0
            state.statistics.spilledSamples += Int64(samples.count)
            state.statistics.spilledEvents += Int64(events.count)
            state.statistics.spillFile = file
        }
        return (samples.count, events.count, file)
    }
}
