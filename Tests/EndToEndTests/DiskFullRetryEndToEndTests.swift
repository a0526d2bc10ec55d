// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import SessionStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A stop whose end the full disk can take nowhere: its reserve is gone (the test deletes the
/// spill reserve before filling the disk), so the rows are neither saved nor spilled. The daemon
/// keeps them, retries when space returns, and a SIGTERM before that exits with a failure.
@Suite("End to end: an end the disk could take nowhere", .serialized, .timeLimit(.minutes(5)))
struct DiskFullRetryEndToEndTests {
    static let oneSensor = "[virtual]\nsensors = 1\n"

    /// Starts a session on virtual-1, removes the spill reserve, fills the disk, waits until the
    /// session is degraded, and stops it: the stop fails. Returns the session id.
    static func unsavedStop(_ gateway: RunningGateway, state: String) async throws -> String {
        #expect(try await gateway.waitForLink("virtual-1"))
        let started = try await gateway.controlJSON(["start", "--sensor", "virtual-1", "--json"]) as? [String: Any]
        let id = try #require(started?["id"] as? String)
        try await Task.sleep(for: .seconds(2))
        let tail = state + "/sportsensord.sqlite-tail"
        for name in try FileManager.default.contentsOfDirectory(atPath: tail) where name.hasPrefix("spill.reserve") {
            try FileManager.default.removeItem(atPath: tail + "/" + name)
        }
        #expect(try DiskFullEndToEndTests.fill(state + "/filler") > 0)
        let degraded = try await gateway.waitUntil(timeout: .seconds(60)) {
            let status = try await gateway.controlJSON(["status", "--json"]) as? [String: Any]
            return status?["store_degraded_sessions"] as? Int == 1
        }
        #expect(degraded, "\(gateway.log.suffix(2000))")
        try await Task.sleep(for: .seconds(1))
        let stopped = try await gateway.control(["stop", "--sensor", "virtual-1"])
        #expect(stopped.status != 0, "\(stopped)")
        #expect(stopped.standardError.contains("could not be saved nor spilled"), "\(stopped)")
        #expect(gateway.log.contains("store.unsaved_samples"), "the log counts the samples only in memory")
        return id
    }

    @Test("space returns: the daemon stores the end itself, every sample received is stored, SIGTERM exits 0")
    func retriedWhenSpaceReturns() async throws {
        let directory = try RunningGateway.makeDirectory()
        let state = directory + "/state"
        try await DiskFullEndToEndTests.mountTmpfs(state, megabytes: 48)
        defer {
            DiskFullEndToEndTests.unmount(state)
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await RunningGateway.with(config: Self.oneSensor, in: directory) { gateway in
            let id = try await Self.unsavedStop(gateway, state: state)
            try FileManager.default.removeItem(atPath: state + "/filler")
            var shown: [String: Any]?
            let saved = try await gateway.waitUntil(timeout: .seconds(60)) {
                shown = try await gateway.controlJSON(["show", id, "--json"]) as? [String: Any]
                return shown?["end_reason"] as? String == "stopped"
            }
            #expect(saved, "\(String(describing: shown))\n\(gateway.log.suffix(3000))")
            #expect(gateway.log.contains("the store took the session's end once it had room again"))
            let store = try SessionStore.openReadOnly(at: StateDirectory(path: state))
            defer { try? store.close() }
            let samples = try await store.samples(of: try #require(UUID(uuidString: id)))
            let received = try #require(shown?["received"] as? Int)
            #expect(received > 300 && samples.count == received, "every sample received is stored")
            let dates = ISO8601DateFormatter()
            let startText = try #require(shown?["started_at"] as? String)
            let endText = try #require(shown?["ended_at"] as? String)
            let startedAt = try #require(dates.date(from: startText))
            let endedAt = try #require(dates.date(from: endText))
            let recorded = try #require(samples.last?.t)
            let duration = endedAt.timeIntervalSince(startedAt)
            #expect(abs(duration - recorded) < 3, "the duration is what was recorded: \(duration) s for \(recorded) s")
            gateway.daemon.send(SIGTERM)
            #expect(await gateway.daemon.waitForExit(timeout: .seconds(20)) == 0, "\(gateway.log.suffix(2000))")
        }
    }

    @Test("no space before SIGTERM: the daemon exits with a failure and says the samples are lost")
    func sigtermAfterUnsavedEnd() async throws {
        let directory = try RunningGateway.makeDirectory()
        let state = directory + "/state"
        try await DiskFullEndToEndTests.mountTmpfs(state, megabytes: 48)
        defer {
            DiskFullEndToEndTests.unmount(state)
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await RunningGateway.with(config: Self.oneSensor, in: directory) { gateway in
            _ = try await Self.unsavedStop(gateway, state: state)
            gateway.daemon.send(SIGTERM)
            let exit = await gateway.daemon.waitForExit(timeout: .seconds(30))
            #expect(exit != nil && exit != 0, "\(gateway.log.suffix(3000))")
            #expect(gateway.log.contains("neither saved nor spilled"), "\(gateway.log.suffix(3000))")
        }
    }
}
