// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import Foundation
import SDUSensor
import StoreFormats

extension SessionStore {
    /// A decoded recording ready to store (from a sample CSV or a btsnoop capture).
    public struct Recording: Sendable {
        /// The samples: unwrapped indices, times rounded to the microsecond, raw counts.
        public var samples: [IndexedSample]
        /// The sensor, when the capture names it.
        public var sensor: BluetoothAddress?
        /// Stream counters and the recovered rate.
        public var counts: SessionCounts
        /// The wall-clock time of the capture's first record.
        public var captureStart: Date?

        /// A recording.
        public init(samples: [IndexedSample], sensor: BluetoothAddress?, counts: SessionCounts, captureStart: Date?) {
            self.samples = samples
            self.sensor = sensor
            self.counts = counts
            self.captureStart = captureStart
        }
    }

    /// What ``importRecording(_:settings:athlete:sensor:startedAt:)`` stored.
    public struct Imported: Sendable {
        /// The new session.
        public var session: SessionRecord
        /// Its events, in time order.
        public var events: [DetectorEvent]
        /// True when the athlete was new.
        public var addedAthlete: Bool
    }

    /// Stores a recording as a finished session with the events `settings` detect in the samples
    /// exactly as the store will give them back (so `reanalyze` reproduces them), the athlete
    /// found or added by name, in one transaction.
    ///
    /// The one implementation behind `sportsensorctl import` and `POST /v1/sessions/import`.
    public func importRecording(
        _ recording: Recording, settings: DetectionSettings, athlete: String? = nil, sensor: BluetoothAddress? = nil,
        startedAt: Date? = nil
    ) async throws(StoreError) -> Imported {
        try recording.validate(startedAt: startedAt)
        // Whole microseconds, which the store gives back exactly, so `reanalyze` sees these samples.
        let stored = recording.samples.map {
            IndexedSample(index: $0.index, t: StoreTime.microseconds($0.t), raw: $0.raw)
        }
        let samples = stored.map(\.acceleration)
        let events = settings.detector.eventsInTimeOrder(in: samples)
        var athleteID: Int64?
        var added = false
        if let name = athlete?.trimmingCharacters(in: .whitespaces), !name.isEmpty {
            if let known = try await self.athlete(named: name) {
                athleteID = known.id
            } else {
                athleteID = try await addAthlete(name: name).id
                added = true
            }
        }
        let new = NewSession(
            sensor: sensor ?? recording.sensor, athleteID: athleteID, settings: settings,
            startedAt: startedAt ?? recording.captureStart ?? Date())
        let session = try await importSession(
            new, samples: stored, events: events.map(EventRecord.init), counts: recording.counts)
        try await saveSummary(
            SessionSummaryAccumulator.summary(profile: settings.profile, samples: samples, events: events),
            of: session.id)
        return Imported(session: session, events: events, addedAthlete: added)
    }
}

extension SessionStore.Recording {
    /// The largest sample time an import accepts, in seconds from the recording's start
    /// (``StoredRanges/time``): times that large would overflow the durations listings print.
    public static let latestTime: Double = StoredRanges.time.bounds.upperBound

    /// Checks that the recording can be a session: its counts, rate and capture start within
    /// ``StoredRanges``, finite times between 0 and ``latestTime`` seconds never going back,
    /// indices in range and strictly increasing.
    ///
    /// - Throws: ``StoreError`` `invalidArgument` naming the field or the first bad sample, and the fix.
    public func validate(startedAt: Date? = nil) throws(StoreError) {
        let problems = [
            counts.rangeProblem,
            captureStart.flatMap { StoredRanges.named(StoredRanges.wallClock, "capture_start").problem(with: $0) },
            startedAt.flatMap { StoredRanges.wallClock.problem(with: $0) },
        ]
        if let problem = problems.lazy.compactMap({ $0 }).first {
            throw StoreError(.invalidArgument, "\(problem): fix the recording or the option")
        }
        var previous: IndexedSample?
        for (position, sample) in samples.enumerated() {
            let row = position + 1
            guard sample.t.isFinite else {
                throw StoreError(
                    .invalidArgument,
                    "sample \(row) has time \(sample.t): every time must be a number of seconds; fix the recording")
            }
            guard StoredRanges.time.problem(with: sample.t) == nil else {
                throw StoreError(
                    .invalidArgument,
                    "sample \(row) has time \(sample.t) s: times are seconds from the recording's start (0 to "
                        + "\(Int(Self.latestTime)) s); subtract the first time from every time (epoch times need "
                        + "--started for the wall-clock start)")
            }
            if let problem = StoredRanges.sampleIndex.problem(with: sample.index, label: "sample \(row)'s index") {
                throw StoreError(.invalidArgument, "\(problem): fix the recording")
            }
            if let previous {
                guard sample.index > previous.index else {
                    throw StoreError(
                        .invalidArgument,
                        "sample \(row) has index \(sample.index) after \(previous.index): indices must increase; "
                            + "fix or sort the recording")
                }
                guard sample.t >= previous.t else {
                    throw StoreError(
                        .invalidArgument,
                        "sample \(row) goes back in time (\(sample.t) s after \(previous.t) s): sort the recording by time"
                    )
                }
            }
            previous = sample
        }
    }
}

extension SessionCounts {
    /// The first counter out of its ``StoredRanges`` range, said with its name and range.
    public var rangeProblem: String? {
        let problems = [
            StoredRanges.sampleCount.problem(with: received, label: "the received sample count"),
            StoredRanges.lostSamples.problem(with: lost),
            StoredRanges.malformedNotifications.problem(with: malformed),
            sampleRate.flatMap { StoredRanges.sampleRate.problem(with: $0) },
        ]
        return problems.lazy.compactMap { $0 }.first
    }

    /// Each counter held within its ``StoredRanges`` range (a rate outside it dropped): for the
    /// counters of a recovery file, which are imported rather than refused so the session's
    /// samples are not lost with them.
    public var clampedToStoredRanges: SessionCounts {
        func clamp(_ value: Int64, _ range: StoredRange<Int64>) -> Int64 {
            min(max(value, range.bounds.lowerBound), range.bounds.upperBound)
        }
        return SessionCounts(
            received: clamp(received, StoredRanges.sampleCount), lost: clamp(lost, StoredRanges.lostSamples),
            malformed: clamp(malformed, StoredRanges.malformedNotifications),
            sampleRate: sampleRate.flatMap { StoredRanges.sampleRate.problem(with: $0) == nil ? $0 : nil })
    }
}
