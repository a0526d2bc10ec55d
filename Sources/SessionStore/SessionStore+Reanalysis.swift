// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

extension SessionStore {
    /// What a re-analysis found.
    public struct Reanalysis: Sendable {
        /// The settings detection ran with.
        public var settings: DetectionSettings
        /// The events, in time order.
        public var events: [DetectorEvent]
        /// How many events the session had before.
        public var previousCount: Int
    }

    /// Runs detection again over a session's stored samples (as `import` and the daemon saw them),
    /// with the session's stored settings changed only by what is asked: another `profile`,
    /// other `rules`, and `key=value` `assignments` named as in the configuration file. With
    /// `save`, the events and the settings used replace the stored ones in one transaction; a
    /// session still recording is refused (`sessionLive`).
    ///
    /// The one implementation behind `sportsensorctl reanalyze` and `POST /v1/sessions/{id}/reanalyze`.
    public func reanalyze(
        _ record: SessionRecord, profile requested: DetectionProfile? = nil, rules: DetectionRules? = nil,
        assignments: [String] = [], save: Bool
    ) async throws(StoreError) -> Reanalysis {
        // Checked again in the saving transaction; refusing here spares running detection first.
        if save && record.isOpen { throw StoreError.sessionLive(record.idText) }
        var settings: DetectionSettings
        if let stored = record.settings {
            settings = stored
            if let requested { settings.profile = requested }
        } else if let requested {
            settings = DetectionSettings(profile: requested)
        } else {
            let names = DetectionProfile.allCases.map(\.rawValue).joined(separator: ", ")
            throw StoreError(
                .invalidArgument,
                "session \(record.idText) has the profile '\(record.profile)', which this build cannot detect: "
                    + "choose one with --profile (\(names))")
        }
        if let rules { settings.rules = rules }
        for assignment in assignments {
            do {
                try settings.set(assignment)
            } catch {
                throw StoreError(.invalidArgument, "--set \(assignment): \(error.message): \(error.fix ?? "")")
            }
        }
        let samples = try await detectionSamples(of: record.id)
        let previous = try await eventCounts(of: record.id).values.reduce(0, +)
        guard !samples.isEmpty else {
            throw StoreError(
                .notFound,
                "session \(record.idText) has no stored samples (pruned with --samples-only, or none recorded): "
                    + "there is nothing to re-analyse; its \(previous) stored event(s) are kept")
        }
        let events = settings.detector.eventsInTimeOrder(in: samples)
        if save {
            try await replaceEvents(of: record.id, with: events.map(EventRecord.init), settings: settings)
            try await saveSummary(
                SessionSummaryAccumulator.summary(profile: settings.profile, samples: samples, events: events),
                of: record.id)
        }
        return Reanalysis(settings: settings, events: events, previousCount: previous)
    }
}
