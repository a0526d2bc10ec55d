// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
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

    @OptionGroup var daemon: DaemonSocketOption

    func run() async throws {
        try await reportingFailures {
            let requested = try profile.map { value throws(CommandFailure) in try StoreArguments.profile(value) }
            if save, let endpoint = await StoreWriter.daemon(socket: daemon.socket, serving: state.directory) {
                let request = ReanalyzeRequest(profile: requested?.rawValue, rules: rules?.rawValue, set: assignments)
                let result = try await ControlClient.with(endpoint) { client in
                    try await client.send(
                        ControlRoute.reanalyze.request(id), json: request, as: ReanalyzeResult.self, timeout: 600)
                }
                StoreFormat.write(result.events.map { $0.jsonLine + "\n" }.joined())
                Self.reportSaved(
                    result.events.count, profile: result.session.profile, session: result.session.id,
                    replacing: result.previousCount, by: "sportsensord")
                return
            }
            let store = try save ? state.openStore() : state.openStoreReadOnly()
            let record = try await store.session(idPrefix: id)
            let result = try await store.reanalyze(
                record, profile: requested, rules: rules, assignments: assignments, save: save)
            StoreFormat.write(result.events.map { EventRecord($0).jsonLine + "\n" }.joined())
            if save {
                Self.reportSaved(
                    result.events.count, profile: result.settings.profile.rawValue, session: record.idText,
                    replacing: result.previousCount, by: "the store")
            }
        }
    }

    /// `saved N PROFILE event(s) for session ID, replacing M (through WHO)` on standard error.
    static func reportSaved(_ count: Int, profile: String, session: String, replacing previous: Int, by writer: String)
    {
        writeStandardError(
            "saved \(count) \(profile) event(s) for session \(session), replacing \(previous) "
                + "(written by \(writer))\n")
    }
}
