// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a system tool printed and how it ended.
struct ToolOutput: Hashable, Sendable {
    /// Its exit status (the signal number when it was killed).
    var status: Int32
    /// Standard output.
    var output: String
    /// Standard error.
    var error: String
    /// True when doctor killed it for taking too long.
    var timedOut: Bool

    /// Why it gave no answer, for a detail line: its first line of standard error, or the exit.
    var failure: String {
        if timedOut { return "it did not answer in time" }
        let line = error.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.isEmpty ? "exit status \(status)" : line
    }
}

// The observations behind the bluetoothd, rfkill, LE and unit checks: files under /sys and /run,
// the mgmt socket, and `systemctl`, `busctl` and `bluetoothctl`, each bounded in time.
extension DoctorProbe {
    /// Where tools are looked for besides `$PATH`: a user's PATH often lacks the sbin directories.
    static let toolDirectories = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

    /// The executable named `name`, or nil when it is not installed.
    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").map(String.init) ?? []
        return (path + toolDirectories).map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Runs a tool with no input and the C locale, on its own thread, killing it after `timeout`
    /// (`bluetoothctl` waits forever for a bluetoothd that is not there). Nil when the tool is
    /// not installed or cannot start. Its output is a few KiB at most, well within a pipe's
    /// buffer, so it is read once the tool has ended.
    static func run(_ name: String, _ arguments: [String], timeout: Duration = .seconds(5)) async -> ToolOutput? {
        guard let executable = tool(name) else { return nil }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
                var environment = ProcessInfo.processInfo.environment
                environment["LC_ALL"] = "C"
                environment["SYSTEMD_PAGER"] = ""
                environment["SYSTEMD_COLORS"] = "0"
                process.environment = environment
                let output = Pipe()
                let error = Pipe()
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = output
                process.standardError = error
                let ended = DispatchSemaphore(value: 0)
                process.terminationHandler = { _ in ended.signal() }
                do {
                    try process.run()
                } catch {
                    continuation.resume(returning: nil)
                    return
                }
                let timedOut = ended.wait(timeout: .now() + seconds) == .timedOut
                if timedOut {
                    // SIGKILL, not Process.terminate()'s SIGTERM: a tool started by a parent that
                    // ignores SIGTERM inherits that, and would never end.
                    kill(process.processIdentifier, SIGKILL)
                    ended.wait()
                }
                let out = output.fileHandleForReading.readDataToEndOfFile()
                let err = error.fileHandleForReading.readDataToEndOfFile()
                continuation.resume(
                    returning: ToolOutput(
                        status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                        error: String(decoding: err, as: UTF8.self), timedOut: timedOut))
            }
            thread.name = "doctor-\(name)"
            thread.start()
        }
    }

    /// systemd's own test for being PID 1 (`sd_booted`): `/run/systemd/system` exists.
    static var isSystemdBooted: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: "/run/systemd/system", isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    /// `systemctl show UNIT -p ...`; nil without systemd or when systemctl fails (`failure` says why).
    static func unitProperties(_ unit: String) async -> Result<[String: String], UnitFailure>? {
        guard isSystemdBooted else { return nil }
        let property = DoctorChecks.unitProperties.joined(separator: ",")
        guard let result = await run("systemctl", ["show", unit, "--no-pager", "-p", property]) else {
            return .failure(UnitFailure(reason: "systemctl is not installed"))
        }
        guard result.status == 0, !result.timedOut else {
            return .failure(UnitFailure(reason: "`systemctl show \(unit)`: \(result.failure)"))
        }
        return .success(DoctorChecks.systemdProperties(result.output))
    }

    /// Why `systemctl show` gave nothing.
    struct UnitFailure: Error, Hashable {
        var reason: String
    }

    /// The `sportsensord` unit's state.
    static func unitProbe() async -> DoctorChecks.UnitProbe {
        switch await unitProperties("sportsensord.service") {
        case nil: .notSystemd
        case .failure(let failure): .unknown(failure.reason)
        case .success(let properties): .properties(properties)
        }
    }

    /// Every rfkill switch; nil when the kernel has none (no `/sys/class/rfkill`).
    static func radioSwitches(root: String = "/sys/class/rfkill") -> [DoctorChecks.RadioSwitch]? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else { return nil }
        return entries.sorted().compactMap { entry in
            let directory = "\(root)/\(entry)"
            return DoctorChecks.RadioSwitch(
                name: readText("\(directory)/name"), type: readText("\(directory)/type"),
                soft: readText("\(directory)/soft"), hard: readText("\(directory)/hard"))
        }
    }

    /// bluetoothd's `Discovering` property of one adapter: through `busctl` (systemd's D-Bus
    /// tool), else `bluetoothctl show ADDRESS`.
    static func discovery(of adapter: HCIAdapter) async -> DoctorChecks.DiscoveryProbe {
        let busctl = await run(
            "busctl",
            [
                "--system", "get-property", "org.bluez", "/org/bluez/\(adapter.name)", "org.bluez.Adapter1",
                "Discovering",
            ])
        if let busctl { return DoctorChecks.discoveryProbe("busctl", busctl, parse: DoctorChecks.busctlBoolean) }
        guard let bluetoothctl = await run("bluetoothctl", ["show", adapter.address.description]) else {
            return .noTool
        }
        return DoctorChecks.discoveryProbe("bluetoothctl", bluetoothctl, parse: DoctorChecks.bluetoothctlDiscovering)
    }

    /// The LE check from mgmt Read Controller Information of every adapter listed.
    static func lowEnergy(_ listing: Result<[HCIAdapter], TransportError>) async -> DoctorCheck? {
        guard case .success(let adapters) = listing, !adapters.isEmpty else { return nil }
        do throws(TransportError) {
            let information = try await MgmtControllerQuery.readInformation(indices: adapters.map(\.index))
            return DoctorChecks.lowEnergy(adapters: adapters, information: information, openError: nil)
        } catch {
            return DoctorChecks.lowEnergy(adapters: adapters, information: nil, openError: error)
        }
    }
}
