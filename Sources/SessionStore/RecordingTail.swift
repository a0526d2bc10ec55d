// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import SDUSensor
import StoreFormats

/// The open end of a recording, as a pure state machine: which chunk is open, what its row will
/// say of its samples (`ChunkExtent`: the samples themselves are only in its tail segment), and
/// the events and counters that so far live only in that segment. No I/O: `plan` says what a
/// flush must write, the recorder writes it and `apply`s every step that succeeded.
///
/// A flush appends one record to the open chunk's segment (a few hundred bytes). When the chunk
/// fills, or the session ends, the segment gets the chunk's last samples, is sealed, and a
/// compaction registers it as the chunk (a `sample_chunks` row naming the file) together with the
/// events and counters the segment held, in one transaction. So a chunk's samples are written
/// once, into their segment, and everything flushed is in the database or in a segment. The
/// segment's events are not kept in memory: the tail knows their sequence numbers, and the
/// compaction reads them back from the segment (a chunk's events grew every live session's memory
/// until its seal).
struct RecordingTail: Sendable, Hashable {
    /// How a session ends, written with its last compaction.
    struct Close: Sendable, Hashable {
        var endedAt: Date
        var reason: SessionEndReason
        var counts: SessionCounts
        /// Samples received that the store does not keep (`SessionRecord.unsavedSamples`).
        var unsavedSamples: Int64 = 0
    }

    /// One record appended to segment `chunk`.
    struct Append: Sendable, Hashable {
        var chunk: Int64
        var record: SessionTailSegment.Record
    }

    /// One transaction: segment `chunk`, sealed, registered as the chunk (when it has samples),
    /// the events and counters, the close. A segment without samples is deleted after it.
    struct Compaction: Sendable, Hashable {
        var chunk: Int64
        /// The chunk's samples as its row describes them (they are all in its segment).
        var extent: ChunkExtent
        /// The sequence numbers of the events in the segment that the database lacks: the
        /// compaction reads them from the segment, before `events`.
        var segmentEvents: ClosedRange<Int64>?
        /// Events that are in no segment (the flush's, when it appended no record).
        var events: [SequencedEvent]
        var counts: SessionCounts?
        var close: Close?
    }

    /// What to write, and how many of the flush's new rows it saves (the rest of a failed flush
    /// stays buffered).
    struct Step: Sendable, Hashable {
        enum Action: Sendable, Hashable {
            case append(Append)
            case compact(Compaction)
        }

        var action: Action
        var newSamples: Int
        var newEvents: Int
    }

    /// Samples per closed chunk.
    let chunkLength: Int
    /// The open chunk's number.
    private(set) var chunk: Int64
    /// The open chunk's samples as its row will describe them (they are all in its segment).
    private(set) var extent: ChunkExtent
    /// The sequence numbers of the events in the segment, not yet in the database (consecutive).
    private(set) var events: ClosedRange<Int64>?
    /// The latest counters in the segment, when newer than the session's row.
    private(set) var counts: SessionCounts?
    /// Records in the segment (0: there is no segment).
    private(set) var records: Int64
    /// The open segment is of an older format, which this build reads but does not append to:
    /// the next flush seals it as a chunk (however short) and goes on in a new segment.
    private(set) var sealsFirst: Bool

    /// A tail at chunk `chunk`, empty, or resuming `segment` (a segment of that chunk left by an
    /// earlier recorder).
    init(chunkLength: Int, chunk: Int64, segment: SessionTailSegment? = nil) {
        self.chunkLength = max(1, chunkLength)
        self.chunk = chunk
        extent = segment?.extent ?? ChunkExtent()
        events = Self.span(segment?.events ?? [], after: nil)
        counts = segment?.counts
        records = Int64(segment?.records.count ?? 0)
        sealsFirst =
            (segment?.header.version ?? SessionTailSegment.version) != SessionTailSegment.version && records > 0
    }

    /// What to write for rows handed over since the last flush, in order. A chunk that fills gets
    /// its last samples appended (with the flush's events and counters) and is then compacted; the
    /// rest is appended to the next chunk's segment. With `close`, the last step is a compaction
    /// that ends the session.
    func plan(
        samples new: [IndexedSample], events newEvents: [SequencedEvent], counts newCounts: SessionCounts?,
        close: Close? = nil
    ) -> [Step] {
        var steps: [Step] = []
        var open = self
        var rest = new[...]
        var fresh = newEvents
        var counts = newCounts
        func take(_ step: Step) {
            steps.append(step)
            open.apply(step)
        }
        func append(_ count: Int) {
            let record = SessionTailSegment.Record(
                ordinal: open.records, samples: Array(rest.prefix(count)), events: fresh, counts: counts)
            take(
                Step(
                    action: .append(Append(chunk: open.chunk, record: record)), newSamples: count,
                    newEvents: fresh.count))
            rest = rest.dropFirst(count)
            fresh = []
            counts = nil
        }
        func compact(_ close: Close?) {
            // Events and counters not appended go into the database only.
            let compaction = Compaction(
                chunk: open.chunk, extent: open.extent, segmentEvents: open.events, events: fresh,
                counts: close?.counts ?? counts ?? open.counts, close: close)
            take(Step(action: .compact(compaction), newSamples: 0, newEvents: fresh.count))
            fresh = []
            counts = nil
        }
        if open.sealsFirst { compact(nil) }
        while open.extent.count + rest.count >= chunkLength {
            let missing = max(0, chunkLength - open.extent.count)
            if missing > 0 { append(missing) }
            compact(nil)
        }
        if let close {
            if !rest.isEmpty { append(rest.count) }
            compact(close)
        } else if !rest.isEmpty || !fresh.isEmpty || counts != nil {
            append(rest.count)
        }
        return steps
    }

    /// One append that saves everything the database could not take, with the session's end, in
    /// the open chunk's segment (even past `chunkLength`: crash recovery stores the segment as one
    /// chunk).
    func spill(
        samples new: [IndexedSample], events newEvents: [SequencedEvent], close: Close
    ) -> Step {
        // An older format's segment is not appended to: the spill starts the next chunk's, and
        // crash recovery registers both.
        let record = SessionTailSegment.Record(
            ordinal: sealsFirst ? 0 : records, samples: new, events: newEvents, counts: close.counts,
            ending: SessionTailSegment.Ending(
                endedAt: close.endedAt, reason: close.reason, unsavedSamples: close.unsavedSamples))
        return Step(
            action: .append(Append(chunk: sealsFirst ? chunk + 1 : chunk, record: record)), newSamples: new.count,
            newEvents: newEvents.count)
    }

    /// Takes in a step that was written.
    mutating func apply(_ step: Step) {
        switch step.action {
        case .append(let append):
            if append.chunk != chunk {
                // A spill past an older format's segment opens the next chunk's.
                chunk = append.chunk
                extent = ChunkExtent()
                events = nil
                counts = nil
                records = 0
                sealsFirst = false
            }
            extent.append(contentsOf: append.record.samples)
            events = Self.span(append.record.events, after: events)
            if let newCounts = append.record.counts { counts = newCounts }
            records += 1
        case .compact(let compaction):
            chunk = compaction.chunk + 1
            extent = ChunkExtent()
            events = nil
            counts = nil
            records = 0
            sealsFirst = false
        }
    }

    /// `span` extended by `events` (consecutive sequence numbers, as the recorder gives them).
    static func span(_ events: [SequencedEvent], after span: ClosedRange<Int64>?) -> ClosedRange<Int64>? {
        guard let last = events.last?.sequence else { return span }
        return (span?.lowerBound ?? events[0].sequence)...last
    }

    /// The new rows of `steps[failed...]`: what a flush that failed at step `failed` did not save.
    static func unsaved(_ steps: [Step], from failed: Int) -> (samples: Int, events: Int) {
        steps[failed...].reduce((0, 0)) { ($0.0 + $1.newSamples, $0.1 + $1.newEvents) }
    }
}
