// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Foundation
import SessionStore

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

    @OptionGroup var daemon: DaemonSocketOption

    func run() async throws {
        try await reportingFailures {
            let age = try StoreArguments.duration(olderThan)
            let cutoff = Date().addingTimeInterval(-age)
            let result: PruneResult
            if let endpoint = await StoreWriter.daemon(socket: daemon.socket, serving: state.directory) {
                let request = PruneRequest(startedBefore: cutoff, samplesOnly: samplesOnly, vacuum: vacuum)
                let report = try await ControlClient.with(endpoint) { client in
                    try await client.send(
                        ControlRoute.prune.request(), json: request, as: PruneReport.self, timeout: 3600)
                }
                result = PruneResult(
                    sessionsDeleted: report.sessionsDeleted, sessionsAffected: report.sessionsAffected,
                    chunksDeleted: report.chunksDeleted, samplesDeleted: report.samplesDeleted,
                    eventsDeleted: report.eventsDeleted)
            } else {
                result = try await state.openStore().prune(olderThan: cutoff, samplesOnly: samplesOnly, vacuum: vacuum)
            }
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
