// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import Foundation
import Testing

@testable import sportsensorctl

@Suite("doctor checks: rfkill, LE, bluetoothd and its discovery")
struct DoctorBluetoothChecksTests {
    typealias Radio = DoctorChecks.RadioSwitch

    static func radio(
        _ name: String, _ type: String = "bluetooth", soft: String = "0\n", hard: String = "0\n"
    )
        -> Radio
    {
        Radio(name: name + "\n", type: type + "\n", soft: soft, hard: hard)!
    }

    @Test("rfkill switches from sysfs texts: a missing or odd attribute is no switch")
    func radioSwitches() {
        let radio = Radio(name: "hci0\n", type: "bluetooth\n", soft: "1\n", hard: "0\n")
        #expect(radio?.name == "hci0" && radio?.type == "bluetooth" && radio?.softBlocked == true)
        #expect(radio?.hardBlocked == false)
        #expect(Radio(name: "hci0", type: "bluetooth", soft: nil, hard: "0") == nil)
        #expect(Radio(name: "hci0", type: "bluetooth", soft: "2", hard: "0") == nil)
    }

    @Test("the real rfkill probe on a sysfs-like tree: two switches, one incomplete, no tree")
    func radioSwitchProbe() throws {
        let root = FileManager.default.temporaryDirectory.path + "/rfkill-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = [
            "rfkill0": ["name": "phy0\n", "type": "wlan\n", "soft": "0\n", "hard": "0\n"],
            "rfkill1": ["name": "hci0\n", "type": "bluetooth\n", "soft": "1\n", "hard": "0\n"],
            "rfkill2": ["name": "hci1\n", "type": "bluetooth\n"],
        ]
        for (entry, attributes) in files {
            try FileManager.default.createDirectory(atPath: "\(root)/\(entry)", withIntermediateDirectories: true)
            for (file, text) in attributes {
                _ = FileManager.default.createFile(atPath: "\(root)/\(entry)/\(file)", contents: Data(text.utf8))
            }
        }
        let switches = try #require(DoctorProbe.radioSwitches(root: root))
        #expect(switches.map(\.name) == ["phy0", "hci0"])
        #expect(DoctorChecks.rfkill(switches).status == .fail)
        #expect(DoctorProbe.radioSwitches(root: root + "/none") == nil)
    }

    @Test("rfkill: no rfkill, no Bluetooth switch, unblocked OK; soft or hard block FAIL with the fix")
    func rfkill() {
        #expect(DoctorChecks.rfkill(nil).status == .ok)
        #expect(DoctorChecks.rfkill(nil).detail == "the kernel has no rfkill switches")
        let wifiOnly = DoctorChecks.rfkill([Self.radio("phy0", "wlan", soft: "1")])
        #expect(wifiOnly.status == .ok && wifiOnly.detail == "no Bluetooth radio has an rfkill switch")
        let fine = DoctorChecks.rfkill([Self.radio("hci0"), Self.radio("hci1")])
        #expect(fine.status == .ok && fine.detail == "hci0, hci1 not blocked")
        let soft = DoctorChecks.rfkill([Self.radio("hci0", soft: "1"), Self.radio("hci1")])
        #expect(soft.status == .fail && soft.detail == "soft-blocked: hci0")
        #expect(soft.fix?.contains("`sudo rfkill unblock bluetooth`") == true)
        let hard = DoctorChecks.rfkill([Self.radio("hci0", hard: "1"), Self.radio("hci1", soft: "1")])
        #expect(hard.status == .fail && hard.detail == "hard-blocked: hci0; soft-blocked: hci1")
        #expect(hard.fix?.contains("hardware switch") == true && hard.fix?.contains("rfkill unblock") == true)
    }

    static let address = BluetoothAddress(string: "00:1A:7D:DA:71:13")!
    static let hci0 = HCIAdapter(index: 0, name: "hci0", address: address, isUp: true)
    static let hci1 = HCIAdapter(index: 1, name: "hci1", address: address, isUp: true)

    static func info(supported: MgmtSettings, current: MgmtSettings, version: UInt8 = 9) -> MgmtControllerQuery.Answer {
        .success(
            MgmtControllerInfo(
                address: address, bluetoothVersion: version, manufacturer: 10, supportedSettings: supported,
                currentSettings: current))
    }

    @Test("LE: on everywhere OK; off FAIL with btmgmt le on; unsupported FAIL; unreadable WARN; no adapter, no line")
    func lowEnergy() {
        let on = Self.info(supported: [.powered, .lowEnergy, .bredr], current: [.powered, .lowEnergy])
        let off = Self.info(supported: [.powered, .lowEnergy, .bredr], current: [.powered, .bredr], version: 12)
        let classic = Self.info(supported: [.powered, .bredr], current: [.powered, .bredr], version: 4)
        #expect(DoctorChecks.lowEnergy(adapters: [], information: [:], openError: nil) == nil)

        let good = DoctorChecks.lowEnergy(adapters: [Self.hci0], information: [0: on], openError: nil)
        #expect(good?.status == .ok && good?.detail == "hci0 LE on (Bluetooth 5.0)")

        let disabled = DoctorChecks.lowEnergy(
            adapters: [Self.hci0, Self.hci1], information: [0: on, 1: off], openError: nil)
        #expect(disabled?.status == .fail)
        #expect(disabled?.detail == "hci0 LE on (Bluetooth 5.0), hci1 LE off (Bluetooth 5.3)")
        #expect(disabled?.fix == "`sudo btmgmt --index 1 le on`")

        let old = DoctorChecks.lowEnergy(adapters: [Self.hci0], information: [0: classic], openError: nil)
        #expect(old?.status == .fail && old?.detail == "hci0 no LE")
        #expect(old?.fix?.contains("Bluetooth 4.0 or later adapter") == true)

        let refused = TransportError(code: .permissionDenied, message: "hci1: needs CAP_NET_ADMIN")
        let partly = DoctorChecks.lowEnergy(
            adapters: [Self.hci0, Self.hci1], information: [0: on, 1: .failure(refused)], openError: nil)
        #expect(partly?.status == .warn && partly?.detail == "hci0 LE on (Bluetooth 5.0), hci1 unknown")
        #expect(partly?.fix?.contains("sudo sportsensorctl doctor") == true)

        let oldKernel = TransportError(code: .permissionDenied, message: "bind: not permitted")
        let closed = DoctorChecks.lowEnergy(adapters: [Self.hci0], information: nil, openError: oldKernel)
        #expect(
            closed?.status == .warn && closed?.detail == "cannot read the adapters' LE settings: bind: not permitted")
        #expect(closed?.fix?.contains("sudo btmgmt info") == true)
    }

    @Test("Bluetooth version names: 4.0 up, unknown numbers none")
    func versionNames() {
        #expect(DoctorChecks.bluetoothVersionName(6) == "4.0")
        #expect(DoctorChecks.bluetoothVersionName(13) == "5.4")
        #expect(DoctorChecks.bluetoothVersionName(3) == nil)
    }

    @Test("bluetoothd: its process, else its unit; a failed unit warns, none running is fine")
    func bluetoothd() {
        let running = DoctorChecks.bluetoothd(pid: 455, unit: nil)
        #expect(running.status == .ok && running.detail.hasPrefix("running (pid 455)"))
        let hidden = DoctorChecks.bluetoothd(pid: nil, unit: ["ActiveState": "active", "SubState": "running"])
        #expect(hidden.status == .ok && hidden.detail.hasPrefix("bluetooth.service is active"))
        let failed = DoctorChecks.bluetoothd(pid: nil, unit: ["ActiveState": "failed", "Result": "exit-code"])
        #expect(failed.status == .warn && failed.detail == "bluetooth.service failed (exit-code)")
        #expect(failed.fix?.contains("journalctl -u bluetooth -e") == true)
        let absent = DoctorChecks.bluetoothd(pid: nil, unit: ["ActiveState": "inactive"])
        #expect(absent.status == .ok && absent.detail.hasPrefix("not running"))
        #expect(DoctorChecks.bluetoothd(pid: nil, unit: nil).status == .ok)
    }

    @Test("discovery: idle OK; bluetoothd discovering WARN with scan off; unknown WARN naming the fix")
    func discovery() {
        let off = DoctorChecks.discovery(bluetoothdRunning: false, adapters: [])
        #expect(off.status == .ok && off.detail == "bluetoothd is not running, so it runs no discovery")
        let idle = DoctorChecks.discovery(bluetoothdRunning: true, adapters: [("hci0", .idle), ("hci1", .idle)])
        #expect(idle.status == .ok && idle.detail == "bluetoothd is not discovering: hci0 idle, hci1 idle")
        let busy = DoctorChecks.discovery(
            bluetoothdRunning: true, adapters: [("hci0", .discovering), ("hci1", .unknown("busctl: timed out"))])
        #expect(busy.status == .warn)
        #expect(busy.detail == "bluetoothd discovers on hci0 for another program: hci0 discovering, hci1 unknown")
        #expect(busy.fix?.contains("`bluetoothctl scan off`") == true)
        let denied = DoctorChecks.discovery(
            bluetoothdRunning: true,
            adapters: [("hci0", .unknown("busctl: Failed to get property Discovering: Access denied"))])
        #expect(denied.status == .warn && denied.fix?.contains("`bluetooth` group") == true)
        let missing = DoctorChecks.discovery(
            bluetoothdRunning: true, adapters: [("hci0", .noTool)])
        #expect(missing.status == .warn && missing.fix?.contains("install busctl") == true)
        #expect(missing.detail.hasSuffix("(neither busctl nor bluetoothctl is installed)"))
        let unknownObject = DoctorChecks.discovery(
            bluetoothdRunning: true,
            adapters: [
                ("hci1", .unknown("busctl: Failed to get property Discovering: Unknown object '/org/bluez/hci1'."))
            ])
        #expect(unknownObject.status == .warn && unknownObject.fix?.contains("`bluetoothctl show`") == true)
    }

    @Test("busctl and bluetoothctl output parsed from fixtures")
    func toolOutputs() {
        #expect(DoctorChecks.busctlBoolean("b true\n") == true)
        #expect(DoctorChecks.busctlBoolean("b false\n") == false)
        #expect(DoctorChecks.busctlBoolean("s \"hci0\"\n") == nil)
        #expect(DoctorChecks.busctlBoolean("") == nil)
        let show = """
            Controller 00:1A:7D:DA:71:13 (public)
            \tName: raspberrypi
            \tAlias: raspberrypi
            \tClass: 0x00000000
            \tPowered: yes
            \tDiscoverable: no
            \tPairable: yes
            \tUUID: Generic Attribute Profile (00001801-0000-1000-8000-00805f9b34fb)
            \tModalias: usb:v1D6Bp0246d0542
            \tDiscovering: yes
            \tRoles: central
            \tRoles: peripheral
            Advertising Features:
            \tActiveInstances: 0x00 (0)
            """
        #expect(DoctorChecks.bluetoothctlDiscovering(show) == true)
        #expect(
            DoctorChecks.bluetoothctlDiscovering(
                show.replacingOccurrences(of: "Discovering: yes", with: "Discovering: no")) == false)
        #expect(DoctorChecks.bluetoothctlDiscovering("Waiting to connect to bluetoothd...") == nil)
        #expect(DoctorChecks.bluetoothctlDiscovering("Controller 00:1A:7D:DA:71:14 not available\n") == nil)
    }

    @Test("a tool's run to a discovery probe: its answer, else its first error line, a timeout or its exit")
    func discoveryProbes() {
        let busctl = DoctorChecks.busctlBoolean
        func run(_ status: Int32, _ output: String, _ error: String = "", timedOut: Bool = false) -> ToolOutput {
            ToolOutput(status: status, output: output, error: error, timedOut: timedOut)
        }
        #expect(DoctorChecks.discoveryProbe("busctl", run(0, "b true\n"), parse: busctl) == .discovering)
        #expect(DoctorChecks.discoveryProbe("busctl", run(0, "b false\n"), parse: busctl) == .idle)
        // Captured from busctl 252 on a machine without a system bus.
        let noBus = run(1, "", "Failed to connect to bus: No such file or directory\n")
        #expect(
            DoctorChecks.discoveryProbe("busctl", noBus, parse: busctl)
                == .unknown("busctl: Failed to connect to bus: No such file or directory"))
        #expect(
            DoctorChecks.discoveryProbe(
                "bluetoothctl", run(15, "Waiting to connect to bluetoothd...", timedOut: true),
                parse: DoctorChecks.bluetoothctlDiscovering)
                == .unknown("bluetoothctl: it did not answer in time"))
        #expect(DoctorChecks.discoveryProbe("busctl", run(1, ""), parse: busctl) == .unknown("busctl: exit status 1"))
    }

    @Test("the tool runner: output, error and status; killed after its timeout; a missing tool is nil")
    func toolRunner() async throws {
        let done = try #require(await DoctorProbe.run("sh", ["-c", "echo out; echo err >&2; exit 3"]))
        #expect(done == ToolOutput(status: 3, output: "out\n", error: "err\n", timedOut: false))
        // Far apart on purpose: the sleep outlasts any stall of a busy machine.
        let hung = try #require(await DoctorProbe.run("sleep", ["600"], timeout: .milliseconds(100)))
        #expect(hung.timedOut && hung.failure == "it did not answer in time")
        #expect(await DoctorProbe.run("sportsensor-no-such-tool", []) == nil)
    }
}
