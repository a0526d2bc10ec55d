// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import SessionStore
import Testing
import VirtualSensor

/// A session whose samples a full disk kept out of the store: the recorder's memory bound drops
/// some, the stop cannot store the end, and the gateway stores it itself once space returns. The
/// event stream's counters say so while it lasts, and its "session ended" item counts the samples
/// not kept as the stored session does.
@Suite("Gateway: a retried end", .serialized, .timeLimit(.minutes(5)))
struct RetriedEndTests {
    @Test("the ended session the event stream carries after a retried end counts the samples dropped on the full disk")
    func endedEventCountsUnsaved() async throws {
        let temporary = NSTemporaryDirectory() + "retried-end-\(UUID().uuidString.prefix(8))"
        let disk = try await SmallFileSystem.mount(at: temporary + "/state", megabytes: 16)
        defer {
            disk.unmount()
            try? FileManager.default.removeItem(atPath: temporary)
        }
        // At most 1 500 samples wait in memory: past that, a full disk's samples are dropped and
        // counted. (So many that they do not fit in what is left of the tail segment's last page:
        // the end is neither saved nor spilled.)
        let bench = try GatewayBench(
            scripts: [.jumps], directory: disk.path, recorder: .init(maxBufferedSamples: 1_500, chunkLength: 256))
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        let events = try bench.gateway.events()
        // The ended session, and what each counters item said of the store before it.
        let ended = Task { () -> (SessionInfo, [Bool?])? in
            var degraded: [Bool?] = []
            for await event in events {
                if case .counters(let counters) = event.event { degraded.append(counters.storeDegraded) }
                if case .session(let info) = event.event, !info.isLive { return (info, degraded) }
            }
            return nil
        }

        let started = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1"))
        try await bench.drive(for: 2)
        try disk.fill("filler")
        // 20 s at 100 Hz on a full disk: 1 500 samples wait, the rest are dropped.
        try await bench.drive(for: 20)
        await GatewayBench.expectControlError(.unavailable) {
            try await bench.gateway.stopSession(id: started.id)
        }

        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        // The gateway retries the end every 2 s of its clock.
        let retried = try await bench.drive(step: 1, upTo: 20) {
            try await bench.gateway.session(id: started.id).endReason != nil
        }
        let info = retried ? await ended.value : nil
        let (published, degraded) = try #require(info, "the retried end is published")
        // The board's tile shows a session the store cannot save from these (Docs/DASHBOARD.md).
        #expect(degraded.first == false, "\(degraded)")
        #expect(degraded.contains(true), "the counters say while the store cannot take the rows: \(degraded)")
        #expect(degraded.allSatisfy { $0 != nil })
        let stored = try await bench.store.session(id: try #require(UUID(uuidString: started.id)))
        #expect(stored.unsavedSamples > 300, "seconds of samples were dropped: \(stored.unsavedSamples)")
        #expect(published.unsavedSamples == Int(stored.unsavedSamples))
        #expect(published.endReason == "stopped")
        #expect(published.storeDegraded == nil, "an ended session has no store state")
        #expect(try await bench.gateway.session(id: started.id).unsavedSamples == published.unsavedSamples)
        running.cancel()
        try? await running.value
    }
}
