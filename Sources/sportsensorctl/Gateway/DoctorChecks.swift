// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import ControlProtocol
import Foundation

/// One line of `sportsensorctl doctor`.
struct DoctorCheck: Codable, Hashable, Sendable {
    /// The outcome.
    enum Status: String, Codable, Hashable, Sendable {
        case ok = "OK"
        case warn = "WARN"
        case fail = "FAIL"
    }

    /// What was checked (`kernel`, `adapters`, ...).
    var name: String
    /// The outcome.
    var status: Status
    /// What was found.
    var detail: String
    /// What to do, for `WARN` and `FAIL`.
    var fix: String?
}

/// The doctor's checks as pure functions of what was observed; `DoctorProbe` does the observing.
enum DoctorChecks {
    /// Linux's capability numbers (linux/capability.h).
    static let capNetAdmin = 12
    /// `CAP_NET_RAW`.
    static let capNetRaw = 13

    /// Kernel Bluetooth support: an HCI socket opens (`adapterError` is nil or another failure than
    /// `noBluetoothSupport`). When it does not, `/proc/net/protocols` tells a kernel without
    /// Bluetooth from one that refuses it here (a network namespace other than the host's).
    static func kernel(protocols: String?, adapterError: TransportError?) -> DoctorCheck {
        guard let adapterError, adapterError.code == .noBluetoothSupport else {
            return DoctorCheck(name: "kernel", status: .ok, detail: "Bluetooth sockets (AF_BLUETOOTH) are available")
        }
        if protocols.map(listsBluetooth) == true {
            return DoctorCheck(
                name: "kernel", status: .fail,
                detail: "the kernel has Bluetooth but refuses its sockets here (another network namespace)",
                fix: "Bluetooth sockets exist only in the host's network namespace: run on the host or in a "
                    + "container with --net=host, and without PrivateNetwork= in the unit")
        }
        return DoctorCheck(
            name: "kernel", status: .fail, detail: "the kernel has no Bluetooth sockets (AF_BLUETOOTH)",
            fix: "load the modules (`sudo modprobe bluetooth btusb`) or use a kernel built with CONFIG_BT and "
                + "CONFIG_BT_LE")
    }

    /// True when a `/proc/net/protocols` listing has the Bluetooth protocols (`HCI`, `L2CAP`).
    static func listsBluetooth(_ protocols: String) -> Bool {
        protocols.split(separator: "\n").contains { line in
            let name = line.prefix { $0 != " " && $0 != "\t" }
            return name == "HCI" || name == "L2CAP"
        }
    }

    /// At least one adapter, all up.
    static func adapters(_ listing: Result<[HCIAdapter], TransportError>) -> DoctorCheck {
        switch listing {
        case .failure(let error) where error.code == .noBluetoothSupport:
            return DoctorCheck(
                name: "adapters", status: .fail, detail: "no adapters: the kernel has no Bluetooth support",
                fix: "fix the kernel check first")
        case .failure(let error):
            return DoctorCheck(
                name: "adapters", status: .fail, detail: "cannot list adapters: \(error.message)",
                fix: "see Docs/TROUBLESHOOTING.md")
        case .success(let adapters) where adapters.isEmpty:
            return DoctorCheck(
                name: "adapters", status: .fail, detail: "no Bluetooth adapter",
                fix: "plug in a Bluetooth 4.0 or later adapter; `rfkill list` shows whether one is blocked "
                    + "(`sudo rfkill unblock bluetooth`)")
        case .success(let adapters):
            let down = adapters.filter { !$0.isUp }
            let detail = adapters.map(\.description).joined(separator: ", ")
            guard down.isEmpty else {
                let commands = down.map { "`sudo btmgmt --index \($0.index) power on`" }.joined(separator: ", ")
                return DoctorCheck(
                    name: "adapters", status: .fail, detail: detail,
                    fix: "power it up: `sudo rfkill unblock bluetooth`, then \(commands)")
            }
            return DoctorCheck(name: "adapters", status: .ok, detail: detail)
        }
    }

    /// The set bits of a `CapEff:` hex mask from `/proc/PID/status`; nil when it is not one.
    static func capabilities(hexMask: String) -> Set<Int>? {
        let trimmed = hexMask.trimmingPrefix("0x")
        guard !trimmed.isEmpty, trimmed.count <= 16, let mask = UInt64(trimmed, radix: 16) else { return nil }
        return Set((0..<64).filter { mask & (1 << UInt64($0)) != 0 })
    }

    /// The `CapEff:` mask in a `/proc/PID/status` text.
    static func effectiveCapabilityMask(status: String) -> String? {
        for line in status.split(separator: "\n") where line.hasPrefix("CapEff:") {
            return line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The daemon's capabilities when it runs (`daemon`: its pid and CapEff mask), else this
    /// process's (`own`).
    static func capabilities(daemon: (pid: Int, mask: String)?, own: String?) -> DoctorCheck {
        let needed = [(capNetRaw, "CAP_NET_RAW"), (capNetAdmin, "CAP_NET_ADMIN")]
        if let daemon {
            guard let set = capabilities(hexMask: daemon.mask) else {
                return DoctorCheck(
                    name: "capabilities", status: .warn, detail: "cannot read sportsensord's capabilities",
                    fix: "check `grep Cap /proc/\(daemon.pid)/status`")
            }
            let missing = needed.filter { !set.contains($0.0) }.map(\.1)
            guard missing.isEmpty else {
                return DoctorCheck(
                    name: "capabilities", status: .fail,
                    detail: "sportsensord (pid \(daemon.pid)) lacks \(missing.joined(separator: " and "))",
                    fix: "run it from the unit (AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN), or by hand after "
                        + "`sudo setcap cap_net_raw,cap_net_admin+ep $(command -v sportsensord)`")
            }
            return DoctorCheck(
                name: "capabilities", status: .ok,
                detail: "sportsensord (pid \(daemon.pid)) has CAP_NET_RAW and CAP_NET_ADMIN")
        }
        let set = own.flatMap(capabilities(hexMask:)) ?? []
        let missing = needed.filter { !set.contains($0.0) }.map(\.1)
        if missing.isEmpty {
            return DoctorCheck(
                name: "capabilities", status: .ok,
                detail: "sportsensord is not running; this shell has CAP_NET_RAW and CAP_NET_ADMIN to run it by hand")
        }
        return DoctorCheck(
            name: "capabilities", status: .warn,
            detail: "sportsensord is not running, and this shell lacks \(missing.joined(separator: " and "))",
            fix: "the unit grants them; to run sportsensord by hand: "
                + "`sudo setcap cap_net_raw,cap_net_admin+ep $(command -v sportsensord)`")
    }

    /// Programs that compete for the adapter: tools that scan over a raw HCI socket, behind the
    /// kernel's back (`hcitool lescan`, `sportsensor-dev hci-scan`). bluetoothctl and btmgmt go
    /// through the kernel, which shares their discovery with the gateway; btmon and hcidump only
    /// listen; bluetoothd has its own check.
    static func competingScanners(processes: [(pid: Int, name: String)]) -> DoctorCheck {
        let scanners = processes.filter { ["hcitool", "sportsensor-dev"].contains($0.name) }
        if !scanners.isEmpty {
            let names = scanners.map { "\($0.name) (pid \($0.pid))" }.joined(separator: ", ")
            return DoctorCheck(
                name: "other scanners", status: .warn, detail: "running: \(names)",
                fix: "a raw HCI scan (hcitool lescan, sportsensor-dev hci-scan) makes the controller refuse the "
                    + "kernel's scans and connections: quit it; bluetoothctl's discovery is shared with the gateway")
        }
        return DoctorCheck(name: "other scanners", status: .ok, detail: "no other scanner running")
    }

    /// What `stat`/`access` said about the control socket.
    enum SocketProbe: Hashable, Sendable {
        case missing
        case notASocket
        case noAccess(mode: UInt32)
        case usable(mode: UInt32)
    }

    /// The control socket exists and this user may connect to it.
    static func controlSocket(path: String, probe: SocketProbe) -> DoctorCheck {
        switch probe {
        case .missing:
            return DoctorCheck(
                name: "control socket", status: .fail, detail: "\(path) does not exist",
                fix: "start the service: `sudo systemctl enable --now sportsensord` (or pass --socket)")
        case .notASocket:
            return DoctorCheck(
                name: "control socket", status: .fail, detail: "\(path) is not a socket",
                fix: "remove it and restart the service: `sudo systemctl restart sportsensord`")
        case .noAccess(let mode):
            return DoctorCheck(
                name: "control socket", status: .fail, detail: "\(path) (mode \(octal(mode))) is not writable for you",
                fix: "add yourself to the `sportsensor` group (`sudo usermod -aG sportsensor $USER`, then log in again)"
            )
        case .usable(let mode):
            return DoctorCheck(name: "control socket", status: .ok, detail: "\(path) (mode \(octal(mode)))")
        }
    }

    /// The daemon answered `GET /v1/status`.
    static func daemon(_ answer: Result<GatewayStatus, ClientError>) -> DoctorCheck {
        switch answer {
        case .success(let status):
            return DoctorCheck(
                name: "daemon", status: .ok,
                detail: "sportsensord \(status.version), up \(GatewayFormatting.duration(status.uptimeSeconds)), "
                    + "\(status.sensorsPaired) sensors, \(status.liveSessions) live sessions")
        case .failure(let error):
            return DoctorCheck(name: "daemon", status: .fail, detail: error.message, fix: error.fix)
        }
    }

    /// What could be read of the session database without the daemon.
    enum StoreFileProbe: Hashable, Sendable {
        case missing
        case unreadable(String)
        case notSQLite
        /// An SQLite file whose `PRAGMA quick_check` passed; bytes with its chunk files.
        case sqlite(bytes: Int)
        /// An SQLite file `PRAGMA quick_check` finds damaged, with SQLite's findings.
        case damaged(String)
    }

    /// Store health: the daemon's word when it answers, else a read-only look at the file.
    static func store(status: GatewayStatus?, databasePath: String, file: StoreFileProbe) -> DoctorCheck {
        if case .damaged(let findings) = file {
            // Whatever the daemon says: its own check may not have finished yet.
            return DoctorCheck(
                name: "store", status: .fail, detail: "\(databasePath) is damaged (\(findings))",
                fix: "stop sportsensord, keep a copy of the file, and restore the last backup (Docs/OPERATIONS.md); "
                    + "`sportsensorctl store check` lists SQLite's findings")
        }
        if let status {
            if status.storeHealthy {
                return DoctorCheck(name: "store", status: .ok, detail: "\(status.stateDirectory): healthy")
            }
            return DoctorCheck(
                name: "store", status: .fail,
                detail: "\(status.stateDirectory): the daemon reports the store unhealthy",
                fix:
                    "read why with `journalctl -u sportsensord -e`; check free space (`df -h \(status.stateDirectory)`)"
            )
        }
        switch file {
        case .missing:
            return DoctorCheck(
                name: "store", status: .warn, detail: "no session database at \(databasePath) yet",
                fix: "the daemon creates it on its first start")
        case .unreadable(let reason):
            return DoctorCheck(
                name: "store", status: .warn, detail: "cannot read \(databasePath) (\(reason)) to check it",
                fix: "start the daemon and rerun doctor: it reports the store's health")
        case .notSQLite:
            return DoctorCheck(
                name: "store", status: .fail, detail: "\(databasePath) is not an SQLite database",
                fix: "move it away; the daemon creates a new one (Docs/TROUBLESHOOTING.md)")
        case .sqlite(let bytes):
            return DoctorCheck(
                name: "store", status: .ok,
                detail:
                    "\(databasePath): an SQLite database, \(bytes / 1024) KiB with its chunk files, quick_check ok (daemon not reachable: "
                    + "file checked only)")
        case .damaged:
            preconditionFailure("handled above")
        }
    }

    /// `0660`.
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The doctor's report, one aligned line per check with its fix below.
    static func report(_ checks: [DoctorCheck]) -> String {
        let width = checks.map(\.name.count).max() ?? 0
        var output = ""
        for check in checks {
            let status = check.status.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0)
            output +=
                "\(status)  \(check.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(check.detail)\n"
            if let fix = check.fix, check.status != .ok {
                output += String(repeating: " ", count: 6 + width + 2) + "fix: \(fix)\n"
            }
        }
        return output
    }
}
