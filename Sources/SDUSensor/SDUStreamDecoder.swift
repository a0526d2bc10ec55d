// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// What happened to one notification.
public struct SDUNotificationOutcome: Hashable, Sendable {
    /// The notification's fate.
    public enum Event: Hashable, Sendable {
        /// The first notification the decoder saw.
        case first
        /// Delivered; the counter was exactly as expected.
        case inOrder
        /// Delivered after a loss of `lostSamples` samples (estimated for a packet counter).
        case gap(lostSamples: Int)
        /// Delivered without a counter check (mode still detecting, or the header is no counter).
        case unchecked
        /// Dropped: already delivered before (a repeat or replay).
        case duplicate
        /// Delivered as the start of a new counter segment (sensor reset or reconnect).
        case resync
        /// Dropped: the length was not 2 + 6k with k ≥ 1.
        case malformed(WireError)
    }

    /// The notification's fate.
    public var event: Event
    /// Samples delivered from this notification (0 when dropped).
    public var sampleCount: Int
    /// Index of the first delivered sample, nil when none was delivered.
    public var firstIndex: Int64?
    /// The counter mode after this notification.
    public var counterMode: SDUCounterMode

    /// True when the notification's samples were delivered.
    public var isDelivered: Bool { sampleCount > 0 }
}

/// A decoded notification with its samples, from the allocating `decode` variant.
public struct SDUDecodedNotification: Hashable, Sendable {
    /// What happened.
    public var outcome: SDUNotificationOutcome
    /// The delivered samples, in order (empty when dropped).
    public var samples: [IndexedSample]
}

/// Turns one sensor's accelerometer notifications into indexed, timed samples: parses the
/// payload, tracks the header counter (`SampleCounterTracker`), recovers sample times
/// (`SampleClock`) and keeps `SDUStreamStatistics`. Pure: arrival times are passed in.
///
/// Keep one decoder per sensor for as long as the sensor is known, across reconnects: indices
/// keep increasing, and notifications a sensor replays after reconnecting are dropped as
/// duplicates while the counter can tell.
///
/// Timing: a sample's time is `SampleClock`'s line at its index, so samples are evenly spaced at
/// the estimated rate and never later than their notification's arrival. With a counter the
/// index is the sensor's own. Without one, the index counts received samples, which falls behind
/// when notifications are lost; arrival times are the fallback check: a notification arriving
/// more than `fallbackLossThreshold` after the line's time for it skips the index forward by the
/// elapsed time and restarts the line there. Times strictly increase, at least `minimumStep`
/// apart, whatever the rate (a sample is never stamped at or before the previous one). `decode` never traps, whatever the bytes or times.
public struct SDUStreamDecoder: Sendable {
    /// Settings of the counter tracker and the clock.
    public struct Configuration: Hashable, Sendable {
        /// Counter detection and verification thresholds.
        public var counter: SampleCounterTracker.Configuration
        /// Clock recovery settings (nominal rate, window).
        public var clock: SampleClock.Configuration
        /// Without a counter, a notification arriving this many seconds (or more) after the clock
        /// line says its last sample was taken is taken to follow lost samples: the line restarts
        /// from it. Make it larger than the worst latency of a healthy link.
        public var fallbackLossThreshold: Double

        /// The clock a sensor of unknown rate gets: 100 Hz until the fit takes over, and any fitted
        /// rate the sensor can be set to (`SDUProfile.sampleRates`, ±20 %) is believed. With the
        /// clock's own ±20 % band a 400 Hz sensor kept the 100 Hz line for good.
        public static let anySensorRate = SampleClock.Configuration(
            nominalRate: 100,
            plausibleRates: Double(SDUProfile.sampleRates.lowerBound) * 0.8...Double(SDUProfile.sampleRates.upperBound)
                * 1.2)

        /// Creates a configuration; the defaults suit a sensor at any of its rates.
        public init(
            counter: SampleCounterTracker.Configuration = .init(), clock: SampleClock.Configuration = anySensorRate,
            fallbackLossThreshold: Double = 0.25
        ) {
            self.counter = counter
            self.clock = clock
            self.fallbackLossThreshold = fallbackLossThreshold.isFinite ? max(0.001, fallbackLossThreshold) : 0.25
        }
    }

    /// Counts so far.
    public private(set) var statistics = SDUStreamStatistics()
    /// The counter tracker's state.
    public private(set) var tracker: SampleCounterTracker
    /// The clock's state: `clock.rate` is the current sample-rate estimate, `clock.quality` its
    /// confidence.
    public private(set) var clock: SampleClock

    /// The least spacing of two samples' times: 2 µs stay distinct after the store rounds times to
    /// whole microseconds (`StoreTime`) and the CSV prints six decimals.
    public static let minimumStep = 2e-6

    private let lossThreshold: Double
    private var lastTime = -Double.infinity
    private var lastArrival = -Double.infinity
    private var lastIndex: Int64 = -1

    /// Creates a decoder for one sensor.
    public init(configuration: Configuration = Configuration()) {
        tracker = SampleCounterTracker(configuration: configuration.counter)
        clock = SampleClock(configuration: configuration.clock)
        lossThreshold = configuration.fallbackLossThreshold
    }

    /// What the header turned out to be.
    public var counterMode: SDUCounterMode { tracker.mode }

    /// Decodes one notification that arrived at `arrivalTime` (host monotonic seconds) and
    /// returns its samples. Allocates the result array; hot paths use `decode(notification:
    /// arrivalTime:into:)`.
    public mutating func decode(
        notification bytes: some Collection<UInt8>, arrivalTime: Double
    )
        -> SDUDecodedNotification
    {
        var samples: [IndexedSample] = []
        samples.reserveCapacity(max(0, (bytes.count - SDUProfile.headerLength) / SDUProfile.sampleLength))
        let outcome = decode(notification: bytes, arrivalTime: arrivalTime, into: &samples)
        return SDUDecodedNotification(outcome: outcome, samples: samples)
    }

    /// Decodes one notification and appends its delivered samples to `samples`; allocates
    /// nothing when `samples` has room.
    public mutating func decode(
        notification bytes: some Collection<UInt8>, arrivalTime: Double, into samples: inout [IndexedSample]
    ) -> SDUNotificationOutcome {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            decode(notification: UnsafeRawBufferPointer(buffer), arrivalTime: arrivalTime, into: &samples)
        }
        if let contiguous { return contiguous }
        return Array(bytes).withUnsafeBytes { raw in
            decode(notification: raw, arrivalTime: arrivalTime, into: &samples)
        }
    }

    /// Decodes one notification from raw bytes and appends its delivered samples to `samples`.
    public mutating func decode(
        notification bytes: UnsafeRawBufferPointer, arrivalTime: Double, into samples: inout [IndexedSample]
    ) -> SDUNotificationOutcome {
        statistics.notifications += 1
        let arrival = sanitized(arrivalTime)
        let count: Int
        do {
            count = try SDUPayload.sampleCount(forLength: bytes.count)
        } catch {
            statistics.malformedNotifications += 1
            return SDUNotificationOutcome(
                event: .malformed(error), sampleCount: 0, firstIndex: nil, counterMode: tracker.mode)
        }
        let header = SDUPayload.header(in: bytes)
        let observation = tracker.observe(
            header: header, sampleCount: count, samplesElapsedEstimate: samplesElapsed(until: arrival))
        statistics.counterMode = observation.mode

        let event: SDUNotificationOutcome.Event
        switch observation.event {
        case .first: event = .first
        case .inOrder: event = .inOrder
        case .unchecked: event = .unchecked
        case .gap:
            event = .gap(lostSamples: observation.lostSamples)
            statistics.gaps += 1
            statistics.lostSamples += observation.lostSamples
        case .duplicate:
            statistics.duplicateNotifications += 1
            statistics.duplicateSamples += count
            return SDUNotificationOutcome(
                event: .duplicate, sampleCount: 0, firstIndex: nil, counterMode: observation.mode)
        case .resync:
            event = .resync
            statistics.resyncs += 1
            clock.reset(keepingRate: true)
        }

        // Defensive: the tracker's indices only increase, but never hand out an index twice.
        var first = max(observation.firstIndex, lastIndex &+ 1)
        if observation.mode == .notACounter, let predicted = clock.time(ofSample: first &+ Int64(count - 1)),
            arrival - predicted > lossThreshold
        {
            // No counter to tell, but this came far too late for its index: samples were lost.
            // Skip indices by the time that passed and restart the line from here.
            first = first &+ Int64(min(((arrival - predicted) * clock.rate).rounded(.down), 1e12))
            clock.reset(keepingRate: true)
        }
        let last = first &+ Int64(count - 1)
        clock.observe(lastIndex: last, arrivalTime: arrival)
        // A line slower than the sensor (the prior before the fit, or a line just lowered to an
        // early arrival) puts a notification's first samples at or before the previous one. Each
        // sample gets at least its share of the span from the previous sample to this
        // notification's last, and at least `minimumStep` after the sample before it.
        let previous = lastTime
        let end = max(clock.time(ofSample: last) ?? arrival, previous + Double(count) * Self.minimumStep)
        for j in 0..<count {
            let index = first &+ Int64(j)
            let line = clock.time(ofSample: index) ?? arrival
            let share = previous.isFinite ? previous + (end - previous) * Double(j + 1) / Double(count) : line
            let time = max(line, share, lastTime + Self.minimumStep)
            lastTime = time
            samples.append(IndexedSample(index: index, t: time, raw: SDUPayload.sample(j, in: bytes)))
        }
        lastIndex = last
        statistics.samplesReceived += count
        return SDUNotificationOutcome(
            event: event, sampleCount: count, firstIndex: first, counterMode: observation.mode)
    }

    /// A usable arrival time: non-finite or decreasing times are replaced by the last one.
    private mutating func sanitized(_ arrivalTime: Double) -> Double {
        var arrival = arrivalTime
        if !arrival.isFinite { arrival = lastArrival.isFinite ? lastArrival : 0 }
        arrival = max(arrival, lastArrival)
        lastArrival = arrival
        return arrival
    }

    /// Sample periods between the last delivered sample and `arrival`, for resyncs.
    private func samplesElapsed(until arrival: Double) -> Int {
        guard lastIndex >= 0, let last = clock.time(ofSample: lastIndex) else { return 0 }
        let periods = ((arrival - last) * clock.rate).rounded()
        guard periods.isFinite, periods > 0 else { return 0 }
        return Int(min(periods, 1e12))
    }
}
