// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol
import Foundation

/// `sportsensorctl replication`: replication into the central PostgreSQL.
struct ReplicationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replication", abstract: "Replication into the central PostgreSQL (Docs/REPLICATION.md).",
        subcommands: [ReplicationStatusCommand.self], defaultSubcommand: ReplicationStatusCommand.self)
}

/// `sportsensorctl replication status`: state, lag in items and seconds, the last error and its fix.
struct ReplicationStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show replication's state, lag and last error (with its fix).")

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await runClientCommand(client) { connection in
            let status: ReplicationStatusInfo = try await connection.get(ControlRoute.replication.request())
            client.output(status, Self.text)
        }
    }

    /// The human form.
    static func text(_ status: ReplicationStatusInfo) -> String {
        guard status.configured else {
            return "replication: not configured (add [replication] to the configuration, Docs/REPLICATION.md)\n"
        }
        var lines = [
            "replication: \(status.state ?? "?") as \(status.gatewayId ?? "?") → \(status.target ?? "?")",
            "lag:         \(status.outboxItems) items, \(String(format: "%.1f", status.lagSeconds)) s "
                + "(outbox bound \(status.outboxLimit))",
            "sent:        \(status.sentItems) items, \(status.sentSamples) samples since the daemon started",
        ]
        if let last = status.lastSuccess { lines.append("last batch:  \(last.formatted(.iso8601))") }
        if status.alarm {
            lines.append(
                status.queueing
                    ? "ALARM:       the outbox is near its bound; at the bound changes stop being queued"
                    : "ALARM:       the outbox reached its bound: changes are not queued until it drains (then a resync)"
            )
        }
        if let error = status.lastError { lines.append("last error:  [\(status.lastErrorCode ?? "?")] \(error)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
