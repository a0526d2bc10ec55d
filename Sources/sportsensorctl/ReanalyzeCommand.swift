// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Detection
import Foundation
import SDUSensor
import SessionStore

/// `sportsensorctl reanalyze`: detection run again over a session's stored samples.
struct ReanalyzeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reanalyze",
        abstract: "Run detection again over a stored session's samples; --save keeps the result.",
        discussion: """
            Prints the events as JSON lines in the `analyze` schema. It runs the detection settings \
            the session was stored with (profile, rules and every parameter), so without options it \
            gives exactly the stored events; --profile, --rules and --set change them. --save \
            replaces the stored events and settings with the ones used, in one transaction; it \
            refuses a session that is still recording. Without --save the store is only read.
            """
    )

    @OptionGroup var state: StateDirectoryOptions

    @Option(help: "The profile to run (default: the session's).")
    var profile: String?

    @Option(help: "standard or baseline (default: the session's).")
    var rules: DetectionRules?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Override one detector parameter, named as in the configuration file (repeatable).",
            valueName: "key=value"))
    var assignments: [String] = []

    @Flag(help: "Replace the stored events and profile with the result.")
    var save = false

    @Argument(help: "The session id or a unique prefix of it.")
    var id: String

    func run() async throws {
        try await reportingFailures {
            let requested = try profile.map { value throws(CommandFailure) in try StoreArguments.profile(value) }
            let store = try save ? state.openStore() : state.openStoreReadOnly()
            let record = try await store.session(idPrefix: id)
            let result = try await Self.reanalyze(
                record, profile: requested, rules: rules, assignments: assignments, save: save, store: store)
            StoreFormat.write(result.events.map { EventRecord($0).jsonLine + "\n" }.joined())
            if save {
                FileHandle.standardError.write(
                    Data(
                        ("saved \(result.events.count) \(result.settings.profile.rawValue) event(s) for session "
                            + "\(record.idText), replacing \(result.previousCount)\n").utf8))
            }
        }
    }

    /// What a re-analysis found.
    struct Result {
        /// The settings detection ran with.
        var settings: DetectionSettings
        var events: [DetectorEvent]
        /// How many events the session had before.
        var previousCount: Int
    }

    /// Runs the detector over the stored samples as `import` and the daemon see them, with the
    /// session's stored settings changed only by what is requested; with `save` stores the events
    /// and those settings in one transaction.
    static func reanalyze(
        _ record: SessionRecord, profile requested: DetectionProfile?, rules requestedRules: DetectionRules?,
        assignments: [String] = [], save: Bool, store: SessionStore
    ) async throws -> Result {
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
            throw CommandFailure.usage(
                "session \(record.idText) has the profile '\(record.profile)', which this build cannot detect: "
                    + "choose one with --profile (\(names))")
        }
        if let requestedRules { settings.rules = requestedRules }
        settings = try settings.overriding(assignments)
        let samples = try await store.detectionSamples(of: record.id)
        let previous = try await store.events(of: record.id).count
        guard !samples.isEmpty else {
            throw CommandFailure.noInput(
                "session \(record.idText) has no stored samples (pruned with --samples-only, or none recorded): "
                    + "there is nothing to re-analyse; its \(previous) stored event(s) are kept")
        }
        let events = detectEvents(in: samples, settings: settings)
        if save {
            try await store.replaceEvents(of: record.id, with: events.map(EventRecord.init), settings: settings)
        }
        return Result(settings: settings, events: events, previousCount: previous)
    }
}

/// `sportsensorctl prune`: deletes old sessions, or only their samples.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete finished sessions started longer ago than a duration, or only their samples.",
        discussion: "Sessions still recording are never touched. Prints what it removed."
    )

    @OptionGroup var state: StateDirectoryOptions

    @Option(name: .customLong("older-than"), help: "Age: a number and s, m, h, d or w (90d, 12h, 2w).")
    var olderThan: String

    @Flag(name: .customLong("samples-only"), help: "Keep the sessions and their events; delete only the samples.")
    var samplesOnly = false

    @Flag(help: "Rewrite the database afterwards to give the space back to the file system.")
    var vacuum = false

    @Flag(help: "Print a JSON object instead of a sentence.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let age = try StoreArguments.duration(olderThan)
            let store = try state.openStore()
            let cutoff = Date().addingTimeInterval(-age)
            let result = try await store.prune(olderThan: cutoff, samplesOnly: samplesOnly, vacuum: vacuum)
            StoreFormat.write(Self.describe(result, samplesOnly: samplesOnly, cutoff: cutoff, json: json) + "\n")
        }
    }

    /// The report: a sentence for people, or JSON.
    static func describe(_ result: PruneResult, samplesOnly: Bool, cutoff: Date, json: Bool) -> String {
        if json {
            return StoreFormat.object([
                ("cutoff", StoreFormat.string(StoreFormat.time(cutoff))),
                ("samples_only", "\(samplesOnly)"),
                ("sessions_deleted", "\(result.sessionsDeleted)"),
                ("sessions_affected", "\(result.sessionsAffected)"),
                ("chunks_deleted", "\(result.chunksDeleted)"),
                ("samples_deleted", "\(result.samplesDeleted)"),
                ("events_deleted", "\(result.eventsDeleted)"),
            ])
        }
        let before = "started before \(StoreFormat.time(cutoff))"
        if samplesOnly {
            return "removed \(result.samplesDeleted) samples (\(result.chunksDeleted) chunks) of "
                + "\(result.sessionsAffected) session(s) \(before); their events are kept"
        }
        return "removed \(result.sessionsDeleted) session(s) \(before): \(result.eventsDeleted) events, "
            + "\(result.samplesDeleted) samples (\(result.chunksDeleted) chunks)"
    }
}
