// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import Testing

@testable import sportsensorctl

@Suite("doctor checks: the systemd unit and the daemon's link budgets")
struct DoctorServiceChecksTests {
    static func unit(_ output: String) -> DoctorCheck {
        DoctorChecks.unit(.properties(DoctorChecks.systemdProperties(output)))
    }

    @Test("systemctl show output: key=value lines, values with =, other lines skipped")
    func properties() {
        let output = "ActiveState=active\nSubState=running\nStatusText=a=b\n\nnoise\n"
        #expect(
            DoctorChecks.systemdProperties(output) == [
                "ActiveState": "active", "SubState": "running", "StatusText": "a=b",
            ])
    }

    @Test("unit: running OK, recovered restarts WARN, failed / auto-restart / stopped FAIL with the fix")
    func unitStates() {
        let running = Self.unit("NRestarts=0\nResult=success\nLoadState=loaded\nActiveState=active\nSubState=running\n")
        #expect(running.status == .ok && running.detail == "sportsensord.service active (running)")

        let recovered = Self.unit(
            "LoadState=loaded\nActiveState=active\nSubState=running\nNRestarts=3\nResult=success\n")
        #expect(recovered.status == .warn)
        #expect(recovered.detail == "sportsensord.service active (running), restarted 3 times after failures")
        #expect(recovered.fix?.contains("journalctl -u sportsensord -e") == true)

        let failed = Self.unit("LoadState=loaded\nActiveState=failed\nSubState=failed\nNRestarts=5\nResult=exit-code\n")
        #expect(failed.status == .fail && failed.detail == "sportsensord.service failed (failed), result exit-code")
        #expect(failed.fix?.contains("journalctl -u sportsensord -e") == true)

        let restarting = Self.unit(
            "LoadState=loaded\nActiveState=activating\nSubState=auto-restart\nNRestarts=2\nResult=signal\n")
        #expect(restarting.status == .fail)
        #expect(restarting.detail == "sportsensord.service is restarting after a failure (2 restarts, result signal)")
        #expect(restarting.fix?.contains("journalctl -u sportsensord -e") == true)

        let stopped = Self.unit("LoadState=loaded\nActiveState=inactive\nSubState=dead\nNRestarts=0\nResult=success\n")
        #expect(stopped.status == .fail && stopped.fix?.contains("systemctl enable --now sportsensord") == true)

        let starting = Self.unit("LoadState=loaded\nActiveState=activating\nSubState=start\nNRestarts=0\n")
        #expect(starting.status == .warn && starting.detail == "sportsensord.service is activating (start)")

        let absent = Self.unit("LoadState=not-found\nActiveState=inactive\nSubState=dead\nNRestarts=0\n")
        #expect(absent.status == .warn && absent.fix?.contains("make install") == true)
    }

    @Test("unit: not under systemd is OK; systemctl that cannot answer warns")
    func unitWithoutSystemd() {
        let none = DoctorChecks.unit(.notSystemd)
        #expect(none.status == .ok && none.detail.hasPrefix("not under systemd"))
        let unknown = DoctorChecks.unit(.unknown("systemctl is not installed"))
        #expect(unknown.status == .warn && unknown.detail.hasSuffix("systemctl is not installed"))
    }

    static func status(adapters: [AdapterInfo], waiting: Int) -> GatewayStatus {
        GatewayStatus(
            version: "0.1.0", uptimeSeconds: 60, stateDirectory: "/var/lib/sportsensord", storeHealthy: true,
            adapters: adapters, sensorsPaired: 12, sensorsConnected: 10, liveSessions: 10,
            sensorsWaitingForSlot: waiting)
    }

    @Test("links: per adapter budget and links; sensors waiting for a slot WARN with the fix; no daemon, no line")
    func links() {
        #expect(DoctorChecks.links(nil) == nil)
        let hci0 = AdapterInfo(
            name: "hci0", address: "00:1A:7D:DA:71:13", up: true, linkBudget: 5,
            sensors: ["FC:97:8B:75:10:AB", "FC:97:8B:75:10:AC", "FC:97:8B:75:10:AD"])
        let hci1 = AdapterInfo(name: "hci1", address: "00:1A:7D:DA:71:14", up: true, linkBudget: 7, sensors: [])
        let fine = DoctorChecks.links(Self.status(adapters: [hci0, hci1], waiting: 0))
        #expect(fine?.status == .ok && fine?.detail == "hci0 up 3/5 links, hci1 up 0/7 links")

        let full = DoctorChecks.links(Self.status(adapters: [hci0], waiting: 2))
        #expect(full?.status == .warn)
        #expect(full?.detail == "hci0 up 3/5 links; 2 sensors waiting for a free slot (no-slot)")
        #expect(full?.fix?.contains("add a second adapter or raise [bluetooth] link_budget") == true)

        var down = hci1
        down.up = false
        let powered = DoctorChecks.links(Self.status(adapters: [hci0, down], waiting: 0))
        #expect(powered?.status == .warn && powered?.detail == "hci0 up 3/5 links, hci1 down 0/7 links")

        let virtual = DoctorChecks.links(Self.status(adapters: [], waiting: 0))
        #expect(virtual?.status == .ok && virtual?.detail == "the daemon uses no Bluetooth adapter")
    }
}
