// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Detection
import Foundation
import SDUSensor
import SessionStore

/// One session as `sessions` and `show` print it.
struct SessionListing {
    var record: SessionRecord
    var athlete: String?
    var samples: Int64
    var events: [EventRecord]

    /// Seconds from start to end, nil while recording.
    var duration: Double? { record.endedAt.map { $0.timeIntervalSince(record.startedAt) } }

    /// Reads what the listing needs for `record`.
    static func load(
        _ record: SessionRecord, store: SessionStore, athletes: [Int64: String]
    ) async throws(StoreError)
        -> SessionListing
    {
        let storage = try await store.sampleStorage(of: record.id)
        let events = try await store.events(of: record.id)
        return SessionListing(
            record: record, athlete: record.athleteID.flatMap { athletes[$0] }, samples: storage.samples,
            events: events)
    }

    /// Athlete names by id.
    static func athleteNames(_ store: SessionStore) async throws(StoreError) -> [Int64: String] {
        Dictionary(uniqueKeysWithValues: try await store.athletes().map { ($0.id, $0.name) })
    }

    /// The members both `sessions --json` and `show --json` print.
    var jsonMembers: [(String, String)] {
        let optional = { (text: String?) in text.map(StoreFormat.string) ?? "null" }
        return [
            ("id", StoreFormat.string(record.idText)),
            ("started_at", StoreFormat.string(StoreFormat.time(record.startedAt))),
            ("ended_at", optional(record.endedAt.map(StoreFormat.time))),
            ("end_reason", optional(record.endReason?.rawValue)),
            ("athlete", optional(athlete)),
            ("sensor", optional(record.sensor?.description)),
            ("profile", StoreFormat.string(record.profile)),
            ("duration_s", duration.map { StoreFormat.number($0, 3) } ?? "null"),
            ("samples", "\(samples)"),
            ("events", "\(events.count)"),
        ]
    }
}

/// `sportsensorctl sessions`: the stored sessions, newest first.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List stored sessions, newest first (a table, or --json).",
        discussion: """
            Reads the database directly and read-only (no migration, nothing written), so it works \
            while the daemon records, on the daemon's directory through its group and on a \
            read-only file system.
            """
    )

    @OptionGroup var state: StateDirectoryOptions

    @Option(help: "Only this athlete's sessions (by name).")
    var athlete: String?

    @Option(help: "Only sessions from this sensor address.")
    var sensor: String?

    @Option(help: "Only this profile.")
    var profile: String?

    @Option(help: "Only sessions started at or after this ISO 8601 date or time (UTC).")
    var since: String?

    @Option(help: "Only sessions started before this ISO 8601 date or time (UTC).")
    var until: String?

    @Flag(help: "Print a JSON array instead of the table.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            var filter = SessionFilter(profile: profile)
            if let sensor {
                guard let address = BluetoothAddress(string: sensor) else {
                    throw CommandFailure.usage(
                        "--sensor \(sensor): expected a Bluetooth address like FC:97:8B:75:10:AB")
                }
                filter.sensor = address
            }
            filter.startedFrom = try since.map { value throws(CommandFailure) in
                try StoreArguments.date(value, option: "--since")
            }
            filter.startedBefore = try until.map { value throws(CommandFailure) in
                try StoreArguments.date(value, option: "--until")
            }
            let store = try state.openStoreReadOnly()
            let listings = try await Self.listings(store, filter: filter, athlete: athlete)
            StoreFormat.write((json ? Self.json(listings) : Self.table(listings)) + "\n")
        }
    }

    /// The sessions matching the filter; an athlete name nobody has matches nothing.
    static func listings(
        _ store: SessionStore, filter: SessionFilter, athlete: String?
    ) async throws(StoreError)
        -> [SessionListing]
    {
        var filter = filter
        if let athlete {
            guard let known = try await store.athlete(named: athlete) else { return [] }
            filter.athleteID = known.id
        }
        let names = try await SessionListing.athleteNames(store)
        var listings: [SessionListing] = []
        for record in try await store.sessions(filter: filter) {
            listings.append(try await SessionListing.load(record, store: store, athletes: names))
        }
        return listings
    }

    /// The human table: id prefix, start, athlete, sensor, profile, duration, samples, events.
    static func table(_ listings: [SessionListing]) -> String {
        if listings.isEmpty { return "no sessions" }
        let rows = listings.map { listing in
            [
                String(listing.record.idText.prefix(8)), StoreFormat.time(listing.record.startedAt),
                listing.athlete ?? "-", listing.record.sensor?.description ?? "-", listing.record.profile,
                listing.duration.map(StoreFormat.duration) ?? "recording", "\(listing.samples)",
                "\(listing.events.count)",
            ]
        }
        return StoreFormat.table(
            header: ["ID", "STARTED", "ATHLETE", "SENSOR", "PROFILE", "DURATION", "SAMPLES", "EVENTS"], rows: rows,
            numeric: [5, 6, 7])
    }

    /// A JSON array, one object per session.
    static func json(_ listings: [SessionListing]) -> String {
        "[" + listings.map { StoreFormat.object($0.jsonMembers) }.joined(separator: ",") + "]"
    }
}

/// `sportsensorctl show`: one session's summary.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Summarise one session: profile, athlete, sensor, times, counts, best and mean values."
    )

    @OptionGroup var state: StateDirectoryOptions

    @Flag(help: "Print a JSON object instead of the table.")
    var json = false

    @Argument(help: "The session id or a unique prefix of it.")
    var id: String

    func run() async throws {
        try await reportingFailures {
            let store = try state.openStoreReadOnly()
            let record = try await store.session(idPrefix: id)
            let report = try await Self.report(record, store: store)
            StoreFormat.write((json ? report.json : report.table) + "\n")
        }
    }

    /// What `show` prints.
    struct Report {
        var listing: SessionListing
        /// Events per type, by type name.
        var eventCounts: [(String, Int)]
        /// The profile summary, when the session's profile is one this build detects.
        var summary: SessionSummary?

        var table: String {
            let record = listing.record
            let counts = record.counts
            var rows: [(String, String)] = [
                ("id", record.idText),
                ("profile", record.profile),
                ("athlete", listing.athlete ?? "-"),
                ("sensor", record.sensor?.description ?? "-"),
                ("started", StoreFormat.time(record.startedAt)),
                ("ended", record.endedAt.map(StoreFormat.time) ?? "still recording"),
                ("end reason", record.endReason?.rawValue ?? "-"),
                ("duration", listing.duration.map(StoreFormat.duration) ?? "-"),
                ("sample rate", counts.sampleRate.map { SampleCSV.fixed($0, decimals: 3) + " Hz" } ?? "-"),
                ("samples stored", "\(listing.samples)"),
                ("received", "\(counts.received)"),
                ("lost", "\(counts.lost)"),
                ("unsaved", "\(record.unsavedSamples)"),
                ("malformed", "\(counts.malformed)"),
            ]
            rows += eventCounts.map { ("\($0.0) events", "\($0.1)") }
            if let summary {
                rows += summary.table.split(separator: "\n").dropFirst().map { line in
                    let parts = line.split(separator: " ", maxSplits: 1)
                    return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
                }
            }
            // Last: the detector settings the events came from, as `reanalyze --set` takes them.
            rows.append(("rules", record.settings?.rules.rawValue ?? "-"))
            rows.append(("parameters", record.settings?.assignments.joined(separator: " ") ?? "-"))
            let width = rows.map(\.0.count).max() ?? 0
            return rows.map { $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
                .joined(separator: "\n")
        }

        var json: String {
            let counts = listing.record.counts
            var members = listing.jsonMembers
            members += [
                ("settings", listing.record.settings.map(ShowCommand.settingsJSON) ?? "null"),
                ("sample_rate_hz", counts.sampleRate.map { StoreFormat.number($0, 3) } ?? "null"),
                ("received", "\(counts.received)"), ("lost", "\(counts.lost)"),
                ("unsaved_samples", "\(listing.record.unsavedSamples)"), ("malformed", "\(counts.malformed)"),
                ("event_counts", StoreFormat.object(eventCounts.map { ($0.0, "\($0.1)") })),
                ("summary", summary?.jsonLine ?? "null"),
            ]
            return StoreFormat.object(members)
        }
    }

    /// Detection settings as the JSON object the store keeps.
    static func settingsJSON(_ settings: DetectionSettings) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(settings)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// Gathers the report: events are counted per type and, for a known profile, summarised as
    /// `analyze --summary` would over the stored samples' time span.
    static func report(_ record: SessionRecord, store: SessionStore) async throws(StoreError) -> Report {
        let listing = try await SessionListing.load(
            record, store: store, athletes: try await SessionListing.athleteNames(store))
        var counts: [String: Int] = [:]
        for event in listing.events { counts[event.type, default: 0] += 1 }
        var summary: SessionSummary?
        if let stored = try await store.summary(of: record.id) {
            summary = stored
        } else if let profile = DetectionProfile(rawValue: record.profile) {
            let samples = listing.samples > 0 ? try await store.detectionSamples(of: record.id) : []
            summary = SessionSummaryAccumulator.summary(
                profile: profile, samples: samples, events: listing.events.compactMap(\.detectorEvent))
        }
        if let athleteID = record.athleteID, let athlete = try await store.athlete(id: athleteID) {
            summary = summary?.withBodyMass(athlete.massKg)
        }
        return Report(
            listing: listing, eventCounts: counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            summary: summary)
    }
}
