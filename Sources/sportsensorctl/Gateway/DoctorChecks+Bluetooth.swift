// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import Foundation

// The radio and what shares it: rfkill switches, the controllers' LE settings, bluetoothd and
// its discovery. Pure functions of what `DoctorProbe` read.
extension DoctorChecks {
    /// One rfkill switch, from `/sys/class/rfkill/rfkillN/{name,type,soft,hard}`.
    struct RadioSwitch: Hashable, Sendable {
        /// `hci0`, `phy0`, ...
        var name: String
        /// `bluetooth`, `wlan`, ...
        var type: String
        /// Blocked by software (`rfkill block`, a desktop's airplane mode).
        var softBlocked: Bool
        /// Blocked by a hardware switch or the firmware.
        var hardBlocked: Bool

        /// A switch from the attribute files' contents; nil when one is missing or not `0`/`1`.
        init?(name: String?, type: String?, soft: String?, hard: String?) {
            func flag(_ text: String?) -> Bool? {
                switch text?.trimmingCharacters(in: .whitespacesAndNewlines) {
                case "0": false
                case "1": true
                default: nil
                }
            }
            guard let name, let type, let soft = flag(soft), let hard = flag(hard) else { return nil }
            self.name = name.trimmingCharacters(in: .whitespacesAndNewlines)
            self.type = type.trimmingCharacters(in: .whitespacesAndNewlines)
            softBlocked = soft
            hardBlocked = hard
        }
    }

    /// Bluetooth radios blocked by rfkill; `switches` is nil when the kernel has no rfkill.
    static func rfkill(_ switches: [RadioSwitch]?) -> DoctorCheck {
        let radios = (switches ?? []).filter { $0.type == "bluetooth" }
        guard !radios.isEmpty else {
            return DoctorCheck(
                name: "rfkill", status: .ok,
                detail: switches == nil
                    ? "the kernel has no rfkill switches" : "no Bluetooth radio has an rfkill switch")
        }
        let hard = radios.filter(\.hardBlocked).map(\.name)
        let soft = radios.filter { $0.softBlocked && !$0.hardBlocked }.map(\.name)
        if !hard.isEmpty {
            return DoctorCheck(
                name: "rfkill", status: .fail,
                detail: "hard-blocked: \(hard.joined(separator: ", "))"
                    + (soft.isEmpty ? "" : "; soft-blocked: \(soft.joined(separator: ", "))"),
                fix: "a hardware switch or the firmware blocks the radio: turn the switch (or the laptop's "
                    + "airplane-mode key) on, or enable Bluetooth in the firmware setup; `rfkill list` shows it"
                    + (soft.isEmpty ? "" : "; then `sudo rfkill unblock bluetooth`"))
        }
        if !soft.isEmpty {
            return DoctorCheck(
                name: "rfkill", status: .fail, detail: "soft-blocked: \(soft.joined(separator: ", "))",
                fix: "`sudo rfkill unblock bluetooth` (systemd-rfkill keeps it unblocked across reboots)")
        }
        return DoctorCheck(
            name: "rfkill", status: .ok, detail: radios.map(\.name).joined(separator: ", ") + " not blocked")
    }

    /// `5.0` for HCI version 9; nil for numbers this table does not know.
    static func bluetoothVersionName(_ version: UInt8) -> String? {
        let names: [UInt8: String] = [
            6: "4.0", 7: "4.1", 8: "4.2", 9: "5.0", 10: "5.1", 11: "5.2", 12: "5.3", 13: "5.4", 14: "6.0",
        ]
        return names[version]
    }

    /// Low Energy supported and on, per adapter, from mgmt Read Controller Information;
    /// `information` is nil when the control socket could not be opened (`openError` says why).
    /// Nil when there is no adapter to check (the adapters check says so).
    static func lowEnergy(
        adapters: [HCIAdapter], information: [UInt16: MgmtControllerQuery.Answer]?, openError: TransportError?
    ) -> DoctorCheck? {
        guard !adapters.isEmpty else { return nil }
        guard let information else {
            let reason = openError?.message ?? "the management interface did not answer"
            let permission = openError?.code == .permissionDenied
            return DoctorCheck(
                name: "LE", status: .warn, detail: "cannot read the adapters' LE settings: \(reason)",
                fix: permission
                    ? "this kernel reads them only for CAP_NET_ADMIN: `sudo sportsensorctl doctor`, or `sudo btmgmt info`"
                    : "`sudo btmgmt info` lists each adapter's current settings (look for `le`)")
        }
        var found: [String] = []
        var notSupported: [HCIAdapter] = []
        var off: [HCIAdapter] = []
        var unreadable: [(HCIAdapter, TransportError)] = []
        for adapter in adapters {
            switch information[adapter.index] {
            case .success(let info):
                let version = bluetoothVersionName(info.bluetoothVersion).map { " (Bluetooth \($0))" } ?? ""
                if !info.supportedSettings.contains(.lowEnergy) {
                    notSupported.append(adapter)
                    found.append("\(adapter.name) no LE\(version)")
                } else if !info.currentSettings.contains(.lowEnergy) {
                    off.append(adapter)
                    found.append("\(adapter.name) LE off\(version)")
                } else {
                    found.append("\(adapter.name) LE on\(version)")
                }
            case .failure(let error):
                unreadable.append((adapter, error))
                found.append("\(adapter.name) unknown")
            case nil:
                unreadable.append(
                    (adapter, TransportError(code: .noSuchAdapter, message: "\(adapter.name) was not asked")))
                found.append("\(adapter.name) unknown")
            }
        }
        let detail = found.joined(separator: ", ")
        var fixes: [String] = []
        if !notSupported.isEmpty {
            let names = notSupported.map(\.name).joined(separator: ", ")
            fixes.append("\(names) cannot do Bluetooth Low Energy: use a Bluetooth 4.0 or later adapter")
        }
        if !off.isEmpty {
            fixes.append(off.map { "`sudo btmgmt --index \($0.index) le on`" }.joined(separator: ", "))
        }
        if !fixes.isEmpty {
            return DoctorCheck(name: "LE", status: .fail, detail: detail, fix: fixes.joined(separator: "; "))
        }
        if let (_, error) = unreadable.first {
            let fix =
                error.code == .permissionDenied
                ? "this kernel reads controller settings only for CAP_NET_ADMIN: `sudo sportsensorctl doctor`"
                : error.message
            return DoctorCheck(name: "LE", status: .warn, detail: detail, fix: fix)
        }
        return DoctorCheck(name: "LE", status: .ok, detail: detail)
    }

    /// Whether bluetoothd runs: its process (`pid`), else, when the process list hides it, its
    /// unit's `systemctl show` properties (`unit`, nil without systemd).
    static func bluetoothd(pid: Int?, unit: [String: String]?) -> DoctorCheck {
        if let pid {
            return DoctorCheck(
                name: "bluetoothd", status: .ok,
                detail: "running (pid \(pid)); the gateway discovers through the kernel and shares the adapters with it"
            )
        }
        switch unit?["ActiveState"] {
        case "active", "reloading":
            return DoctorCheck(
                name: "bluetoothd", status: .ok,
                detail: "bluetooth.service is active; the gateway shares the adapters with it")
        case "failed":
            return DoctorCheck(
                name: "bluetoothd", status: .warn,
                detail: "bluetooth.service failed (\(unit?["Result"] ?? "no result"))",
                fix: "the gateway does not need bluetoothd, but the box's other Bluetooth tools do: "
                    + "`journalctl -u bluetooth -e`, then `sudo systemctl restart bluetooth`")
        default:
            return DoctorCheck(
                name: "bluetoothd", status: .ok,
                detail: "not running: the gateway has the adapters to itself (nothing else powers them up; "
                    + "see the adapters check)")
        }
    }

    /// What one adapter's `Discovering` property said.
    enum DiscoveryProbe: Hashable, Sendable {
        /// bluetoothd runs no discovery on it.
        case idle
        /// bluetoothd discovers on it for one of its clients.
        case discovering
        /// Neither busctl nor bluetoothctl is installed.
        case noTool
        /// The tool could not tell, and why.
        case unknown(String)
    }

    /// Whether bluetoothd discovers on any adapter. Its `Discovering` property is true only for
    /// a discovery bluetoothd itself started (`bluetoothctl scan on`, a desktop's Bluetooth
    /// panel), never for the gateway's own.
    static func discovery(bluetoothdRunning: Bool, adapters: [(name: String, probe: DiscoveryProbe)]) -> DoctorCheck {
        guard bluetoothdRunning else {
            return DoctorCheck(
                name: "discovery", status: .ok, detail: "bluetoothd is not running, so it runs no discovery")
        }
        guard !adapters.isEmpty else {
            return DoctorCheck(name: "discovery", status: .ok, detail: "no adapter to check")
        }
        let discovering = adapters.filter { $0.probe == .discovering }.map(\.name)
        let unknown = adapters.compactMap { adapter -> (String, String)? in
            switch adapter.probe {
            case .unknown(let reason): (adapter.name, reason)
            case .noTool: (adapter.name, "neither busctl nor bluetoothctl is installed")
            case .idle, .discovering: nil
            }
        }
        // Typed: with GRDB in the module, an untyped interpolating closure can infer its `SQL`.
        let detail = adapters.map { adapter -> String in
            switch adapter.probe {
            case .idle: "\(adapter.name) idle"
            case .discovering: "\(adapter.name) discovering"
            case .unknown, .noTool: "\(adapter.name) unknown"
            }
        }
        .joined(separator: ", ")
        if !discovering.isEmpty {
            return DoctorCheck(
                name: "discovery", status: .warn,
                detail: "bluetoothd discovers on \(discovering.joined(separator: ", ")) for another program: \(detail)",
                fix: "the gateway's scans answer Busy and report only what that discovery finds until it ends: "
                    + "`bluetoothctl scan off`, or close the desktop's Bluetooth panel")
        }
        if let (_, reason) = unknown.first {
            let fix: String
            if reason.localizedCaseInsensitiveContains("access denied") {
                fix =
                    "bluetoothd's D-Bus policy refuses this user: rerun with sudo, or join the `bluetooth` group "
                    + "(`sudo usermod -aG bluetooth $USER`)"
            } else if adapters.contains(where: { $0.probe == .noTool }) {
                fix = "install busctl (systemd) or bluetoothctl (bluez) for doctor to check"
            } else {
                fix = "`bluetoothctl show` says `Discovering: yes` while another program discovers"
            }
            return DoctorCheck(
                name: "discovery", status: .warn,
                detail: "cannot tell whether bluetoothd discovers: \(detail) (\(reason))", fix: fix)
        }
        return DoctorCheck(name: "discovery", status: .ok, detail: "bluetoothd is not discovering: \(detail)")
    }

    /// What a tool's run says of `Discovering`: its parsed answer when it ended well, else why not.
    static func discoveryProbe(_ tool: String, _ run: ToolOutput, parse: (String) -> Bool?) -> DiscoveryProbe {
        if run.status == 0, !run.timedOut, let discovering = parse(run.output) {
            return discovering ? .discovering : .idle
        }
        return .unknown("\(tool): \(run.failure)")
    }

    /// The boolean `busctl get-property` printed (`b true`); nil for anything else.
    static func busctlBoolean(_ output: String) -> Bool? {
        switch output.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "b true": true
        case "b false": false
        default: nil
        }
    }

    /// The `Discovering:` line of `bluetoothctl show`; nil when there is none.
    static func bluetoothctlDiscovering(_ output: String) -> Bool? {
        for line in output.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("Discovering:") else { continue }
            switch trimmed.dropFirst("Discovering:".count).trimmingCharacters(in: .whitespaces) {
            case "yes": return true
            case "no": return false
            default: return nil
            }
        }
        return nil
    }
}
