// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import Detection
import Foundation
import Logging
import Replication
import SDUSensor
import SessionStore
import StoreFormats

/// `bench-replication --postgres-url URL`: catch-up throughput of a backlog. Fills a new store
/// with `--sessions` finished sessions of `--samples-per-session` samples (and their events),
/// turns replication on with samples (which queues the whole store, as after a long outage), then
/// runs the daemon's `ReplicationService` until the outbox is empty, and reports samples per
/// second from the first batch to the last. `make bench-replication` makes the PostgreSQL.
struct ReplicationBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-replication",
        abstract: "Measure how fast a backlog of samples replicates into PostgreSQL (Docs/PERFORMANCE.md).")

    @Option(
        help: "The PostgreSQL to replicate into (an empty database: the benchmark writes gateway 'bench-<random>').")
    var postgresURL: String

    @Option(help: "Finished sessions in the backlog.")
    var sessions: Int = 20

    @Option(help: "Samples per session.")
    var samplesPerSession: Int = 100_000

    @Option(help: "Where to make the store (a new directory is made inside).")
    var directory: String = FileManager.default.temporaryDirectory.path

    func validate() throws {
        guard (1...10_000).contains(sessions), (1...10_000_000).contains(samplesPerSession) else {
            throw ValidationError("give 1–10000 sessions of 1–10000000 samples")
        }
    }

    func run() async throws {
        let url = try PostgresURL(parsing: postgresURL)
        let path = directory + "/bench-replication-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try SessionStore.open(at: StateDirectory(path: path))
        defer { try? store.close() }
        var samples: [IndexedSample] = []
        samples.reserveCapacity(samplesPerSession)
        for index in 0..<samplesPerSession {
            let x = Int16(index % 2000)
            let y = -Int16(index % 700)
            let z = 16_384 - Int16(index % 300)
            let t = StoreTime.microseconds(Double(index) / 100)
            samples.append(IndexedSample(index: Int64(index), t: t, raw: RawAcceleration(x: x, y: y, z: z)))
        }
        let events = (0..<(samplesPerSession / 100)).map { EventRecord(type: "hit", t: Double($0), peakG: 3) }
        for _ in 0..<sessions {
            _ = try await store.importSession(
                NewSession(settings: DetectionSettings(profile: .tableTennis)), samples: samples, events: events)
        }
        let total = sessions * samplesPerSession
        let gatewayID = "bench-" + UUID().uuidString.prefix(8).lowercased()
        var logger = Logger(label: "bench-replication")
        logger.logLevel = .warning
        let settings = ReplicationSettings(url: url, gatewayID: gatewayID, samples: true, maxOutboxItems: 100_000_000)
        let service = ReplicationService(
            settings: settings, store: store, clock: ContinuousClock(), pollInterval: .milliseconds(5), logger: logger)
        let started = ContinuousClock.now
        let task = Task { try await service.run() }
        var finished: ContinuousClock.Instant?
        while finished == nil {
            try await Task.sleep(for: .milliseconds(20))
            let status = service.status
            if let error = status.lastError, status.sentSamples == 0, status.state != .connecting {
                task.cancel()
                throw HarnessError(.replicationFailed, "replication into the throw-away PostgreSQL failed: \(error)")
            }
            if status.sentSamples >= Int64(total), try await store.outboxStatus().count == 0 {
                finished = ContinuousClock.now
            }
        }
        task.cancel()
        _ = try? await task.value
        let seconds = (finished! - started).inSeconds
        print("backlog:    \(sessions) sessions × \(samplesPerSession) samples = \(total) samples")
        print("replicated: \(total) samples in \(String(format: "%.2f", seconds)) s (connect and schema included)")
        print("throughput: \(String(format: "%.0f", Double(total) / seconds)) samples/s")
    }
}
