// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation

extension DoctorChecks {
    /// The daemon's connection to the central PostgreSQL; nil when the daemon did not answer or
    /// replication is not configured.
    static func replication(_ status: ReplicationStatusInfo?) -> DoctorCheck? {
        guard let status, status.configured else { return nil }
        let lag = "\(status.outboxItems) items, \(String(format: "%.0f", status.lagSeconds)) s behind"
        let target = status.target ?? "the central database"
        switch status.state {
        case "replicating" where status.alarm:
            return DoctorCheck(
                name: "replication", status: .warn,
                detail: "connected to \(target) but the outbox is near its bound (\(lag), bound \(status.outboxLimit))",
                fix: "the server is not keeping up: check its load and the link; raise max_outbox_items if the "
                    + "store's disk allows")
        case "replicating":
            return DoctorCheck(name: "replication", status: .ok, detail: "connected to \(target), \(lag)")
        case "connecting" where status.lastError == nil:
            return DoctorCheck(
                name: "replication", status: .warn, detail: "connecting to \(target)",
                fix: "run doctor again in a few seconds")
        default:
            return DoctorCheck(
                name: "replication", status: .fail,
                detail:
                    "\(status.state ?? "not connected"): \(status.lastError ?? "no connection to \(target)") (\(lag))",
                fix: "recording goes on and the outbox keeps every change; `sportsensorctl replication status` "
                    + "shows the lag, Docs/REPLICATION.md the setup")
        }
    }
}
