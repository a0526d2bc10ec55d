// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import Replication
import SDUSensor
import SessionStore
import StoreFormats
import Testing

/// Raw samples arrive exactly as stored: every index, time and axis, extremes included.
extension CentralDatabaseTests {
    @Test("every sample arrives with its index, time and counts (extremes, negatives), once, a chunk per row")
    func sampleValues() async throws {
        try await Self.withDatabase { cluster, url in
            try await Self.withStore { store in
                let identity = try await store.enableReplication(gatewayID: "hall-a", samples: true)
                let extremes: [Int16] = [.min, -1, 0, 1, .max]
                let samples = (0..<700).map { (index: Int) -> IndexedSample in
                    let raw = RawAcceleration(
                        x: extremes[index % 5], y: Int16(truncatingIfNeeded: index * 97), z: -Int16(index))
                    return IndexedSample(index: Int64(index) + 5_000_000_000, t: Double(index) / 400, raw: raw)
                }
                let session = try await store.importSession(
                    NewSession(settings: DetectionSettings(profile: .tableTennis)), samples: samples, events: [],
                    chunkLength: 256)
                let connection = try await CentralConnection.open(
                    url, gatewayID: "hall-a", instanceID: identity.instanceID, logger: Self.logger)
                defer { Task { try? await connection.close() } }
                try await Self.drain(store, CentralWriter(gatewayID: "hall-a"), connection)

                let stored = try await store.samples(of: session.id)
                let local = stored.map {
                    "\($0.index)|\(Int64(($0.t * 1e6).rounded()))|\($0.raw.x)|\($0.raw.y)|\($0.raw.z)"
                }
                let central = try await cluster.psql(
                    """
                    SELECT sample_index || '|' || round(t * 1e6)::bigint || '|' || x || '|' || y || '|' || z FROM sportsensor.samples
                    WHERE gateway_id = 'hall-a' ORDER BY sample_index
                    """, database: "club")
                #expect(stored.count == 700)
                #expect(central == local)
                let chunks = try await cluster.psql("SELECT count(*) FROM sportsensor.sample_chunks", database: "club")
                #expect(chunks == ["3"])
            }
        }
    }
}
