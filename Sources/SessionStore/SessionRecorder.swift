// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers
import SDUSensor
import StoreFormats

/// Records one session's samples and events from the live pipeline into the store.
///
/// `record(samples:)` and `record(event:)` never block and never suspend: they append to a bounded
/// in-memory buffer under a mutex. `run()` flushes the buffer at most every `flushInterval` (on the
/// injected clock), or sooner once `flushThreshold` rows are waiting, on GRDB's writer queue.
/// A flush appends one record to the open chunk's tail segment; when the chunk has `chunkLength`
/// samples, or the session ends, it is compacted: the segment is sealed and registered as the
/// chunk by a `sample_chunks` row, with the segment's events and counters, in one transaction
/// (`RecordingTail`). So everything flushed survives a crash, and a chunk's samples are written
/// once.
///
/// Back-pressure is measured: `statistics` reports queue depth, rows written, flush latency,
/// failed flushes and drops. When the buffer bound is reached new rows are dropped (and counted,
/// and logged once per episode). A failed flush (disk full) keeps its rows buffered and is retried,
/// backing off (1, 2, 4, 8, then every 16 ticks); the recorder keeps running. When `finish` cannot
/// close the session in the database, the recorder spills: it writes everything still in memory,
/// with the session's end, into its tail segment (in space the store reserved, `SpillReserve`),
/// and throws `spilled` naming that recovery file, which the next start imports.
public final class SessionRecorder<C: Clock>: Sendable where C.Duration == Duration {
    /// Everything the producers touch, under one mutex.
    struct Buffer: Sendable {
        var samples: [IndexedSample] = []
        var events: [SequencedEvent] = []
        var inFlightSamples = 0
        var inFlightEvents = 0
        var nextSequence: Int64
        var samplesRecorded: Int64 = 0
        var counts: SessionCounts?
        var countsDirty = false
        var finished = false
        var dropping = false
        var failing = false
        var wakeRequested = false
        var statistics = Statistics()
        /// The unsaved samples the last note of a loss counted (`noteLoss`), so a retry that fails
        /// the same way writes none again.
        var notedUnsaved: Int64?
    }

    /// What only the writer (inside GRDB's serial writer access) touches.
    struct WriterState: Sendable {
        var tail: RecordingTail
        /// The open chunk's segment, once appended to.
        var segment: TailSegmentWriter?
        /// Where an earlier recorder's segment of the open chunk ends, and its samples' coder:
        /// appends continue both. Nil once that segment is reopened, sealed or removed (and the
        /// coder's tables let go).
        var resume: SegmentEnd?
    }

    /// The end of a segment an earlier recorder left: its length up to the last whole record and
    /// the samples' coder after that record.
    struct SegmentEnd: Sendable {
        var length: Int
        var stream: SampleStream
    }

    /// The session being recorded.
    public let session: SessionRecord
    /// The limits in force.
    public let configuration: Configuration
    let store: SessionStore
    private let clock: C
    let logger: Logger
    let buffer: NIOLockedValueBox<Buffer>
    let writer: NIOLockedValueBox<WriterState>
    private let wakes: AsyncStream<Void>
    let wake: AsyncStream<Void>.Continuation

    init(
        store: SessionStore, session: SessionRecord, nextSequence: Int64, tail: RecordingTail, resume: SegmentEnd?,
        configuration: Configuration, clock: C, logger: Logger
    ) {
        self.store = store
        self.session = session
        self.configuration = configuration
        self.clock = clock
        var logger = logger
        logger[metadataKey: "session.id"] = "\(session.idText)"
        self.logger = logger
        self.buffer = NIOLockedValueBox(Buffer(nextSequence: nextSequence))
        self.writer = NIOLockedValueBox(WriterState(tail: tail, resume: resume))
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    deinit {
        writer.withLockedValue { $0.segment?.closeDescriptor() }
    }

    // MARK: Producer side (never blocks)

    /// Queues samples. Never blocks, never suspends; past the buffer bound the excess is dropped
    /// and counted.
    public func record(samples: some Collection<IndexedSample>) {
        let (wakeNow, startedDropping) = buffer.withLockedValue { state -> (Bool, Bool) in
            if state.finished {
                state.statistics.ignoredAfterFinish += Int64(samples.count)
                return (false, false)
            }
            let room = max(0, configuration.maxBufferedSamples - state.samples.count - state.inFlightSamples)
            var started = false
            if samples.count <= room {
                state.samples.append(contentsOf: samples)
                state.samplesRecorded += Int64(samples.count)
            } else {
                state.samples.append(contentsOf: samples.prefix(room))
                state.samplesRecorded += Int64(room)
                state.statistics.droppedSamples += Int64(samples.count - room)
                started = !state.dropping
                state.dropping = true
            }
            return (Self.takeWake(&state, threshold: configuration.flushThreshold), started)
        }
        if startedDropping { logDropping() }
        if wakeNow { wake.yield() }
    }

    /// Queues one event; it gets the next sequence number. Never blocks, never suspends.
    public func record(event: EventRecord) {
        let (wakeNow, startedDropping) = buffer.withLockedValue { state -> (Bool, Bool) in
            if state.finished {
                state.statistics.ignoredAfterFinish += 1
                return (false, false)
            }
            guard state.events.count + state.inFlightEvents < configuration.maxBufferedEvents else {
                state.statistics.droppedEvents += 1
                let started = !state.dropping
                state.dropping = true
                return (false, started)
            }
            state.events.append(SequencedEvent(sequence: state.nextSequence, record: event))
            state.nextSequence += 1
            return (Self.takeWake(&state, threshold: configuration.flushThreshold), false)
        }
        if startedDropping { logDropping() }
        if wakeNow { wake.yield() }
    }

    /// Sets the stream counters (and recovered rate) written with the next flush.
    public func update(counts: SessionCounts) {
        buffer.withLockedValue { state in
            state.counts = counts
            state.countsDirty = true
        }
    }

    /// Counters, queue depth and latencies now.
    public var statistics: Statistics {
        buffer.withLockedValue { state in
            var statistics = state.statistics
            statistics.bufferedSamples = state.samples.count + state.inFlightSamples
            statistics.bufferedEvents = state.events.count + state.inFlightEvents
            return statistics
        }
    }

    private static func takeWake(_ state: inout Buffer, threshold: Int) -> Bool {
        guard !state.wakeRequested, state.samples.count + state.events.count >= threshold else { return false }
        state.wakeRequested = true
        return true
    }

    private func logDropping() {
        logger.warning(
            "recorder buffer full: dropping rows until the store catches up",
            metadata: [
                "store.maxBufferedSamples": "\(configuration.maxBufferedSamples)",
                "store.maxBufferedEvents": "\(configuration.maxBufferedEvents)",
            ])
    }

    // MARK: Writer side

    /// Flushes every `flushInterval` (or sooner past `flushThreshold` rows) until cancelled or
    /// finished. Flush failures are logged and counted, and retried on the next tick.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [clock, configuration, wake] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: configuration.flushInterval) } catch { break }
                    wake.yield()
                }
            }
            var skip = 0
            for await _ in wakes {
                if Task.isCancelled { break }
                if skip > 0 {
                    skip -= 1
                    continue
                }
                do { try await flush() } catch {
                    skip = Self.wakesBeforeRetry(afterFailures: statistics.consecutiveFailures)
                }
            }
            group.cancelAll()
        }
    }

    /// Wakes (ticks) to let pass before retrying after `failures` failed flushes in a row: 0, 1,
    /// 3, 7, then 15. A full disk rarely frees itself within a second, and each attempt logs and
    /// costs a transaction; the rows wait in memory meanwhile, and `finish` never waits for it.
    static func wakesBeforeRetry(afterFailures failures: Int) -> Int {
        (1 << min(max(failures, 1) - 1, 4)) - 1
    }

    /// Saves everything buffered now: one record appended to the open chunk's tail segment, and a
    /// compaction for every chunk that fills. On failure the rows not saved stay buffered (and
    /// count as unsaved in `statistics`) and the error is thrown.
    public func flush() async throws(StoreError) {
        try await flush(closing: nil)
    }

    private func flush(closing close: RecordingTail.Close?) async throws(StoreError) {
        let started = ContinuousClock.now
        let outcome: FlushOutcome
        do {
            outcome = try await store.database.writeWithoutTransaction { db in
                try self.flushOnWriter(db, closing: close)
            }
        } catch {
            let storeError = StoreError.wrap(error, path: store.path, doing: "recording session \(session.idText)")
            let firstFailure = buffer.withLockedValue { state -> Bool in
                state.statistics.failedFlushes += 1
                state.statistics.consecutiveFailures += 1
                state.statistics.lastError = storeError.description
                defer { state.failing = true }
                return !state.failing
            }
            if firstFailure {
                logger.error(
                    "cannot save recorded data, keeping it in memory and retrying: \(storeError.message)",
                    metadata: ["store.unsaved": "\(statistics.queueDepth)"])
            }
            throw storeError
        }
        let latency = ContinuousClock.now - started
        let (recovered, dropped) = buffer.withLockedValue { state -> (Bool, Int64) in
            state.statistics.lastFlushLatency = latency
            state.statistics.maxFlushLatency = max(state.statistics.maxFlushLatency, latency)
            if outcome.wrote {
                state.statistics.flushes += 1
            }
            let recovered = state.failing
            state.failing = false
            state.statistics.lastError = nil
            state.statistics.consecutiveFailures = 0
            var dropped: Int64 = 0
            if state.dropping, state.samples.count < configuration.maxBufferedSamples / 2 {
                state.dropping = false
                dropped = state.statistics.droppedSamples + state.statistics.droppedEvents
            }
            return (recovered, dropped)
        }
        if recovered {
            logger.notice("store writable again: saved the buffered rows", metadata: outcome.metadata)
            store.spillReserve?.renew()
        }
        if dropped > 0 { logger.warning("recorder caught up; rows dropped so far: \(dropped)") }
    }

    struct FlushOutcome: Sendable {
        var samples: Int
        var events: Int
        var wrote: Bool { samples > 0 || events > 0 }
        var metadata: Logger.Metadata { ["store.samples": "\(samples)", "store.events": "\(events)"] }
    }

    /// Runs on GRDB's writer queue, which serialises flushes: takes the buffered rows, performs
    /// the steps `RecordingTail` plans for them, and drops from the buffer what they saved (putting
    /// back the rest when a step fails).
    private func flushOnWriter(_ db: Database, closing close: RecordingTail.Close?) throws -> FlushOutcome {
        let (samples, events, counts) = buffer.withLockedValue {
            state -> ([IndexedSample], [SequencedEvent], SessionCounts?) in
            let samples = state.samples
            let events = state.events
            // As much room as the last flush took: one allocation per flush, not one per doubling.
            state.samples = []
            state.samples.reserveCapacity(samples.count)
            state.events = []
            state.inFlightSamples = samples.count
            state.inFlightEvents = events.count
            state.wakeRequested = false
            var counts: SessionCounts?
            if state.countsDirty {
                counts = state.counts
            } else if !samples.isEmpty {
                counts = SessionCounts(received: state.samplesRecorded)
            }
            return (samples, events, counts)
        }
        var writerState = takeWriterState()
        let steps = writerState.tail.plan(samples: samples, events: events, counts: counts, close: close)
        var done = 0
        do {
            while done < steps.count {
                if case .append(let append) = steps[done].action {
                    try self.append(append, &writerState)
                    writerState.tail.apply(steps[done])
                    done += 1
                    continue
                }
                // Consecutive compactions (a full segment, then the close) go in one transaction.
                var compactions: [RecordingTail.Compaction] = []
                var end = done
                while end < steps.count, case .compact(let compaction) = steps[end].action {
                    compactions.append(compaction)
                    end += 1
                }
                try compact(compactions, &writerState, db)
                for step in steps[done..<end] { writerState.tail.apply(step) }
                done = end
            }
        } catch {
            let unsaved = RecordingTail.unsaved(steps, from: done)
            writer.withLockedValue { $0 = writerState }
            buffer.withLockedValue { state in
                state.samples = samples.suffix(unsaved.samples) + state.samples
                state.events = events.suffix(unsaved.events) + state.events
                state.inFlightSamples = 0
                state.inFlightEvents = 0
                state.statistics.samplesWritten += Int64(samples.count - unsaved.samples)
                state.statistics.eventsWritten += Int64(events.count - unsaved.events)
            }
            throw error
        }
        writer.withLockedValue { $0 = writerState }
        buffer.withLockedValue { state in
            state.inFlightSamples = 0
            state.inFlightEvents = 0
            state.statistics.samplesWritten += Int64(samples.count)
            state.statistics.eventsWritten += Int64(events.count)
            if let counts, state.counts == counts { state.countsDirty = false }
        }
        return FlushOutcome(samples: samples.count, events: events.count)
    }

    /// The writer's state moved out of its mutex, not copied, so that applying a flush's steps
    /// appends to the open chunk's event list in place; the flush puts it back, failed or not.
    private func takeWriterState() -> WriterState {
        writer.withLockedValue { state in
            let taken = state
            state = WriterState(tail: RecordingTail(chunkLength: taken.tail.chunkLength, chunk: taken.tail.chunk))
            return taken
        }
    }

    /// Appends a record to the open chunk's segment, creating the segment with its first record
    /// (or continuing one an earlier recorder left).
    func append(_ append: RecordingTail.Append, _ state: inout WriterState) throws(StoreError) {
        if state.segment?.chunk != append.chunk {
            state.segment?.closeDescriptor()
            state.segment = nil
            let directory = store.tailDirectory
            if append.record.ordinal == 0 {
                state.segment = try TailSegmentWriter.create(
                    in: directory, header: SessionTailSegment.Header(session: session.id, chunk: append.chunk),
                    first: append.record)
                return
            }
            state.segment = try TailSegmentWriter.resume(
                directory.filePath(session: session.id, chunk: append.chunk), chunk: append.chunk,
                validLength: state.resume?.length ?? SessionTailSegment.headerLength,
                stream: state.resume?.stream ?? SampleStream())
            state.resume = nil
        }
        try state.segment?.append(append.record)
    }

    /// Stops accepting rows, then writes what is buffered and what the tail segment holds and
    /// closes the session with `reason` at `endedAt` (default now), in one transaction. When that
    /// fails it spills and throws `spilled` (the rows and the end are in the recovery file the
    /// error names); when the spill fails too, it throws the database's error and the rows stay in
    /// memory (calling it again retries).
    @discardableResult
    public func finish(
        reason: SessionEndReason, endedAt: Date = Date(), counts: SessionCounts? = nil
    )
        async throws(StoreError) -> SessionRecord
    {
        buffer.withLockedValue { state in
            state.finished = true
            if let counts {
                state.counts = counts
                state.countsDirty = true
            }
        }
        let (finalCounts, dropped) = buffer.withLockedValue {
            ($0.counts ?? SessionCounts(received: $0.samplesRecorded), $0.statistics.droppedSamples)
        }
        let close = RecordingTail.Close(endedAt: endedAt, reason: reason, counts: finalCounts, unsavedSamples: dropped)
        do {
            try await flush(closing: close)
        } catch {
            try await spill(close, failure: error)
        }
        wake.finish()
        let statistics = self.statistics
        logger.info(
            "session closed",
            metadata: [
                "session.reason": "\(reason)", "store.samples": "\(statistics.samplesWritten)",
                "store.events": "\(statistics.eventsWritten)",
                "store.dropped":
                    "\(statistics.droppedSamples + statistics.droppedEvents)",
            ])
        var record = session
        record.endedAt = endedAt
        record.endReason = reason
        record.counts = finalCounts
        record.unsavedSamples = dropped
        return record
    }
}
