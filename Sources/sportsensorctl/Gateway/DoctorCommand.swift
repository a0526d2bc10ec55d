// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLETransport
import ControlProtocol
import Foundation
import SessionStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sportsensorctl doctor`: checks everything a session on real hardware needs, each with the fix.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this machine for what sportsensord needs; each problem comes with its fix.",
        discussion: """
            Checks kernel Bluetooth support, rfkill, adapters and their LE settings, capabilities, bluetoothd and \
            whether it discovers, competing scanners (hcitool, ...), the systemd unit, the control socket's \
            permissions, the daemon with its adapters' link budgets, and the health of its store. Works without the \
            daemon. Exits 1 when a check fails.
            """)

    @Option(help: "The state directory to look at when the daemon does not answer (default as the daemon's).")
    var stateDir: String?

    @OptionGroup var client: ClientOptions

    func run() async throws {
        let checks = await DoctorProbe.run(endpoint: client.endpoint(), stateDirectory: stateDir)
        client.output(checks, DoctorChecks.report)
        if checks.contains(where: { $0.status == .fail }) { throw ExitCode(1) }
    }
}

/// The doctor's observations of this machine, fed to `DoctorChecks`.
enum DoctorProbe {
    /// Observes and checks, in the order a person fixes things.
    static func run(endpoint: ControlEndpoint, stateDirectory: String?) async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let listing: Result<[HCIAdapter], TransportError>
        do throws(TransportError) {
            listing = .success(try await HCIAdapter.listOnDedicatedThread())
        } catch {
            listing = .failure(error)
        }
        let adapterError: TransportError? =
            if case .failure(let error) = listing { error } else { nil }
        checks.append(DoctorChecks.kernel(protocols: readText("/proc/net/protocols"), adapterError: adapterError))
        checks.append(DoctorChecks.rfkill(radioSwitches()))
        checks.append(DoctorChecks.adapters(listing))
        if let lowEnergy = await lowEnergy(listing) { checks.append(lowEnergy) }

        let processes = processList()
        let daemon = processes.first { $0.name == "sportsensord" }.flatMap { process in
            readText("/proc/\(process.pid)/status").flatMap(DoctorChecks.effectiveCapabilityMask(status:)).map {
                (pid: process.pid, mask: $0)
            }
        }
        let own = readText("/proc/self/status").flatMap(DoctorChecks.effectiveCapabilityMask(status:))
        checks.append(DoctorChecks.capabilities(daemon: daemon, own: own))
        let bluetoothd = processes.first { $0.name == "bluetoothd" }?.pid
        let bluetoothUnit = bluetoothd == nil ? try? await unitProperties("bluetooth.service")?.get() : nil
        checks.append(DoctorChecks.bluetoothd(pid: bluetoothd, unit: bluetoothUnit))
        let bluetoothdRunning = bluetoothd != nil || bluetoothUnit?["ActiveState"] == "active"
        var discoveries: [(name: String, probe: DoctorChecks.DiscoveryProbe)] = []
        if bluetoothdRunning, case .success(let adapters) = listing {
            for adapter in adapters { discoveries.append((adapter.name, await discovery(of: adapter))) }
        }
        checks.append(DoctorChecks.discovery(bluetoothdRunning: bluetoothdRunning, adapters: discoveries))
        checks.append(DoctorChecks.competingScanners(processes: processes))
        checks.append(DoctorChecks.unit(await unitProbe()))

        if case .unixSocket(let path) = endpoint {
            checks.append(DoctorChecks.controlSocket(path: path, probe: socketProbe(path)))
        }
        let answer: Result<GatewayStatus, ClientError>
        let client = ControlClient(endpoint: endpoint, requestTimeout: 10)
        do throws(ClientError) {
            answer = .success(try await client.get(ControlRoute.status.request()))
        } catch {
            answer = .failure(error)
        }
        // The daemon's own connection to the central PostgreSQL: it runs inside the unit's sandbox
        // (IPAddressAllow), which is what decides whether it gets through.
        let replication: ReplicationStatusInfo? =
            (try? answer.get()) == nil ? nil : try? await client.get(ControlRoute.replication.request())
        await client.shutdown()
        checks.append(DoctorChecks.daemon(answer))
        let status = try? answer.get()
        if let links = DoctorChecks.links(status) { checks.append(links) }
        if let replication = DoctorChecks.replication(replication) { checks.append(replication) }
        let directory = StateDirectory(path: GatewayPaths().stateDirectory(option: stateDirectory).path)
        checks.append(
            DoctorChecks.store(
                status: status, databasePath: directory.databasePath, file: await storeProbe(directory)))
        return checks
    }

    /// A small text file's contents (procfs files report size 0, so read until the end).
    static func readText(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Every process's pid and command name, from `/proc/PID/comm`.
    static func processList() -> [(pid: Int, name: String)] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry in
            guard let pid = Int(entry), let comm = readText("/proc/\(entry)/comm") else { return nil }
            return (pid: pid, name: comm.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        .sorted { $0.pid < $1.pid }
    }

    /// `stat` and `access(W_OK)` on the control socket.
    static func socketProbe(_ path: String) -> DoctorChecks.SocketProbe {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { return .notASocket }
        let mode = UInt32(info.st_mode)
        return access(path, R_OK | W_OK) == 0 ? .usable(mode: mode) : .noAccess(mode: mode)
    }

    /// Whether the database file is there and starts like SQLite, read-only.
    static func storeProbe(_ directory: StateDirectory) async -> DoctorChecks.StoreFileProbe {
        let path = directory.databasePath
        guard FileManager.default.fileExists(atPath: path) else { return .missing }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .unreadable(String(cString: strerror(errno)))
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        guard header == Data("SQLite format 3\0".utf8) else { return .notSQLite }
        var size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        do throws(StoreError) {
            // Read-only: doctor changes nothing, and may run beside the daemon.
            let store = try SessionStore.openReadOnly(at: directory)
            defer { try? store.close() }
            try await store.quickCheck()
            // Recorded samples live in chunk files beside the database.
            size += Int(store.segmentFileUsage().bytes)
        } catch {
            return error.code == .corrupt ? .damaged(error.message) : .unreadable(error.message)
        }
        return .sqlite(bytes: size)
    }
}
