// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Foundation
import GatewayConfig
import SessionStore

/// `sportsensorctl prune`: deletes old sessions, or only their samples; `--dry-run` lists them.
struct PruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Delete finished sessions stored longer ago than a duration, or only their samples.",
        discussion: """
            Age counts from when a session entered this store (an import of an old recording is new). Sessions \
            still recording are never touched. --dry-run lists what would go, with sizes, and deletes nothing. A \
            prune that would take more than [retention] max_share of the finished sessions (0.5) deletes nothing \
            unless --force is given.
            """
    )

    @OptionGroup var state: StateDirectoryOptions

    @Option(name: .customLong("older-than"), help: "Age: a number and s, m, h, d or w (90d, 12h, 2w).")
    var olderThan: String

    @Flag(name: .customLong("samples-only"), help: "Keep the sessions and their events; delete only the samples.")
    var samplesOnly = false

    @Flag(name: .customLong("dry-run"), help: "Only list what would be deleted, with sizes.")
    var dryRun = false

    @Flag(help: "Delete even when that takes more than [retention] max_share of the sessions.")
    var force = false

    @Flag(help: "Rewrite the database afterwards to give the space back to the file system.")
    var vacuum = false

    @Flag(help: "Print a JSON object instead of a sentence.")
    var json = false

    @OptionGroup var daemon: DaemonSocketOption

    func run() async throws {
        try await reportingFailures {
            let age = try StoreArguments.duration(olderThan)
            let cutoff = Date().addingTimeInterval(-age)
            let report: PruneReport
            if let endpoint = await StoreWriter.daemon(socket: daemon.socket, serving: state.directory) {
                let request = PruneRequest(
                    storedBefore: cutoff, samplesOnly: samplesOnly, vacuum: vacuum, dryRun: dryRun, force: force)
                report = try await ControlClient.with(endpoint) { client in
                    try await client.send(
                        ControlRoute.prune.request(), json: request, as: PruneReport.self, timeout: 3600)
                }
            } else {
                let options = SessionStore.PruneOptions(
                    samplesOnly: samplesOnly, dryRun: dryRun, vacuum: vacuum,
                    maximumShare: force ? nil : RetentionPolicy().maximumShare)
                let store = try dryRun ? state.openStoreReadOnly() : state.openStore()
                let result = try await store.prune(storedBefore: cutoff, options)
                report = PruneReport(
                    sessionsDeleted: result.sessionsDeleted, sessionsAffected: result.sessionsAffected,
                    chunksDeleted: result.chunksDeleted, samplesDeleted: result.samplesDeleted,
                    eventsDeleted: result.eventsDeleted,
                    sessionIds: result.sessionIDs.map { $0.uuidString.lowercased() },
                    sampleBytes: result.sampleBytes, finishedSessions: result.finishedSessions, dryRun: dryRun)
            }
            StoreFormat.write(Self.describe(report, samplesOnly: samplesOnly, cutoff: cutoff, json: json) + "\n")
        }
    }

    /// The report: sentences for people (with the session ids), or JSON.
    static func describe(_ report: PruneReport, samplesOnly: Bool, cutoff: Date, json: Bool) -> String {
        if json {
            return StoreFormat.object([
                ("cutoff", StoreFormat.string(StoreFormat.time(cutoff))),
                ("samples_only", "\(samplesOnly)"),
                ("dry_run", "\(report.dryRun)"),
                ("sessions_deleted", "\(report.sessionsDeleted)"),
                ("sessions_affected", "\(report.sessionsAffected)"),
                ("chunks_deleted", "\(report.chunksDeleted)"),
                ("samples_deleted", "\(report.samplesDeleted)"),
                ("sample_bytes", "\(report.sampleBytes)"),
                ("events_deleted", "\(report.eventsDeleted)"),
                ("finished_sessions", "\(report.finishedSessions)"),
                ("session_ids", "[" + report.sessionIds.map(StoreFormat.string).joined(separator: ",") + "]"),
            ])
        }
        let before = "stored before \(StoreFormat.time(cutoff))"
        let verb = report.dryRun ? "would remove" : "removed"
        let size = "\(report.samplesDeleted) samples (\(report.chunksDeleted) chunks, \(bytes(report.sampleBytes)))"
        var text =
            samplesOnly
            ? "\(verb) \(size) of \(report.sessionsAffected) of \(report.finishedSessions) session(s) \(before); "
                + "their events are kept"
            : "\(verb) \(report.sessionsAffected) of \(report.finishedSessions) session(s) \(before): "
                + "\(report.eventsDeleted) events, \(size)"
        for id in report.sessionIds { text += "\n  \(id)" }
        return text
    }

    /// `1.2 MB`.
    static func bytes(_ count: Int64) -> String {
        if count < 1000 { return "\(count) B" }
        if count < 1_000_000 { return StoreFormat.number(Double(count) / 1000, 1) + " kB" }
        return StoreFormat.number(Double(count) / 1_000_000, 1) + " MB"
    }
}
