// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEHarness
import BLETransport
import BLEWire
import NIOConcurrencyHelpers

/// `sportsensor-dev hci-scan`: what advertises near an adapter, SDU sensors first.
struct HCIScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hci-scan",
        abstract: "Scan on an adapter directly (without the daemon) and list advertisers, SDU sensors first.",
        discussion: """
            Runs an active LE scan on a raw HCI socket (no bluetoothd needed) for --seconds, then \
            prints one line per advertiser: address (public/random), name, last RSSI, \
            connectable, and "SDU" for SDU sensors. Needs CAP_NET_RAW and CAP_NET_ADMIN: run as \
            root, or `sudo setcap cap_net_raw,cap_net_admin+eip $(which sportsensor-dev)`. Exit \
            status 2 with the fix on standard error when the scan cannot run.
            """
    )

    @Option(help: "The adapter to scan with (hci0 or 0).")
    var hci: AdapterName

    @Option(help: "How long to scan, s.")
    var seconds = 5.0

    func validate() throws {
        guard seconds > 0, seconds <= 3600 else { throw ValidationError("--seconds must be within 0–3600") }
    }

    func run() async throws {
        let duration = Duration.milliseconds(Int(seconds * 1000))
        let index = hci.index
        do {
            let seen = try await runCancellingOnSignals {
                try await scanAdvertisers(adapterIndex: index, for: duration)
            }
            for line in ScanListing.lines(seen) { ConsoleLine.out(line) }
        } catch let error as TransportError {
            ConsoleLine.error("error: \(error)")
            throw ExitCode(2)
        }
    }
}

/// One advertiser as `scan` lists it.
struct ScannedAdvertiser: Hashable, Sendable {
    var address: BluetoothAddress
    var name: String?
    var rssi: Int8?
    var isConnectable: Bool
    var isSDUSensor: Bool
}

/// The listing `scan` prints.
enum ScanListing {
    /// SDU sensors first, then by address; one line each, or a line saying nothing was seen.
    static func lines(_ advertisers: [ScannedAdvertiser]) -> [String] {
        guard !advertisers.isEmpty else { return ["no advertisers seen"] }
        let ordered = advertisers.sorted { a, b in
            a.isSDUSensor != b.isSDUSensor ? a.isSDUSensor : a.address < b.address
        }
        return ordered.map { advertiser in
            var fields = ["\(advertiser.address) (\(advertiser.address.kind))"]
            fields.append(advertiser.name.map { "\"\($0)\"" } ?? "(no name)")
            fields.append(advertiser.rssi.map { "\($0) dBm" } ?? "RSSI ?")
            fields.append(advertiser.isConnectable ? "connectable" : "not connectable")
            if advertiser.isSDUSensor { fields.append("SDU") }
            return fields.joined(separator: "  ")
        }
    }
}

/// Scans adapter `index` for `duration`; the latest sighting of each address (a name seen once
/// is kept).
func scanAdvertisers(adapterIndex index: UInt16, for duration: Duration) async throws -> [ScannedAdvertiser] {
    let logger = quietLogger("sportsensor-dev.scan")
    return try await withThrowingTaskGroup(of: [ScannedAdvertiser]?.self) { group in
        let collected = ScanCollector()
        group.addTask {
            for try await discovery in LEScanner.scan(adapterIndex: index, logger: logger) {
                collected.add(
                    ScannedAdvertiser(
                        address: discovery.address, name: discovery.name, rssi: discovery.rssi,
                        isConnectable: discovery.isConnectable, isSDUSensor: discovery.isSDUSensor))
            }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: duration)
            return collected.all
        }
        while let result = try await group.next() {
            if let result {
                group.cancelAll()
                return result
            }
        }
        return collected.all
    }
}

/// Merges sightings by address, from the scan task.
final class ScanCollector: Sendable {
    private let seen = NIOLockedValueBox<[BluetoothAddress: ScannedAdvertiser]>([:])

    func add(_ advertiser: ScannedAdvertiser) {
        seen.withLockedValue { seen in
            var merged = advertiser
            if merged.name == nil { merged.name = seen[advertiser.address]?.name }
            merged.isSDUSensor = merged.isSDUSensor || (seen[advertiser.address]?.isSDUSensor ?? false)
            seen[advertiser.address] = merged
        }
    }

    var all: [ScannedAdvertiser] { seen.withLockedValue { Array($0.values) } }
}
