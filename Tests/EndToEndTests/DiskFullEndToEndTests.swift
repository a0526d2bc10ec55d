// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import SessionStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real disk that fills while sessions record: the state directory is a small tmpfs, and a file
/// takes its last byte mid-session, so every write of the daemon fails with ENOSPC as on a full SD
/// card.
@Suite("End to end: the disk fills mid-session", .serialized, .timeLimit(.minutes(5)))
struct DiskFullEndToEndTests {
    static let twoSensors = "[virtual]\nsensors = 2\n"

    @Test("degraded is shown; stop and SIGTERM spill instead of claiming success; the restart imports every sample")
    func diskFillsMidSession() async throws {
        let directory = try RunningGateway.makeDirectory()
        let state = directory + "/state"
        let disk = try await SmallFileSystem.mount(at: state, megabytes: 48)
        defer {
            disk.unmount()
            try? FileManager.default.removeItem(atPath: directory)
        }
        var ids: [String: String] = [:]
        try await RunningGateway.with(config: Self.twoSensors, in: directory) { gateway in
            #expect(FileManager.default.fileExists(atPath: state + "/sportsensord.sqlite-tail/spill.reserve.0"))
            for sensor in ["virtual-1", "virtual-2"] {
                #expect(try await gateway.waitForLink(sensor))
                let started = try await gateway.controlJSON(["start", "--sensor", sensor, "--json"]) as? [String: Any]
                ids[sensor] = try #require(started?["id"] as? String)
            }
            // Both sessions have samples in their tail segments before the disk fills.
            let tail = state + "/sportsensord.sqlite-tail/"
            let segments = ids.values.map { tail + $0 + ".0.tail" }
            #expect(try await gateway.waitUntil { segments.allSatisfy { FileManager.default.fileExists(atPath: $0) } })
            let filled = try disk.fill("filler")
            #expect(filled > 0)

            // Both sessions go degraded, and status says so.
            let degraded = try await gateway.waitUntil(timeout: .seconds(60)) {
                let status = try await gateway.controlJSON(["status", "--json"]) as? [String: Any]
                return status?["store_degraded_sessions"] as? Int == 2
            }
            #expect(degraded, "\(gateway.log.suffix(2000))")
            let status = try await gateway.controlJSON(["status", "--json"]) as? [String: Any]
            #expect(status?["store_healthy"] as? Bool == false)
            let text = try await gateway.control(["status"])
            #expect(text.standardOutput.contains("DEGRADED: 2 live session(s) cannot save"), "\(text)")
            // The live session and /metrics say so too.
            let api = try RawHTTPClient.connect(unixSocket: gateway.socketPath)
            let live = try await api.exchange("GET", "/v1/sessions/" + (try #require(ids["virtual-1"])))
            let session = try JSONSerialization.jsonObject(with: Data(live.body)) as? [String: Any]
            #expect(session?["store_degraded"] as? Bool == true, "\(live.text)")
            // The gauges follow each session's once-a-second tick.
            var metrics = ""
            let counted = try await gateway.waitUntil(timeout: .seconds(30)) {
                let client = try RawHTTPClient.connect(unixSocket: gateway.socketPath)
                metrics = try await client.exchange("GET", "/metrics").text
                return metrics.contains("sportsensord_store_degraded_sessions 2")
            }
            #expect(counted, "\(metrics)")
            #expect(!metrics.contains("sportsensord_store_failed_writes_total 0\n"), "\(metrics)")
            // Seconds of samples in both sessions (the restart counts them), each still degraded: its
            // last flush failed, so its rows do not fit in the disk's last bytes (the stop cannot
            // store them after all).
            let grown = try await gateway.waitUntil(timeout: .seconds(60)) {
                let status = try await gateway.controlJSON(["status", "--json"]) as? [String: Any]
                var received: [Int] = []
                for id in ids.values {
                    let live = try await RawHTTPClient.connect(unixSocket: gateway.socketPath).exchange(
                        "GET", "/v1/sessions/" + id)
                    let session = try JSONSerialization.jsonObject(with: Data(live.body)) as? [String: Any]
                    received.append(session?["samples"] as? Int ?? 0)
                }
                return status?["store_degraded_sessions"] as? Int == 2 && received.allSatisfy { $0 > 600 }
            }
            #expect(grown, "\(gateway.log.suffix(2000))")

            // stop reports the truth: not in the store, spilled to a named file, non-zero exit.
            let stopped = try await gateway.control(["stop", "--sensor", "virtual-1"])
            #expect(stopped.status == 69, "\(stopped)")
            #expect(stopped.standardError.contains("spilled to the recovery file"), "\(stopped)")
            #expect(stopped.standardError.contains("which the next start of sportsensord imports"), "\(stopped)")
            // Its row has no end (the store could not take it), but it is not live any more.
            let listing = try await RawHTTPClient.connect(unixSocket: gateway.socketPath).exchange(
                "GET", "/v1/sessions?live=true")
            let stillLive = try JSONSerialization.jsonObject(with: Data(listing.body)) as? [[String: Any]] ?? []
            #expect(stillLive.compactMap { $0["id"] as? String } == [ids["virtual-2"]], "\(listing.text)")

            // The spill gave a reserve slot back: fill that space too, so the other session's end
            // cannot be stored either. (Had its flush taken some of it first, it is degraded again
            // only once its rows do not fit in what is left: the wait is for that.) SIGTERM spills
            // it and exits with a failure, not 0.
            #expect(gateway.log.contains("released space reserved for spilling"), "\(gateway.log.suffix(2000))")
            try disk.fill("filler-2")
            let stillDegraded = try await gateway.waitUntil(timeout: .seconds(60)) {
                let status = try await gateway.controlJSON(["status", "--json"]) as? [String: Any]
                return status?["store_degraded_sessions"] as? Int == 1
            }
            #expect(stillDegraded, "\(gateway.log.suffix(2000))")
            gateway.daemon.send(SIGTERM)
            let exit = await gateway.daemon.waitForExit(timeout: .seconds(20))
            #expect(exit == 1, "\(gateway.log.suffix(3000))")
            #expect(gateway.log.contains("spilled to recovery files"), "\(gateway.log.suffix(3000))")

            // Space back: the restart imports both recovery files with their real ends.
            try FileManager.default.removeItem(atPath: state + "/filler")
            try FileManager.default.removeItem(atPath: state + "/filler-2")
            try await Self.checkRestart(directory: directory, ids: ids)
        }
    }

    static func checkRestart(directory: String, ids: [String: String]) async throws {
        let state = directory + "/state"
        try await RunningGateway.with(config: Self.twoSensors, in: directory) { restarted in
            #expect(restarted.log.contains("imported the recovery file"), "\(restarted.log.suffix(3000))")
            // Both ends came from their recovery files: no session is said to be interrupted.
            #expect(!restarted.log.contains("(interrupted)"), "\(restarted.log.suffix(3000))")
            let reasons = ["virtual-1": "stopped", "virtual-2": "shutdown"]
            let store = try SessionStore.openReadOnly(at: StateDirectory(path: state))
            defer { try? store.close() }
            for (sensor, reason) in reasons {
                let id = try #require(ids[sensor])
                let shown = try await restarted.controlJSON(["show", id, "--json"]) as? [String: Any]
                #expect(shown?["end_reason"] as? String == reason, "\(String(describing: shown))")
                let received = try #require(shown?["received"] as? Int)
                let lost = try #require(shown?["lost"] as? Int)
                let samples = try await store.samples(of: try #require(UUID(uuidString: id)))
                #expect(received > 500, "seconds of samples at 100 Hz")
                #expect(samples.count == received, "every sample the daemon received is stored: \(sensor)")
                let gaps = zip(samples, samples.dropFirst()).map { $1.index - $0.index - 1 }
                #expect(gaps.allSatisfy { $0 >= 0 })
                #expect(gaps.reduce(0, +) == Int64(lost), "index gaps are the lost count: \(sensor)")
            }
        }
    }
}
