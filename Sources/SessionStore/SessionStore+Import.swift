// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Detection
import Foundation
import SDUSensor

extension SessionStore {
    /// A decoded recording ready to store (from a sample CSV or a btsnoop capture).
    public struct Recording: Sendable {
        /// The samples: unwrapped indices, times rounded to the microsecond, raw counts.
        public var samples: [StoredSample]
        /// The sensor, when the capture names it.
        public var sensor: BluetoothAddress?
        /// Stream counters and the recovered rate.
        public var counts: SessionCounts
        /// The wall-clock time of the capture's first record.
        public var captureStart: Date?

        /// A recording.
        public init(samples: [StoredSample], sensor: BluetoothAddress?, counts: SessionCounts, captureStart: Date?) {
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
        try recording.validate()
        // Whole microseconds, which the store gives back exactly, so `reanalyze` sees these samples.
        let stored = recording.samples.map {
            StoredSample(index: $0.index, t: StoreTime.microseconds($0.t), raw: $0.raw)
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
    /// The largest sample time an import accepts, in seconds from the recording's start: a week.
    /// Epoch seconds (1.7·10⁹) are well past it, and times that large would overflow the
    /// durations every listing prints.
    public static let latestTime: Double = 7 * 86_400

    /// Checks that the samples can be a session: finite times between 0 and ``latestTime``
    /// seconds, never going back, indices strictly increasing.
    ///
    /// - Throws: ``StoreError`` `invalidArgument` naming the first bad sample and the fix.
    public func validate() throws(StoreError) {
        var previous: StoredSample?
        for (position, sample) in samples.enumerated() {
            let row = position + 1
            guard sample.t.isFinite else {
                throw StoreError(
                    .invalidArgument,
                    "sample \(row) has time \(sample.t): every time must be a number of seconds; fix the recording")
            }
            guard sample.t >= 0, sample.t <= Self.latestTime else {
                throw StoreError(
                    .invalidArgument,
                    "sample \(row) has time \(sample.t) s: times are seconds from the recording's start (0 to "
                        + "\(Int(Self.latestTime)) s); subtract the first time from every time (epoch times need "
                        + "--started for the wall-clock start)")
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
