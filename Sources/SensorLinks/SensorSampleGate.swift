// SPDX-License-Identifier: GPL-2.0-or-later
import SDUSensor

/// The no-duplicates rule of a sensor link: one `SDUStreamDecoder` for the sensor's whole life,
/// across reconnects, and a high-water mark on the sample index. Pure: arrival times are passed
/// in.
///
/// The counter decides. The decoder unwraps the 16-bit header into a 64-bit index that only
/// grows; a notification the sensor replays after a reconnect (counter a little behind) is
/// dropped by the decoder as a duplicate; a counter that restarted far away is a resync, after
/// which indices continue above the old ones. On top of that the gate emits a sample only if its
/// index is above the highest index it ever emitted, so no sample is published twice even if the
/// decoder's verdict were wrong. Index gaps between emitted samples are counted as missing: that
/// is what was really lost (dropped over the air, or produced while the link was down).
public struct SensorSampleGate: Sendable {
    /// The decoder, kept for the sensor's lifetime.
    public private(set) var decoder: SDUStreamDecoder
    /// The highest index published; nil before the first sample.
    public private(set) var lastEmittedIndex: Int64?
    /// Samples published.
    public private(set) var samplesEmitted = 0
    /// Samples the gate itself dropped because their index was not above `lastEmittedIndex`.
    public private(set) var samplesDroppedByGate = 0
    /// Indices skipped between published samples: samples really lost.
    public private(set) var missingSamples = 0

    /// A gate around a fresh decoder.
    public init(decoder: SDUStreamDecoder = SDUStreamDecoder()) {
        self.decoder = decoder
    }

    /// Every sample dropped as already seen: whole duplicate notifications (decoder) plus single
    /// samples at or below the high-water mark (gate).
    public var duplicateSamplesDropped: Int { decoder.statistics.duplicateSamples + samplesDroppedByGate }

    /// What one notification yielded besides its samples (``accept(notification:arrivalTime:into:)``).
    public struct Verdict: Hashable, Sendable {
        /// The decoder's verdict.
        public var outcome: SDUNotificationOutcome
        /// Samples of this notification the gate dropped because their index was not new (on top
        /// of a whole notification the decoder dropped as a duplicate).
        public var droppedAsDuplicates: Int
        /// Indices skipped between the previous published sample and this notification's first.
        public var missingBefore: Int
    }

    /// Decodes one notification value that arrived at `arrivalTime` (seconds on the link's
    /// monotonic time line) into `samples`, the ones to publish (emptied first, its capacity kept:
    /// the link reuses one buffer, so a notification allocates nothing), and returns the verdict.
    public mutating func accept(
        notification value: UnsafeRawBufferPointer, arrivalTime: Double, into samples: inout [IndexedSample]
    ) -> Verdict {
        samples.removeAll(keepingCapacity: true)
        let outcome = decoder.decode(notification: value, arrivalTime: arrivalTime, into: &samples)
        var dropped = 0
        var high = lastEmittedIndex ?? Int64.min
        // Almost always nothing is dropped: filtering only then saves the pass.
        if !Self.rises(samples, above: high) {
            samples.removeAll { sample in
                guard sample.index > high else {
                    dropped += 1
                    return true
                }
                high = sample.index
                return false
            }
        }
        var missing = 0
        if let first = samples.first, let last = lastEmittedIndex {
            missing = Int(clamping: first.index &- last &- 1)
        }
        if let newest = samples.last { lastEmittedIndex = newest.index }
        samplesEmitted += samples.count
        samplesDroppedByGate += dropped
        missingSamples += missing
        return Verdict(outcome: outcome, droppedAsDuplicates: dropped, missingBefore: missing)
    }

    /// Whether every index of `samples` is above `high` and above the one before it.
    private static func rises(_ samples: [IndexedSample], above high: Int64) -> Bool {
        var high = high
        for sample in samples {
            guard sample.index > high else { return false }
            high = sample.index
        }
        return true
    }
}
