// SPDX-License-Identifier: GPL-2.0-or-later

extension SessionRecorder {
    /// Batching and buffering limits.
    public struct Configuration: Sendable {
        /// Longest time rows wait in memory before a flush.
        public var flushInterval: Duration
        /// Buffered rows (samples + events) that trigger a flush before the interval is up.
        public var flushThreshold: Int
        /// The buffer's bound for samples; past it new samples are dropped and counted.
        public var maxBufferedSamples: Int
        /// The buffer's bound for events; past it new events are dropped and counted.
        public var maxBufferedEvents: Int
        /// Samples per stored chunk.
        public var chunkLength: Int

        /// Defaults: 1 s (at most a second of samples waits in memory; a flush of 100 samples per
        /// sensor costs one small record, Docs/PERFORMANCE.md), 16 384 rows, one million samples
        /// (about 2.8 h at 100 Hz), 65 536 events, 32 768-sample chunks (about 130 KB, 5.5 min at
        /// 100 Hz: each chunk's commit touches a few pages besides its BLOB, twice with the WAL, so
        /// fewer, larger chunks write less; Docs/PERFORMANCE.md).
        public init(
            flushInterval: Duration = .seconds(1), flushThreshold: Int = 16_384,
            maxBufferedSamples: Int = 1_048_576, maxBufferedEvents: Int = 65_536, chunkLength: Int = 32_768
        ) {
            self.flushInterval = flushInterval
            self.flushThreshold = flushThreshold
            self.maxBufferedSamples = maxBufferedSamples
            self.maxBufferedEvents = maxBufferedEvents
            self.chunkLength = max(1, chunkLength)
        }
    }

    /// What the recorder has done so far.
    public struct Statistics: Hashable, Sendable {
        /// Samples waiting in memory (including a flush in progress).
        public var bufferedSamples: Int = 0
        /// Events waiting in memory (including a flush in progress).
        public var bufferedEvents: Int = 0
        /// Samples committed to the database.
        public var samplesWritten: Int64 = 0
        /// Events committed to the database.
        public var eventsWritten: Int64 = 0
        /// Flushes that committed.
        public var flushes: Int = 0
        /// Flushes that failed (their rows stay buffered: unsaved, not lost).
        public var failedFlushes: Int = 0
        /// Duration of the last committed flush.
        public var lastFlushLatency: Duration = .zero
        /// Longest committed flush.
        public var maxFlushLatency: Duration = .zero
        /// Samples dropped because the buffer was full.
        public var droppedSamples: Int64 = 0
        /// Events dropped because the buffer was full.
        public var droppedEvents: Int64 = 0
        /// Rows offered after `finish(reason:)`, ignored.
        public var ignoredAfterFinish: Int64 = 0
        /// The last flush error's description, nil after a flush commits.
        public var lastError: String?
        /// Failed flushes since the last one that committed (retries back off with it).
        public var consecutiveFailures: Int = 0
        /// Samples spilled to the recovery file because the session's end could not be stored.
        public var spilledSamples: Int64 = 0
        /// Events spilled to the recovery file.
        public var spilledEvents: Int64 = 0
        /// The recovery file, once spilled.
        public var spillFile: String?

        /// True while the store cannot take this session's rows: they wait in memory.
        public var isDegraded: Bool { lastError != nil }

        /// Rows waiting in memory.
        public var queueDepth: Int { bufferedSamples + bufferedEvents }
    }
}
