// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import ControlProtocol
import Foundation
import GatewayTesting
import SessionStore
import Testing

@testable import sportsensorctl

@Suite("doctor checks")
struct DoctorChecksTests {
    static let noBluetooth = TransportError(code: .noBluetoothSupport, message: "no Bluetooth")

    @Test("CapEff hex masks: CAP_NET_ADMIN is bit 12, CAP_NET_RAW bit 13; junk is not a mask")
    func capabilityMasks() {
        #expect(DoctorChecks.capabilities(hexMask: "0000000000003000") == [12, 13])
        #expect(DoctorChecks.capabilities(hexMask: "0000000000002000") == [13])
        #expect(DoctorChecks.capabilities(hexMask: "0000000000000000") == [])
        #expect(DoctorChecks.capabilities(hexMask: "000001ffffffffff")?.count == 41)
        #expect(DoctorChecks.capabilities(hexMask: "zz") == nil)
        #expect(DoctorChecks.capabilities(hexMask: "") == nil)
        #expect(DoctorChecks.capabilities(hexMask: "10000000000000000") == nil)
        let status =
            "Name:\tsportsensord\nCapInh:\t0000000000000000\nCapEff:\t0000000000003000\nCapBnd:\t0000000000003000\n"
        #expect(DoctorChecks.effectiveCapabilityMask(status: status) == "0000000000003000")
        #expect(DoctorChecks.effectiveCapabilityMask(status: "Name:\tx\n") == nil)
    }

    @Test("capabilities: the running daemon's are checked; without a daemon this shell's only warn")
    func capabilities() {
        let good = DoctorChecks.capabilities(daemon: (pid: 42, mask: "0000000000003000"), own: nil)
        #expect(good.status == .ok)
        #expect(good.detail == "sportsensord (pid 42) has CAP_NET_RAW and CAP_NET_ADMIN")
        let rawOnly = DoctorChecks.capabilities(daemon: (pid: 42, mask: "0000000000002000"), own: nil)
        #expect(rawOnly.status == .fail)
        #expect(rawOnly.detail == "sportsensord (pid 42) lacks CAP_NET_ADMIN")
        #expect(rawOnly.fix?.contains("setcap cap_net_raw,cap_net_admin+ep") == true)
        let none = DoctorChecks.capabilities(daemon: nil, own: "0000000000000000")
        #expect(none.status == .warn)
        #expect(none.detail == "sportsensord is not running, and this shell lacks CAP_NET_RAW and CAP_NET_ADMIN")
        #expect(DoctorChecks.capabilities(daemon: nil, own: "000001ffffffffff").status == .ok)
    }

    @Test("kernel: an HCI socket that opens is enough; without one, /proc/net/protocols tells why")
    func kernel() {
        let protocols = """
            protocol  size sockets  memory press maxhdr  slab module     cl co di
            L2CAP      816      2      -1   NI       0   no   bluetooth   n  n  n
            HCI        888      3      -1   NI       0   no   bluetooth   n  n  n
            """
        #expect(DoctorChecks.listsBluetooth(protocols))
        #expect(!DoctorChecks.listsBluetooth("protocol  size\nPACKET 1600\nUNIX 1024\n"))
        #expect(DoctorChecks.kernel(protocols: nil, adapterError: nil).status == .ok)
        let denied = TransportError(code: .permissionDenied, message: "denied")
        #expect(DoctorChecks.kernel(protocols: nil, adapterError: denied).status == .ok)
        let missing = DoctorChecks.kernel(protocols: "protocol\nUNIX\n", adapterError: Self.noBluetooth)
        #expect(missing.status == .fail)
        #expect(missing.fix?.contains("modprobe bluetooth") == true)
        let namespace = DoctorChecks.kernel(protocols: protocols, adapterError: Self.noBluetooth)
        #expect(namespace.status == .fail)
        #expect(namespace.fix?.contains("--net=host") == true)
    }

    @Test("adapters: none, one down (with the power-on command), all up, listing failed")
    func adapters() throws {
        let address = try #require(BluetoothAddress(string: "00:1A:7D:DA:71:13"))
        #expect(DoctorChecks.adapters(.success([])).status == .fail)
        let down = DoctorChecks.adapters(
            .success([
                HCIAdapter(index: 0, name: "hci0", address: address, isUp: true),
                HCIAdapter(index: 1, name: "hci1", address: address, isUp: false),
            ]))
        #expect(down.status == .fail)
        #expect(down.fix?.contains("`sudo btmgmt --index 1 power on`") == true)
        #expect(down.fix?.contains("--index 0") == false)
        let up = DoctorChecks.adapters(.success([HCIAdapter(index: 0, name: "hci0", address: address, isUp: true)]))
        #expect(up.status == .ok)
        #expect(up.detail == "hci0 00:1A:7D:DA:71:13 up")
        #expect(DoctorChecks.adapters(.failure(Self.noBluetooth)).status == .fail)
    }

    @Test("competing scanners: a scanner warns; bluetoothd is not one (the gateway shares the adapter with it)")
    func scanners() {
        let quiet = DoctorChecks.competingScanners(processes: [(pid: 1, name: "systemd"), (pid: 9, name: "sshd")])
        #expect(quiet.status == .ok)
        let bluez = DoctorChecks.competingScanners(processes: [
            (pid: 1, name: "systemd"), (pid: 300, name: "bluetoothd"), (pid: 302, name: "btmon"),
            (pid: 303, name: "bluetoothctl"), (pid: 304, name: "btmgmt"),
        ])
        #expect(bluez.status == .ok)
        #expect(bluez.detail == "no other scanner running")
        let lescan = DoctorChecks.competingScanners(processes: [
            (pid: 300, name: "bluetoothd"), (pid: 301, name: "hcitool"),
        ])
        #expect(lescan.status == .warn)
        #expect(lescan.detail == "running: hcitool (pid 301)")
        #expect(lescan.fix?.contains("quit it") == true)
    }

    @Test("control socket: missing, not a socket, no access (with the group fix), usable")
    func controlSocket() {
        let path = "/run/sportsensord/control.sock"
        #expect(DoctorChecks.controlSocket(path: path, probe: .missing).status == .fail)
        #expect(DoctorChecks.controlSocket(path: path, probe: .notASocket).status == .fail)
        let denied = DoctorChecks.controlSocket(path: path, probe: .noAccess(mode: 0o140660))
        #expect(denied.status == .fail)
        #expect(denied.detail == "/run/sportsensord/control.sock (mode 0660) is not writable for you")
        #expect(denied.fix?.contains("usermod -aG sportsensor") == true)
        #expect(DoctorChecks.controlSocket(path: path, probe: .usable(mode: 0o140660)).status == .ok)
    }

    @Test("the real socket probe on real files: missing, a regular file, a bound socket")
    func socketProbe() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/doctor-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(DoctorProbe.socketProbe(directory + "/none.sock") == .missing)
        _ = FileManager.default.createFile(atPath: directory + "/file", contents: Data("x".utf8))
        #expect(DoctorProbe.socketProbe(directory + "/file") == .notASocket)
        let server = try UnixSocketHTTPServer(path: directory + "/d.sock") { _ in .hangUp }
        defer { server.close() }
        guard case .usable = DoctorProbe.socketProbe(directory + "/d.sock") else {
            Issue.record("a bound socket this process created must be usable")
            return
        }
    }

    @Test("daemon and store: the daemon's word when it answers, else a read-only look at the file")
    func daemonAndStore() {
        let status = GatewayStatus(
            version: "0.1.0", uptimeSeconds: 3700, stateDirectory: "/var/lib/sportsensord", storeHealthy: false,
            adapters: [], sensorsPaired: 2, sensorsConnected: 1, liveSessions: 1)
        #expect(
            DoctorChecks.daemon(.success(status)).detail == "sportsensord 0.1.0, up 1h 01m, 2 sensors, 1 live sessions")
        let unreachable = ClientError.connecting(to: .unixSocket(path: "/x.sock"), errno: ENOENT, cause: nil)
        let daemon = DoctorChecks.daemon(.failure(unreachable))
        #expect(daemon.status == .fail)
        #expect(daemon.fix == "is the service running? `systemctl status sportsensord`")
        #expect(DoctorChecks.store(status: status, databasePath: "db", file: .missing).status == .fail)
        var healthy = status
        healthy.storeHealthy = true
        #expect(DoctorChecks.store(status: healthy, databasePath: "db", file: .notSQLite).status == .ok)
        #expect(DoctorChecks.store(status: nil, databasePath: "db", file: .missing).status == .warn)
        #expect(DoctorChecks.store(status: nil, databasePath: "db", file: .notSQLite).status == .fail)
        #expect(DoctorChecks.store(status: nil, databasePath: "db", file: .sqlite(bytes: 8192)).status == .ok)
    }

    @Test("the store probe: a sound store, a damaged one (quick_check), something else, missing")
    func storeProbe() async throws {
        let root = FileManager.default.temporaryDirectory.path + "/doctor-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sound = StateDirectory(path: root + "/sound")
        let damaged = StateDirectory(path: root + "/damaged")
        for directory in [sound, damaged] {
            let store = try SessionStore.open(at: directory)
            _ = try await store.addAthlete(name: "Ada")
            try await store.checkpoint()
            try store.close()
        }
        // Pages after the first (the schema) overwritten: the header still says SQLite.
        let handle = try #require(FileHandle(forUpdatingAtPath: damaged.databasePath))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 16384))
        try handle.close()
        let other = StateDirectory(path: root + "/other")
        try other.create()
        _ = FileManager.default.createFile(atPath: other.databasePath, contents: Data("hello".utf8))

        guard case .sqlite = await DoctorProbe.storeProbe(sound) else {
            Issue.record("a sound store should pass")
            return
        }
        let probe = await DoctorProbe.storeProbe(damaged)
        guard case .damaged(let findings) = probe else {
            Issue.record("expected damage, got \(probe)")
            return
        }
        let check = DoctorChecks.store(status: nil, databasePath: damaged.databasePath, file: probe)
        #expect(check.status == .fail)
        #expect(check.fix?.contains("restore the last backup") == true, "\(findings)")
        #expect(await DoctorProbe.storeProbe(other) == .notSQLite)
        #expect(await DoctorProbe.storeProbe(StateDirectory(path: root + "/none")) == .missing)
    }

    @Test("the report: one aligned line per check, the fix under every WARN and FAIL")
    func report() {
        let report = DoctorChecks.report([
            DoctorCheck(name: "kernel", status: .ok, detail: "fine", fix: nil),
            DoctorCheck(name: "adapters", status: .fail, detail: "none", fix: "plug one in"),
        ])
        #expect(report == "OK    kernel    fine\nFAIL  adapters  none\n                fix: plug one in\n")
    }
}

@Suite("doctor: replication")
struct DoctorReplicationChecksTests {
    static let target = "postgres://sportsensor:***@db:5432/club?sslmode=verify-full"

    @Test("no line without the daemon or without [replication]; OK when connected; WARN near the bound")
    func states() {
        #expect(DoctorChecks.replication(nil) == nil)
        #expect(DoctorChecks.replication(ReplicationStatusInfo(configured: false)) == nil)
        let ok = DoctorChecks.replication(
            ReplicationStatusInfo(
                configured: true, state: "replicating", target: Self.target, outboxItems: 3, outboxLimit: 100_000))
        #expect(ok?.status == .ok)
        #expect(ok?.detail.contains(Self.target) == true)
        let near = DoctorChecks.replication(
            ReplicationStatusInfo(
                configured: true, state: "replicating", target: Self.target, outboxItems: 90_000, outboxLimit: 100_000,
                alarm: true))
        #expect(near?.status == .warn)
    }

    @Test("a failing connection is FAIL with the daemon's error and its fix")
    func failing() {
        let check = DoctorChecks.replication(
            ReplicationStatusInfo(
                configured: true, state: "backing-off", target: Self.target, outboxItems: 1200,
                lastError: "cannot reach PostgreSQL at \(Self.target): check the server runs",
                lastErrorCode: "unreachable"))
        #expect(check?.status == .fail)
        #expect(check?.detail.contains("cannot reach PostgreSQL") == true)
        #expect(check?.fix?.contains("replication status") == true)
    }
}
