// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayConfig
import GatewayCore
import GatewayTesting
import SDUSensor
import SessionStore
import StoreFormats
import Testing

/// Downloads are made on the gateway's download executor, never on the cooperative pool that
/// serves the API: held there, thirty of them leave `status`, store reads and a session list
/// answering, and released they give every byte. (Latency under load is measured by the download
/// soak, not asserted here.)
@Suite("Gateway: downloads run on their own executor", .timeLimit(.minutes(5)))
struct DownloadExecutorTests {
    static let downloads = 30

    @Test(
        "30 held samples CSV downloads and an events download: status and store reads answer; released, each is whole"
    )
    func heldDownloads() async throws {
        let directory = NSTemporaryDirectory() + "downloads-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SessionStore.open(at: StateDirectory(path: directory))
        defer { try? store.close() }
        // Several store pages of samples (8 192-sample chunks, two a page).
        let samples = (0..<40_000).map { (index: Int) -> IndexedSample in
            let raw = RawAcceleration(x: Int16(index % 300), y: -Int16(index % 700), z: 16384)
            return IndexedSample(index: Int64(index), t: Double(index) / 100, raw: raw)
        }
        let events = (0..<2_100).map { EventRecord(type: "step", t: Double($0) / 5, cadenceSpm: 150) }
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .steps)), samples: samples, events: events)
        let held = HeldTaskExecutor()
        var dependencies = GatewayDependencies(
            store: store, stateDirectory: directory, configuration: GatewayConfiguration(), clock: ContinuousClock())
        dependencies.downloads = held
        let gateway = Gateway(dependencies: dependencies, metrics: GatewayMetrics())
        let running = Task { try await gateway.run() }
        await gateway.waitUntilStarted()

        let id = session.idText
        var readers: [Task<String, any Error>] = []
        for _ in 0..<Self.downloads {
            let stream = try await gateway.sessionSamplesCSV(id: id)
            readers.append(Task { try await stream.reduce(into: "") { $0 += $1 } })
        }
        let pages = try await gateway.sessionEventPages(id: id)
        let eventReader = Task { try await pages.reduce(into: [[EventRecord]]()) { $0.append($1) } }
        // Every download waits on its executor for its first piece...
        await held.waitUntilHolding(Self.downloads + 1)
        // ...while the API and the store answer.
        let status = try await gateway.status()
        #expect(status.storeHealthy)
        #expect(try await gateway.session(id: id).samples == samples.count)
        #expect(try await gateway.sessions(athlete: nil, sensor: nil, profile: nil, live: nil, limit: nil).count == 1)
        #expect(try await gateway.session(id: id).eventCounts["step"] == events.count)

        held.release()
        let expected =
            SampleCSV.header + "\n" + samples.map { SampleCSV.line($0.acceleration) + "\n" }.joined()
        for reader in readers { #expect(try await reader.value == expected) }
        let eventPages = try await eventReader.value
        #expect(eventPages.map { $0.count } == [1_024, 1_024, 52])
        #expect(eventPages.flatMap { $0 } == events)
        running.cancel()
        try? await running.value
    }
}
