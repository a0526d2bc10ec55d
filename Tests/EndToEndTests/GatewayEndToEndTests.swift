// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import SessionStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The whole system as an admin and a coach use it: a real `sportsensord` process with virtual
/// sensors (real GATT over socket pairs), driven by real `sportsensorctl` processes over the
/// control socket, with the store checked afterwards by the offline commands and `SessionStore`.
///
/// Serialized: each test runs a daemon whose emulated sensors pace themselves in real time, and a
/// machine starved by seven daemons plus the other suites makes the emulation (not the gateway)
/// fall behind real time.
@Suite("End to end: sportsensord and sportsensorctl processes", .serialized, .timeLimit(.minutes(5)))
struct GatewayEndToEndTests {
    static let oneTableTennisSensor = """
        [virtual]
        sensors = 1
        scripts = ["table-tennis"]

        """

    /// Each line of JSON lines text as a JSON object.
    static func objects(lines text: String) -> [NSDictionary] {
        text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? NSDictionary
        }
    }

    @Test("scan → pair → start → two tails → stop: the store holds exactly the events both tails showed")
    func coachWorkflow() async throws {
        try await RunningGateway.with(config: Self.oneTableTennisSensor) { gateway in

            // Unpaired, the virtual sensor is still there to be found and paired, as hardware would be.
            #expect(try await gateway.control(["unpair", "virtual-1"]).status == 0)
            let scan = try await gateway.controlJSON(["scan", "--seconds", "1", "--json"]) as? [[String: Any]] ?? []
            #expect(
                scan.contains {
                    $0["address"] as? String == "CA:FE:00:00:00:01" && $0["is_sdu_sensor"] as? Bool == true
                })
            let paired =
                try await gateway.controlJSON([
                    "pair", "CA:FE:00:00:00:01", "--alias", "court-1", "--athlete", "Ana", "--json",
                ]) as? [String: Any]
            #expect(paired?["alias"] as? String == "court-1")
            #expect(try await gateway.waitForLink("court-1"), "the paired sensor connects:\n\(gateway.log)")

            let first = try gateway.tail()
            let second = try gateway.tail()
            let started =
                try await gateway.controlJSON([
                    "start", "--sensor", "court-1", "--profile", "table-tennis", "--json",
                ]) as? [String: Any]
            let id = try #require(started?["id"] as? String)
            #expect(started?["athlete"] as? String == "Ana")

            // The table-tennis script rallies after a few seconds of rest: wait for a few strokes.
            for tail in [first, second] {
                let seen = await tail.waitForOutput(timeout: .seconds(60)) {
                    TailLine.detections(in: $0, session: id).count >= 4
                }
                #expect(seen, "tail shows hits: \(tail.output.suffix(5))\n\(gateway.log)")
            }
            let stopped = try await gateway.controlJSON(["stop", String(id.prefix(8)), "--json"]) as? [String: Any]
            #expect(stopped?["end_reason"] as? String == "stopped")
            for tail in [first, second] {
                let ended = await tail.waitForOutput(timeout: .seconds(10)) { lines in
                    lines.compactMap(TailLine.init).contains {
                        $0.event == "session" && $0.data["id"] as? String == id && $0.data["is_live"] as? Bool == false
                    }
                }
                #expect(ended, "tail shows the session end")
                tail.send(SIGINT)
                #expect(await tail.waitForExit(timeout: .seconds(10)) == 0, "Ctrl-C ends tail with status 0")
            }

            let shownFirst = TailLine.detections(in: first.output, session: id)
            let shownSecond = TailLine.detections(in: second.output, session: id)
            #expect(shownFirst.count >= 4)
            #expect(shownFirst == shownSecond, "both tails saw the same events")
            let export = try await gateway.control(["export", id, "--format", "jsonl"])
            #expect(export.status == 0, "\(export)")
            let stored = export.standardOutput.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }.map(DetectedEvent.init)
            #expect(stored == shownFirst, "the store holds what the tails showed")

            // One event record everywhere: the SSE detection items, the API's event list, export
            // --format jsonl and analyze over the exported samples carry identical objects.
            let sse = first.output.compactMap(TailLine.init)
                .filter { $0.event == "detection" && $0.data["session_id"] as? String == id }
                .compactMap { $0.data["event"] as? NSDictionary }
            let http = try RawHTTPClient.connect(unixSocket: gateway.socketPath)
            defer { http.close() }
            let answer = try await http.exchange("GET", "/v1/sessions/\(id)/events")
            #expect(answer.status == 200)
            let api = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [NSDictionary])
            let exported = Self.objects(lines: export.standardOutput)
            let csv = gateway.directory + "/session.csv"
            let samples = try await gateway.control(["export", id, "--format", "csv", "--output", csv])
            #expect(samples.status == 0, "\(samples)")
            let analyze = try await gateway.control(["analyze", "--profile", "table-tennis", csv])
            #expect(analyze.status == 0, "\(analyze)")
            #expect(sse.count >= 4)
            #expect(api == sse, "GET /v1/sessions/{id}/events = the SSE detection items")
            #expect(exported == sse, "export --format jsonl = the SSE detection items")
            #expect(Self.objects(lines: analyze.standardOutput) == sse, "analyze of the stored samples = the SSE items")

            let shown = try await gateway.controlJSON(["show", id, "--json"]) as? [String: Any]
            #expect(shown?["end_reason"] as? String == "stopped")
            #expect(shown?["athlete"] as? String == "Ana")
        }
    }

    @Test("while the daemon runs, reanalyze --save, import and prune write through it; a live session is refused")
    func writesGoThroughTheDaemon() async throws {
        try await RunningGateway.with(config: Self.oneTableTennisSensor) { gateway in
            let started = try await gateway.controlJSON(["start", "--sensor", "virtual-1", "--json"]) as? [String: Any]
            let id = try #require(started?["id"] as? String)
            // Samples before the stop, so the ended session has some to re-analyse.
            #expect(try await gateway.waitForSamples(of: id, atLeast: 100) >= 100, "\(gateway.log)")
            let live = try await gateway.control(["reanalyze", id, "--save"])
            #expect(live.status != 0, "\(live)")
            #expect(live.standardError.contains("stop"), "the refusal names the fix: \(live)")
            _ = try await gateway.control(["stop", id])

            let saved = try await gateway.control(["reanalyze", id, "--save", "--profile", "steps"])
            #expect(saved.status == 0, "\(saved)")
            #expect(saved.standardError.contains("written by sportsensord"), "\(saved)")
            #expect(gateway.log.contains("session re-analysed"))
            let shown = try await gateway.controlJSON(["show", id, "--json"]) as? [String: Any]
            #expect(shown?["profile"] as? String == "steps")

            let csv = gateway.directory + "/recording.csv"
            #expect(try await gateway.control(["export", id, "--format", "csv", "--output", csv]).status == 0)
            let imported = try await gateway.control(["import", "--profile", "table-tennis", "--athlete", "Ivo", csv])
            #expect(imported.status == 0, "\(imported)")
            #expect(gateway.log.contains("session imported through the API"))
            let copy = imported.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            let copied = try await gateway.controlJSON(["show", copy, "--json"]) as? [String: Any]
            #expect(copied?["athlete"] as? String == "Ivo")
            let original = try await gateway.control(["export", id, "--format", "csv"])
            let reexported = try await gateway.control(["export", copy, "--format", "csv"])
            #expect(reexported.standardOutput == original.standardOutput, "the daemon stored exactly the samples sent")

            // Every finished session is more than the half one prune may take without --force. The
            // cutoff travels as whole seconds: past the next second, the copy just imported is older.
            try await Task.sleep(for: .milliseconds(1100))
            let refused = try await gateway.control(["prune", "--older-than", "0s", "--samples-only"])
            #expect(refused.status == 65 && refused.standardError.contains("--force"), "\(refused)")
            let pruned = try await gateway.control(["prune", "--older-than", "0s", "--samples-only", "--force"])
            #expect(pruned.status == 0, "\(pruned)")
            #expect(pruned.standardOutput.contains(id), "the report names the sessions: \(pruned)")
            #expect(gateway.log.contains("pruned the samples of sessions"))
            let after = try await gateway.control(["reanalyze", id])
            #expect(after.status == 66, "no samples are left to re-analyse: \(after)")
        }
    }

    @Test("a link dropped mid-session reconnects into the same session, and the gap is accounted as lost")
    func linkDropAndReconnect() async throws {
        try await RunningGateway.with(
            config: Self.oneTableTennisSensor + "out_of_range_every = 4\nout_of_range_for = 1.5\n"
        ) { gateway in
            let tail = try gateway.tail()
            let started = try await gateway.controlJSON(["start", "--sensor", "virtual-1", "--json"]) as? [String: Any]
            let id = try #require(started?["id"] as? String)

            let linkStates = { (lines: [String]) -> [String] in
                lines.compactMap(TailLine.init).filter { $0.event == "link" }.compactMap { $0.data["state"] as? String }
            }
            let back = await tail.waitForOutput(timeout: .seconds(40)) { lines in
                let states = linkStates(lines)
                guard let lost = states.firstIndex(of: "lost") else { return false }
                return states[lost...].contains("connected")
            }
            #expect(back, "link lost, then connected again: \(linkStates(tail.output))\n\(gateway.log)")
            // Samples after the gap, as the session reports them, before the stop.
            let atReconnection = try await gateway.samples(of: id)
            let afterGap = try await gateway.waitForSamples(of: id, atLeast: atReconnection + 100)
            #expect(afterGap >= atReconnection + 100, "samples arrive after the reconnection")
            let stopped = try await gateway.controlJSON(["stop", "--sensor", "virtual-1", "--json"]) as? [String: Any]
            #expect(stopped?["id"] as? String == id, "the session that was live before the drop is the one that ends")
            let lost = try #require(stopped?["lost_samples"] as? Int)
            tail.send(SIGINT)
            _ = await tail.waitForExit(timeout: .seconds(10))
            let sessions = try await gateway.controlJSON(["sessions", "--json"]) as? [[String: Any]] ?? []
            #expect(sessions.count == 1, "no second session was opened by the reconnection")
            let retrying = linkStates(tail.output).contains("retrying")
            #expect(retrying, "the tail saw the link retrying")

            // The stored samples: strictly increasing indices, one gap of at least the time away,
            // all of it counted as lost, and sample times that carry on across the gap.
            let store = try SessionStore.open(at: StateDirectory(path: gateway.stateDirectory))
            defer { try? store.close() }
            let samples = try await store.samples(of: try #require(UUID(uuidString: id)))
            let gaps = zip(samples, samples.dropFirst()).map { $1.index - $0.index - 1 }
            #expect(gaps.allSatisfy { $0 >= 0 })
            #expect(gaps.reduce(0, +) == Int64(lost), "index gaps are the lost count")
            // At least 1.5 s at 100 Hz: the virtual sensor's counter runs on while no client
            // listens, and it refuses connections for that long. How much longer depends on the
            // retry's wait and the machine's load; up to 2 048 it is a gap, beyond that the
            // counter tracker would take it for a sensor reset (Docs/FORMATS.md).
            let largest = try #require(gaps.max())
            #expect(largest >= 150 && largest <= 2_048, "1.5 s away at 100 Hz plus the retry's wait: \(largest)")
            // Times carry on across the gap: they strictly increase, with no restart. How far they
            // jump follows the arrival times, so under load it measures the machine, not the
            // gateway: SampleClockTests checks the jump on exact arrival times.
            let at = try #require(gaps.firstIndex(of: largest))
            let times = samples.map(\.t)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "sample times strictly increase")
            #expect(samples[at + 1].t > samples[at].t, "time across the gap: \(samples[at + 1].t - samples[at].t) s")
        }
    }

    @Test("SIGTERM ends every live session with reason shutdown and exits 0")
    func gracefulShutdown() async throws {
        try await RunningGateway.with(config: "[virtual]\nsensors = 3\n") { gateway in
            var ids: [String] = []
            for (sensor, profile) in [("virtual-1", "table-tennis"), ("virtual-2", "jump"), ("virtual-3", "steps")] {
                #expect(try await gateway.waitForLink(sensor))
                let result = try await gateway.controlJSON([
                    "start", "--sensor", sensor, "--profile", profile, "--json",
                ])
                ids.append(try #require((result as? [String: Any])?["id"] as? String))
            }
            // What each session has received before the signal, as the daemon reports it: a
            // graceful shutdown stores all of it.
            var received: [String: Int] = [:]
            for id in ids {
                received[id] = try await gateway.waitForSamples(of: id, atLeast: 100)
                #expect(received[id] ?? 0 >= 100, "\(id) records")
            }
            gateway.daemon.send(SIGTERM)
            #expect(await gateway.daemon.waitForExit(timeout: .seconds(20)) == 0, "\(gateway.log)")
            #expect(!FileManager.default.fileExists(atPath: gateway.socketPath), "the socket is removed on the way out")

            let sessions = try await gateway.controlJSON(["sessions", "--json"]) as? [[String: Any]] ?? []
            #expect(sessions.count == 3)
            #expect(sessions.allSatisfy { $0["end_reason"] as? String == "shutdown" }, "\(sessions)")
            #expect(Set(sessions.compactMap { $0["id"] as? String }) == Set(ids))
            for session in sessions {
                let id = session["id"] as? String ?? "?"
                let stored = session["samples"] as? Int ?? 0
                #expect(stored >= received[id] ?? .max, "\(id): \(stored) stored of \(received[id] ?? 0) received")
            }
        }
    }

    @Test("SIGKILL, then a restart: the session is closed as interrupted and nothing the store held is lost")
    func killAndRestart() async throws {
        try await RunningGateway.with(config: Self.oneTableTennisSensor) { gateway in
            let started = try await gateway.controlJSON(["start", "--sensor", "virtual-1", "--json"]) as? [String: Any]
            let id = try #require(started?["id"] as? String)
            // A kill loses only what the recorder had not yet appended to the session's tail
            // segment (it flushes once a second: Docs/OPERATIONS.md, "SD card"); what the store
            // shows through the API is in those files and must survive. So wait until the store
            // holds a few events, read what it holds, and kill right after.
            var committed: [NSDictionary] = []
            let seen = try await gateway.waitUntil(timeout: .seconds(90)) {
                committed = try await gateway.storedEvents(of: id)
                return committed.count >= 3
            }
            #expect(seen, "the store holds hits before the kill: \(committed.count)\n\(gateway.log)")
            let committedSamples = try await gateway.storedSampleLines(of: id)
            #expect(committedSamples.count >= 100, "the store holds samples before the kill")
            gateway.daemon.send(SIGKILL)
            #expect(await gateway.daemon.waitForExit(timeout: .seconds(10)) == 128 + SIGKILL)

            try await RunningGateway.with(config: Self.oneTableTennisSensor, in: gateway.directory) { restarted in
                #expect(restarted.log.contains("closed sessions a previous run left open"), "\(restarted.log)")
                let shown = try await restarted.controlJSON(["show", id, "--json"]) as? [String: Any]
                #expect(shown?["end_reason"] as? String == "interrupted")
                let export = try await restarted.control(["export", id, "--format", "jsonl"])
                #expect(export.status == 0, "\(export)")
                let stored = Self.objects(lines: export.standardOutput)
                #expect(
                    Array(stored.prefix(committed.count)) == committed,
                    "every event the store held before the kill is kept: \(committed.count) then, \(stored.count) now")
                let storedSamples = try await restarted.storedSampleLines(of: id)
                #expect(
                    Array(storedSamples.prefix(committedSamples.count)) == committedSamples,
                    "every sample the store held before the kill is kept: \(committedSamples.count) then, \(storedSamples.count) now"
                )
                // The restart summarised the recovered session from what was stored.
                let reader = try SessionStore.openReadOnly(at: StateDirectory(path: restarted.stateDirectory))
                let summary = try await reader.summary(of: try #require(UUID(uuidString: id)))
                try reader.close()
                #expect(summary?.hits == stored.count, "\(String(describing: summary))")
                restarted.daemon.send(SIGTERM)
                #expect(await restarted.daemon.waitForExit(timeout: .seconds(20)) == 0)
            }
        }
    }

    @Test("a user without access to the socket gets a clear error (77); no daemon at all gets 69 with the fix")
    func socketPermission() async throws {
        try await RunningGateway.with(config: Self.oneTableTennisSensor) { gateway in
            let control = try #require(RunningGateway.controlPath)
            let denied: CommandResult
            if getuid() == 0 {
                // Root passes every permission check: ask as `nobody` without capabilities instead,
                // with a copy of the tool `nobody` can run wherever the checkout lives.
                let copy = gateway.directory + "/sportsensorctl"
                try FileManager.default.copyItem(atPath: control, toPath: copy)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: gateway.directory)
                denied = try await runCommand(
                    "/usr/bin/setpriv",
                    [
                        "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--", copy, "status",
                        "--socket", gateway.socketPath,
                    ])
            } else {
                chmod(gateway.socketPath, 0)
                denied = try await runCommand(control, ["status", "--socket", gateway.socketPath])
            }
            #expect(denied.status == 77, "\(denied)")
            #expect(denied.standardError.contains("permission denied on \(gateway.socketPath)"), "\(denied)")
            #expect(denied.standardError.contains("sportsensor` group"), "the fix names the group: \(denied)")

            let nowhere = try await runCommand(control, ["status", "--socket", gateway.directory + "/nothing.sock"])
            #expect(nowhere.status == 69, "\(nowhere)")
            #expect(nowhere.standardError.contains("cannot reach sportsensord at"), "\(nowhere)")
            #expect(nowhere.standardError.contains("systemctl status sportsensord"), "\(nowhere)")
        }
    }

    @Test("a bad configuration exits 78 naming file, line and key, and starts nothing")
    func badConfiguration() async throws {
        let daemon = try #require(RunningGateway.daemonPath)
        let directory = try RunningGateway.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/config.toml"
        try "[virtual]\nsensors = 1\nrate = 1000\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await runCommand(
            daemon, ["--config", config, "--state-dir", directory + "/state", "--socket", directory + "/c.sock"])
        #expect(result.status == 78, "\(result)")
        #expect(result.standardError.contains("\(config):3: virtual.rate: invalid-value: 1000 Hz"), "\(result)")
        #expect(result.standardError.contains("give 25 to 400"), "the message names the fix: \(result)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/c.sock"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/state"), "no store was created")

        let typo = try await runCommand(
            daemon, ["--config", directory + "/missing.toml", "--state-dir", directory + "/state"])
        #expect(typo.status == 78, "an explicit config that does not exist is an error too: \(typo)")
        #expect(typo.standardError.contains("missing.toml"))
    }

    @Test("an unknown sensor or session gets a clear error with the fix and status 65; nothing changes")
    func unknownSensor() async throws {
        try await RunningGateway.with(config: Self.oneTableTennisSensor) { gateway in
            let start = try await gateway.control(["start", "--sensor", "nope", "--profile", "jump"])
            #expect(start.status == 65, "\(start)")
            #expect(start.standardError.contains("no paired sensor is called nope"), "\(start)")
            #expect(start.standardError.contains("sportsensorctl sensors"), "\(start)")
            let stop = try await gateway.control(["stop", "0000dead"])
            #expect(stop.status == 65, "\(stop)")
            let profile = try await gateway.control(["start", "--sensor", "virtual-1", "--profile", "golf"])
            #expect(profile.status != 0, "\(profile)")
            #expect(profile.standardError.contains("golf"), "\(profile)")
            let sessions = try await gateway.controlJSON(["sessions", "--json"]) as? [[String: Any]] ?? []
            #expect(sessions.isEmpty, "no session was started by the failed commands")
        }
    }
}
