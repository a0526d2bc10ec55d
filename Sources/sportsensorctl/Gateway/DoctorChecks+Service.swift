// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation

// The installed service: the systemd unit's state and what the running daemon does with its
// adapters' link budgets. Pure functions of what `DoctorProbe` read.
extension DoctorChecks {
    /// The unit's properties `systemctl show` reports.
    static let unitProperties = ["LoadState", "ActiveState", "SubState", "NRestarts", "Result"]

    /// `systemctl show -p A,B` output (`A=x` per line) as a dictionary; lines without `=` are
    /// skipped, a value may itself contain `=`.
    static func systemdProperties(_ output: String) -> [String: String] {
        var properties: [String: String] = [:]
        for line in output.split(whereSeparator: \.isNewline) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            properties[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return properties
    }

    /// What was learnt of the `sportsensord` unit.
    enum UnitProbe: Hashable, Sendable {
        /// systemd is not PID 1 here.
        case notSystemd
        /// `systemctl` is missing, failed or timed out, and why.
        case unknown(String)
        /// `systemctl show`'s properties.
        case properties([String: String])
    }

    /// The `sportsensord` unit: running, or failed or restarting with the fix.
    static func unit(_ probe: UnitProbe) -> DoctorCheck {
        let properties: [String: String]
        switch probe {
        case .notSystemd:
            return DoctorCheck(
                name: "unit", status: .ok, detail: "not under systemd (PID 1 is another init): no unit to check")
        case .unknown(let reason):
            return DoctorCheck(
                name: "unit", status: .warn, detail: "cannot read sportsensord.service's state: \(reason)",
                fix: "`systemctl status sportsensord` shows it")
        case .properties(let read):
            properties = read
        }
        let active = properties["ActiveState"] ?? "unknown"
        let sub = properties["SubState"] ?? "unknown"
        let result = properties["Result"] ?? "unknown"
        let restarts = properties["NRestarts"].flatMap { Int($0) } ?? 0
        let state = "\(active) (\(sub))"
        let journal = "read why in `journalctl -u sportsensord -e`"
        if properties["LoadState"] == "not-found" {
            return DoctorCheck(
                name: "unit", status: .warn, detail: "sportsensord.service is not installed",
                fix:
                    "`sudo make install` installs it (Docs/OPERATIONS.md); ignore this when you run sportsensord by hand"
            )
        }
        switch active {
        case "failed":
            return DoctorCheck(
                name: "unit", status: .fail, detail: "sportsensord.service \(state), result \(result)",
                fix: "\(journal), fix it, then `sudo systemctl restart sportsensord`")
        case "activating" where sub == "auto-restart":
            return DoctorCheck(
                name: "unit", status: .fail,
                detail: "sportsensord.service is restarting after a failure (\(restarts) restarts, result \(result))",
                fix: journal)
        case "inactive":
            return DoctorCheck(
                name: "unit", status: .fail, detail: "sportsensord.service is \(state)",
                fix: "start it: `sudo systemctl enable --now sportsensord`")
        case "active" where restarts > 0:
            return DoctorCheck(
                name: "unit", status: .warn,
                detail: "sportsensord.service \(state), restarted \(restarts) times after failures",
                fix: "it recovered; \(journal)")
        case "active":
            return DoctorCheck(name: "unit", status: .ok, detail: "sportsensord.service \(state)")
        default:
            return DoctorCheck(
                name: "unit", status: .warn, detail: "sportsensord.service is \(state)",
                fix: "rerun doctor in a few seconds; `systemctl status sportsensord` shows what it waits for")
        }
    }

    /// The daemon's adapters with their link budgets and links, and the sensors waiting for a
    /// slot; nil when the daemon did not answer (the daemon check says so).
    static func links(_ status: GatewayStatus?) -> DoctorCheck? {
        guard let status else { return nil }
        let waiting = status.sensorsWaitingForSlot
        let adapters =
            status.adapters.isEmpty
            ? "the daemon uses no Bluetooth adapter"
            : status.adapters.map { "\($0.name) \($0.up ? "up" : "down") \($0.links)/\($0.linkBudget) links" }
                .joined(separator: ", ")
        guard waiting == 0 else {
            return DoctorCheck(
                name: "links", status: .warn,
                detail: "\(adapters); \(waiting) sensor\(waiting == 1 ? "" : "s") waiting for a free slot (no-slot)",
                fix: "add a second adapter or raise [bluetooth] link_budget in /etc/sportsensord/config.toml "
                    + "(Docs/OPERATIONS.md: how many sensors an adapter carries)")
        }
        let down = status.adapters.filter { !$0.up }
        if !down.isEmpty {
            return DoctorCheck(
                name: "links", status: .warn, detail: adapters,
                fix: "the daemon cannot use \(down.map(\.name).joined(separator: ", ")) while it is down: see the "
                    + "adapters check")
        }
        return DoctorCheck(name: "links", status: .ok, detail: adapters)
    }
}
