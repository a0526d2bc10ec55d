// SPDX-License-Identifier: GPL-2.0-or-later

/// What the 2-byte notification header turned out to be.
public enum SDUCounterMode: Hashable, Sendable, CustomStringConvertible {
    /// Too few notifications yet to tell.
    case detecting
    /// The header counts samples: the next notification's header is this one's plus its sample
    /// count, modulo 65536.
    case sampleCounter
    /// The header counts notifications: +1 per notification, modulo 65536.
    case packetCounter
    /// The header is no counter (constant, random, or it stopped fitting): samples are indexed
    /// in arrival order and timed from arrival times.
    case notACounter

    /// The mode in words, for logs.
    public var description: String {
        switch self {
        case .detecting: "detecting"
        case .sampleCounter: "sample counter"
        case .packetCounter: "packet counter"
        case .notACounter: "not a counter"
        }
    }
}

/// Follows the notification header, decides whether it is a sample counter, a packet counter or
/// neither, and gives every sample a continuous, unwrapped 64-bit index.
///
/// Feed every well-formed notification in arrival order with `observe(header:sampleCount:)`;
/// the returned `Observation` says whether it is in order, follows a gap, is a duplicate to
/// drop, or starts a new segment after a sensor reset.
///
/// ## Detection
///
/// Each step from one notification to the next is tested against both hypotheses, with d the
/// header difference modulo 65536 and k the previous notification's sample count:
/// - sample counter: d = k is *in order*; k < d ≤ k + `maxGapSamples` is a *loss* (and when every
///   notification so far had the same k, d − k must be a multiple of k); anything else *breaks*
///   the hypothesis's run;
/// - packet counter: d = 1 is in order; 2 ≤ d ≤ 1 + `maxGapSamples` / k is a loss; else a break.
///
/// Losses, and a repeated header (d = 0), neither confirm nor break a run. A break restarts that hypothesis's count of in-order
/// steps. The first hypothesis to reach `confirmations` in-order steps wins (the sample counter
/// first: with one sample per notification both are the same). If neither has won after
/// `detectionSteps` steps, the header is not a counter. Samples seen while detecting are indexed
/// in arrival order; the samples the winning hypothesis counted as lost are added to the index
/// when the mode is decided, so later indices are right.
///
/// ## Verification
///
/// Once decided, each header is compared with the expected one (previous header plus k, or plus
/// 1). The signed difference s modulo 65536 gives:
/// - s = 0: in order;
/// - 0 < s ≤ `maxGapSamples` (in packets for a packet counter: s × k ≤ `maxGapSamples`): a gap of
///   s samples (packet counter: s lost packets × the last k); also a longer forward jump that the
///   caller's elapsed-time estimate agrees with (within a quarter), such as a slow reconnect;
/// - −`replayWindowSamples` ≤ s < 0 (same conversion): a duplicate or replayed notification, to
///   be dropped; it does not move the expected header;
/// - anything else: a resync (the sensor reset or reconnected with a new counter); the tracker
///   re-anchors on the new header and keeps the index increasing, skipping the caller's estimate
///   of the samples that elapsed (lost samples are not counted: the counter cannot tell).
///
/// More than `maxConsecutiveDuplicates` duplicates in a row cannot be a replay: if they count up
/// among themselves, the sensor restarted its counter shortly behind ours, and the tracker
/// resyncs onto them (the duplicates already dropped are lost); otherwise (a frozen or constant
/// header, which would drop everything) the header is demoted to `.notACounter`.
///
/// A resync, or a gap that is not a whole number of notifications while k has been constant,
/// *misfits*. When 3 of the last 8 accepted notifications misfit, the tracker demotes the header
/// to `.notACounter` for good. The notification that triggers a demotion is delivered, not
/// dropped.
public struct SampleCounterTracker: Sendable {
    /// Thresholds of the detection and verification rules.
    public struct Configuration: Hashable, Sendable {
        /// In-order steps that confirm a counter hypothesis.
        public var confirmations: Int
        /// Steps after which a header that confirmed neither hypothesis is declared no counter.
        public var detectionSteps: Int
        /// The largest forward jump, in samples, that counts as a gap rather than a resync.
        public var maxGapSamples: Int
        /// The largest backward jump, in samples, that counts as a duplicate rather than a resync.
        public var replayWindowSamples: Int
        /// Duplicates in a row beyond which the header is declared no counter.
        public var maxConsecutiveDuplicates: Int
        /// A mode known in advance (for example from a first pass over a recording): detection
        /// is skipped and the first notification is already indexed by it, so a loss among the
        /// first notifications is counted exactly. Verification still demotes a header that
        /// stops fitting. Nil (the default) detects.
        public var assumedMode: SDUCounterMode?

        /// The defaults: confirm after 4 in-order steps, give up after 16 steps, gaps up to 2048
        /// samples (≈ 20 s at 100 Hz), duplicates up to 1024 samples back, at most 16 in a row.
        public init(
            confirmations: Int = 4, detectionSteps: Int = 16, maxGapSamples: Int = 2048,
            replayWindowSamples: Int = 1024, maxConsecutiveDuplicates: Int = 16, assumedMode: SDUCounterMode? = nil
        ) {
            self.confirmations = max(1, confirmations)
            self.detectionSteps = max(self.confirmations, detectionSteps)
            self.maxGapSamples = min(max(1, maxGapSamples), 30000)
            self.replayWindowSamples = min(max(1, replayWindowSamples), 30000)
            self.maxConsecutiveDuplicates = max(1, maxConsecutiveDuplicates)
            self.assumedMode = assumedMode == .detecting ? nil : assumedMode
        }
    }

    /// What one notification was, relative to the ones before it.
    public enum Event: Hashable, Sendable {
        /// The first notification, or the first since `reset()`.
        case first
        /// Exactly the expected header.
        case inOrder
        /// Samples were lost just before this notification.
        case gap
        /// Already seen (or replayed from before the last one): drop it.
        case duplicate
        /// The counter jumped too far to be a gap or a replay: new segment.
        case resync
        /// Not checked: the mode is still being detected, or the header is no counter.
        case unchecked
    }

    /// The verdict on one notification.
    public struct Observation: Hashable, Sendable {
        /// What the notification was.
        public var event: Event
        /// The index of its first sample; the others follow consecutively. Meaningless for a
        /// duplicate (the index of the sample the tracker expects next).
        public var firstIndex: Int64
        /// Samples lost just before this notification (estimated for a packet counter).
        public var lostSamples: Int
        /// The mode after this notification.
        public var mode: SDUCounterMode
    }

    /// The thresholds in use.
    public let configuration: Configuration
    /// The current mode.
    public private(set) var mode: SDUCounterMode = .detecting
    /// The index the next in-order sample gets.
    public private(set) var nextIndex: Int64 = 0

    private var hasPrevious = false
    private var previousHeader: UInt16 = 0
    private var previousCount = 1
    private var countIsConstant = true
    // Detection.
    private var steps = 0
    private var sampleRun = 0
    private var sampleRunLost = 0
    private var packetRun = 0
    private var packetRunLost = 0
    // Verification.
    private var misfits: UInt8 = 0
    private var consecutiveDuplicates = 0
    /// True while the run of duplicates counts up by itself (a stream restarted behind us).
    private var duplicatesInStep = true
    private var lastDuplicateHeader: UInt16 = 0
    private var lastDuplicateCount = 1

    /// Creates a tracker that starts detecting at index 0.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.mode = configuration.assumedMode ?? .detecting
    }

    /// Forgets the counter anchor and starts detecting again; the index continues.
    public mutating func reset() {
        self = SampleCounterTracker(configuration: configuration, nextIndex: nextIndex)
    }

    private init(configuration: Configuration, nextIndex: Int64) {
        self.configuration = configuration
        self.nextIndex = nextIndex
        self.mode = configuration.assumedMode ?? .detecting
    }

    /// Classifies one well-formed notification with `header` and `sampleCount` (≥ 1) samples.
    ///
    /// `samplesElapsedEstimate` is the caller's estimate (e.g. from arrival times) of how many
    /// sample periods passed since the previous notification; it tells a long gap from a reset
    /// (a forward jump past `maxGapSamples` that it agrees with is a gap), and on a resync it keeps
    /// indices roughly in step with time across the reset. Pass 0 when unknown.
    public mutating func observe(header: UInt16, sampleCount: Int, samplesElapsedEstimate: Int = 0) -> Observation {
        // Clamped so that no arithmetic below can overflow, whatever the caller passes.
        let count = min(max(1, sampleCount), 1 << 24)
        guard hasPrevious else {
            hasPrevious = true
            return accept(header: header, count: count, event: .first, lost: 0)
        }
        switch mode {
        case .detecting:
            return detect(header: header, count: count)
        case .notACounter:
            return accept(header: header, count: count, event: .unchecked, lost: 0)
        case .sampleCounter, .packetCounter:
            return verify(header: header, count: count, elapsed: samplesElapsedEstimate)
        }
    }

    /// True when a forward jump beyond `maxGapSamples` is what the time since the previous
    /// notification says was lost (within a quarter, or four notifications): a long outage of a
    /// sensor that kept counting, such as a slow reconnect, not a reset. Its samples are then
    /// counted as lost and the indices stay the sensor's own.
    static func timeAgrees(lost: Int, _ count: Int, _ elapsed: Int) -> Bool {
        guard elapsed > 0 else { return false }
        return abs(lost + count - elapsed) <= max(elapsed / 4, 4 * count)
    }

    private mutating func accept(header: UInt16, count: Int, event: Event, lost: Int, skip: Int = 0) -> Observation {
        if count != previousCount && event != .first { countIsConstant = false }
        let lost = max(0, lost)
        let first = nextIndex &+ Int64(lost) &+ Int64(max(0, skip))
        nextIndex = first &+ Int64(count)
        previousHeader = header
        previousCount = count
        return Observation(event: event, firstIndex: first, lostSamples: lost, mode: mode)
    }

    private func isSampleGap(_ d: Int) -> Bool {
        let k = previousCount
        guard d > k, d <= k + configuration.maxGapSamples else { return false }
        return !countIsConstant || (d - k) % k == 0
    }

    private var maxGapPackets: Int { max(1, configuration.maxGapSamples / previousCount) }

    private mutating func detect(header: UInt16, count: Int) -> Observation {
        let d = Int(header &- previousHeader)
        if d == 0 {
            // A repeated header: a duplicate or a constant header. Neither confirms nor breaks.
        } else if d == previousCount {
            sampleRun += 1
        } else if isSampleGap(d) {
            sampleRunLost += d - previousCount
        } else {
            sampleRun = 0
            sampleRunLost = 0
        }
        if d == 1 {
            packetRun += 1
        } else if d == 0 || (d >= 2 && d <= 1 + maxGapPackets) {
            packetRunLost += max(0, d - 1) * previousCount
        } else {
            packetRun = 0
            packetRunLost = 0
        }
        steps += 1
        if sampleRun >= configuration.confirmations {
            mode = .sampleCounter
            return accept(header: header, count: count, event: sampleRunLost > 0 ? .gap : .inOrder, lost: sampleRunLost)
        }
        if packetRun >= configuration.confirmations {
            mode = .packetCounter
            return accept(header: header, count: count, event: packetRunLost > 0 ? .gap : .inOrder, lost: packetRunLost)
        }
        if steps >= configuration.detectionSteps { mode = .notACounter }
        return accept(header: header, count: count, event: .unchecked, lost: 0)
    }

    private mutating func verify(header: UInt16, count: Int, elapsed: Int) -> Observation {
        let isSamples = mode == .sampleCounter
        let step = isSamples ? previousCount : 1
        let unit = isSamples ? 1 : previousCount
        let s = Int(Int16(bitPattern: header &- (previousHeader &+ UInt16(truncatingIfNeeded: step))))
        if s < 0, -s * unit <= configuration.replayWindowSamples {
            if consecutiveDuplicates > 0 {
                let stepFromLast = isSamples ? lastDuplicateCount : 1
                duplicatesInStep =
                    duplicatesInStep && header == lastDuplicateHeader &+ UInt16(truncatingIfNeeded: stepFromLast)
            } else {
                duplicatesInStep = true
            }
            consecutiveDuplicates += 1
            lastDuplicateHeader = header
            lastDuplicateCount = count
            if consecutiveDuplicates > configuration.maxConsecutiveDuplicates {
                consecutiveDuplicates = 0
                if duplicatesInStep {
                    // Not a replay: the sensor restarted its counter a little behind ours.
                    misfits = misfits << 1 | 1
                    return accept(header: header, count: count, event: .resync, lost: 0)
                }
                mode = .notACounter
                return accept(header: header, count: count, event: .unchecked, lost: 0)
            }
            return Observation(event: .duplicate, firstIndex: nextIndex, lostSamples: 0, mode: mode)
        }
        consecutiveDuplicates = 0
        let event: Event
        var lost = 0
        var skip = 0
        var misfit = false
        if s == 0 {
            event = .inOrder
        } else if s > 0, s * unit <= configuration.maxGapSamples || Self.timeAgrees(lost: s * unit, count, elapsed) {
            event = .gap
            lost = s * unit
            misfit = isSamples && countIsConstant && s % previousCount != 0
        } else {
            event = .resync
            skip = max(0, min(elapsed, Int(Int32.max)) - count)
            misfit = true
        }
        misfits = misfits << 1 | (misfit ? 1 : 0)
        if misfits.nonzeroBitCount >= 3 {
            mode = .notACounter
            return accept(header: header, count: count, event: .unchecked, lost: 0)
        }
        return accept(header: header, count: count, event: event, lost: lost, skip: skip)
    }
}
