// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import Foundation
import GRDB
import GatewayTesting
import SDUSensor
import SeededRandomness
import SessionStore
import Testing
import VirtualSensor

@testable import sportsensorctl

/// A fresh state directory under the system's temporary directory.
struct TemporaryStateDirectory {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("storecli-\(UUID().uuidString)").path

    var stateDirectory: StateDirectory { StateDirectory(path: path) }

    func open() throws -> SessionStore { try SessionStore.open(at: stateDirectory) }

    /// Writes a file inside the directory and returns its path.
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Recordings the store tests import.
enum StoreFixtures {
    /// A simulated recording as `simulate` writes it (with its `#` comment lines).
    static func simulatedCSV(_ script: MotionScript, seconds: Double = 40, seed: UInt64 = 3) -> String {
        let recording = MotionGenerator.render(script: script, seed: seed, rate: 100, duration: seconds)
        var text = "# script \(script.rawValue) seed \(seed)\n" + SampleCSV.header + "\n"
        for sample in recording.samples { text += SampleCSV.line(sample) + "\n" }
        return text
    }

    /// A CSV whose times jitter by whole microseconds, as a decoded capture's do, with `count`
    /// samples: chunk boundaries then put some times exactly half-way on the chunk's time base.
    static func jitteredCSV(count: Int, period: Double = 0.010_000_3, seed: UInt64 = 5) -> String {
        var random = SplitMix64(seed: seed)
        var text = SampleCSV.header + "\n"
        for index in 0..<count {
            let t = Double(index) * period + Double(random.next() % 7) * 1e-6
            let raw = RawAcceleration(
                x: Int16(truncatingIfNeeded: random.next() % 4001) - 2000, y: -16384 + Int16(index % 300),
                z: Int16(truncatingIfNeeded: random.next() % 32768) - 16384)
            text += SampleCSV.line(AccelerationSample(t: StoreTime.microseconds(t), raw: raw)) + "\n"
        }
        return text
    }

    /// The sample lines of a CSV (header and comments dropped).
    static func sampleLines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") && $0 != "t,x,y,z" }
    }
}

@Suite("sportsensorctl store commands")
struct StoreCommandTests {
    func importFile(
        _ path: String, _ store: SessionStore, profile: DetectionProfile, athlete: String? = nil,
        sensor: BluetoothAddress? = nil, startedAt: Date? = nil
    ) async throws -> SessionStore.Imported {
        try await store.importRecording(
            try SessionImport.read(path).recording, settings: DetectionSettings(profile: profile), athlete: athlete,
            sensor: sensor, startedAt: startedAt)
    }

    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test(
        "import a CSV, export csv: the same sample lines byte for byte; jsonl: exactly analyze's output",
        arguments: [DetectionProfile.tableTennis, .jump, .throw, .steps])
    func csvRoundTrip(profile: DetectionProfile) async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let csv = StoreFixtures.simulatedCSV(MotionScript(rawValue: profile.rawValue)!)
        let path = try directory.write("recording.csv", Array(csv.utf8))
        let store = try directory.open()
        let imported = try await importFile(path, store, profile: profile)
        #expect(!imported.events.isEmpty, "the fixture should hold \(profile.rawValue) events")

        let exported = text(try await ExportCommand.export(imported.session, format: .csv, store: store))
        #expect(exported.hasPrefix("t,x,y,z\n"))
        #expect(StoreFixtures.sampleLines(exported) == StoreFixtures.sampleLines(csv))

        let analyzed = detectEvents(in: try loadSamples(path), settings: DetectionSettings(profile: profile)).map {
            EventRecord($0).jsonLine + "\n"
        }
        let jsonl = text(try await ExportCommand.export(imported.session, format: .jsonl, store: store))
        #expect(jsonl == analyzed.joined())
        #expect(jsonl.split(separator: "\n").count == imported.events.count)
    }

    @Test(
        "times jittering by microseconds come back exactly, whatever the chunking",
        arguments: [8195, 8193, 16_389, 301])
    func jitteredTimes(count: Int) async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let csv = StoreFixtures.jitteredCSV(count: count)
        let path = try directory.write("jitter.csv", Array(csv.utf8))
        let store = try directory.open()
        let imported = try await importFile(path, store, profile: .steps)
        let exported = text(try await ExportCommand.export(imported.session, format: .csv, store: store))
        #expect(exported == csv)
        // What was stored decodes, chunk for chunk, to the imported times.
        let stored = try await store.detectionSamples(of: imported.session.id)
        #expect(
            stored == (try loadSamples(path)).map { AccelerationSample(t: $0.t, raw: SessionImport.counts(of: $0)) })
    }

    @Test("import a btsnoop capture, export btsnoop, decode: the same counts, indices and times")
    func btsnoopRoundTrip() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let faults = VirtualSensorConfiguration.Faults(dropFraction: 0.04, malformedFraction: 0.02)
        let session = SessionRecorderFixture.session(datalink: .linuxMonitor, notifications: 900, faults: faults)
        let path = try directory.write("session.btsnoop", session.capture)
        let store = try directory.open()
        let imported = try await importFile(path, store, profile: .tableTennis, athlete: "Ada")
        let record = imported.session
        #expect(record.sensor?.octets == CaptureFixtures.sensorAddress.octets)
        #expect(record.counts.received == Int64(session.deliveredSamples.count))
        #expect(record.counts.lost == Int64(session.lostSamples))
        #expect(record.counts.malformed == Int64(session.notifications.filter { $0.fate == .malformed }.count))
        #expect(abs(record.startedAt.timeIntervalSince1970 - Double(CaptureFixtures.startTimestamp) / 1e6) < 1e-3)

        let original = try decodeRecording(session.capture)
        let exported = try await ExportCommand.export(record, format: .btsnoop, store: store)
        let again = try decodeRecording(exported)
        #expect(again.readings == session.deliveredSamples)
        #expect(again.readings == original.readings)
        #expect(again.indices.map { $0 - again.indices[0] } == original.indices.map { $0 - original.indices[0] })
        #expect(again.peer?.octets == CaptureFixtures.sensorAddress.octets)
        #expect(again.statistics.counterMode == .sampleCounter)
        let worst = zip(again.samples(), original.samples()).map { abs($0.t - $1.t) }.max() ?? 1
        #expect(worst <= 1.5e-6, "decoded times differ by up to \(worst) s")

        // The exported capture imports again to the same samples and events.
        let path2 = try directory.write("export.btsnoop", exported)
        let reimported = try await importFile(path2, store, profile: .tableTennis)
        let first = try await store.samples(of: record.id)
        let second = try await store.samples(of: reimported.session.id)
        #expect(first.map(\.raw) == second.map(\.raw))
        #expect(imported.events.count == reimported.events.count)
    }

    func decodeRecording(_ bytes: [UInt8]) throws -> SDUCaptureDecoder.SensorRecording {
        let capture = try RecordingInput.decodeCapture(
            Data(bytes), path: "capture", configuration: SDUCaptureDecoder.Configuration())
        #expect(capture.stoppedEarly == nil)
        return try RecordingInput.chooseRecording(capture, path: "capture", address: nil, handle: nil)
    }

    @Test("a CSV session exports as a capture decode reads back to the same samples")
    func csvToCapture() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let csv = StoreFixtures.simulatedCSV(.jumps, seconds: 20)
        let path = try directory.write("jump.csv", Array(csv.utf8))
        let store = try directory.open()
        let imported = try await importFile(path, store, profile: .jump)
        let capture = try await ExportCommand.export(imported.session, format: .btsnoop, store: store)
        let decoded = try decodeRecording(capture)
        var lines = SampleCSV.header + "\n"
        for sample in decoded.samples() { lines += SampleCSV.line(sample) + "\n" }
        #expect(StoreFixtures.sampleLines(lines) == StoreFixtures.sampleLines(csv))
    }

    @Test("reanalyze unchanged gives exactly the stored events; another profile with --save replaces them")
    func reanalyze() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let path = try directory.write("steps.csv", Array(StoreFixtures.simulatedCSV(.steps).utf8))
        let store = try directory.open()
        let imported = try await importFile(path, store, profile: .steps)
        let record = imported.session
        let stored = try await store.events(of: record.id)

        let same = try await store.reanalyze(record, profile: nil, rules: nil, save: false)
        #expect(same.settings == DetectionSettings(profile: .steps))
        #expect(same.events.map(EventRecord.init) == stored)
        #expect(same.events == imported.events)

        let other = try await store.reanalyze(record, profile: .tableTennis, rules: .baseline, save: false)
        #expect(other.events != same.events)
        #expect(try await store.events(of: record.id) == stored, "without --save nothing changes")

        let saved = try await store.reanalyze(record, profile: .tableTennis, rules: .baseline, save: true)
        #expect(saved.previousCount == stored.count)
        #expect(try await store.events(of: record.id) == saved.events.map(EventRecord.init))
        let updated = try await store.session(id: record.id)
        #expect(updated.profile == "table-tennis")
        #expect(updated.settings == DetectionSettings(profile: .tableTennis, rules: .baseline))
        // Re-running the saved settings reproduces the saved events.
        let again = try await store.reanalyze(updated, profile: nil, rules: nil, save: false)
        #expect(again.events == saved.events)
    }

    @Test("prune by age deletes old sessions; --samples-only keeps sessions and events")
    func prune() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let path = try directory.write("tt.csv", Array(StoreFixtures.simulatedCSV(.tableTennis, seconds: 15).utf8))
        let store = try directory.open()
        let old = try await importFile(
            path, store, profile: .tableTennis, startedAt: Date(timeIntervalSinceNow: -200 * 86_400))
        let middle = try await importFile(
            path, store, profile: .tableTennis, startedAt: Date(timeIntervalSinceNow: -30 * 86_400))
        let recent = try await importFile(path, store, profile: .tableTennis)
        let samples = Int64(try loadSamples(path).count)
        // Age counts from when a session entered the store: as if each was stored when it started.
        let stored = try DatabaseQueue(path: directory.stateDirectory.databasePath)
        try await stored.write { db in try db.execute(sql: "UPDATE sessions SET stored_at = started_at") }
        try stored.close()

        let samplesOnly = try await store.prune(
            storedBefore: Date(timeIntervalSinceNow: -(try StoreArguments.duration("2w"))), .init(samplesOnly: true))
        #expect(samplesOnly.sessionsAffected == 2 && samplesOnly.sessionsDeleted == 0)
        #expect(samplesOnly.samplesDeleted == 2 * samples)
        #expect(try await store.sampleStorage(of: middle.session.id).samples == 0)
        #expect(try await store.events(of: middle.session.id).count == middle.events.count)
        #expect(try await store.sampleStorage(of: recent.session.id).samples == samples)
        await #expect(throws: CommandFailure.self) {
            _ = try await ExportCommand.export(middle.session, format: .csv, store: store)
        }
        let jsonl = text(try await ExportCommand.export(middle.session, format: .jsonl, store: store))
        #expect(jsonl.split(separator: "\n").count == middle.events.count)
        await #expect {
            _ = try await store.reanalyze(middle.session, profile: nil, rules: nil, save: true)
        } throws: { error in
            // No samples left: exit 66, as for a missing input.
            (error as? StoreError).map { CommandFailure.exitCode(for: $0) } == 66
        }

        let cutoff = Date(timeIntervalSinceNow: -(try StoreArguments.duration("90d")))
        let plan = try await store.prune(storedBefore: cutoff, .init(dryRun: true))
        #expect(plan.sessionIDs == [old.session.id])
        #expect(plan.sampleBytes == 0, "its samples went with the samples-only prune")
        let byAge = try await store.prune(storedBefore: cutoff)
        #expect(byAge.sessionsDeleted == 1 && byAge.eventsDeleted == old.events.count)
        let left = try await store.sessions().map(\.id)
        #expect(Set(left) == [middle.session.id, recent.session.id])
        let report = PruneCommand.describe(
            PruneReport(
                sessionsDeleted: byAge.sessionsDeleted, sessionsAffected: byAge.sessionsAffected,
                chunksDeleted: byAge.chunksDeleted, samplesDeleted: byAge.samplesDeleted,
                eventsDeleted: byAge.eventsDeleted, sessionIds: [old.session.idText], sampleBytes: 1500,
                finishedSessions: 3),
            samplesOnly: false, cutoff: Date(timeIntervalSince1970: 0), json: false)
        #expect(
            report.hasPrefix(
                "removed 1 of 3 session(s) stored before 1970-01-01T00:00:00Z: \(old.events.count) events"))
        #expect(report.contains("1.5 kB"))
        #expect(report.hasSuffix("\n  \(old.session.idText)"))
    }

    @Test("durations and dates parse, and bad ones are usage errors naming the form")
    func arguments() throws {
        #expect(try StoreArguments.duration("90d") == 90 * 86_400)
        #expect(try StoreArguments.duration("12h") == 12 * 3600)
        #expect(try StoreArguments.duration("2w") == 14 * 86_400)
        #expect(try StoreArguments.duration("1.5m") == 90)
        for bad in ["90", "d", "-3d", "90x", "", "ninety d"] {
            #expect {
                try StoreArguments.duration(bad)
            } throws: { error in
                let failure = error as? CommandFailure
                return failure?.exitCode == 64 && failure?.message.contains("90d, 12h, 2w") == true
            }
        }
        #expect(try StoreArguments.date("2024-05-01", option: "--since").timeIntervalSince1970 == 1_714_521_600)
        #expect(
            try StoreArguments.date("2024-05-01T01:00:00Z", option: "--since").timeIntervalSince1970 == 1_714_525_200)
        #expect(throws: CommandFailure.self) { try StoreArguments.date("May 1st", option: "--since") }
        #expect(throws: CommandFailure.self) { try StoreArguments.profile("tennis") }
    }

    @Test("ids: a unique prefix finds the session, an ambiguous one lists the candidates, an unknown one says so")
    func prefixes() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let store = try directory.open()
        let ids = [
            "abcd0001-0000-4000-8000-000000000001", "abcd0002-0000-4000-8000-000000000002",
            "ef000000-0000-4000-8000-000000000003",
        ].map { UUID(uuidString: $0)! }
        for id in ids {
            _ = try await store.importSession(
                NewSession(id: id, settings: DetectionSettings(profile: .jump)), samples: [], events: [])
        }
        #expect(try await store.session(idPrefix: "abcd0002").id == ids[1])
        #expect(try await store.session(idPrefix: "EF").id == ids[2])
        #expect(try await store.session(idPrefix: ids[0].uuidString).id == ids[0])
        await #expect {
            try await store.session(idPrefix: "abcd")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .ambiguousPrefix && CommandFailure.exitCode(for: error) == 64
                && error.message.contains(ids[0].uuidString.lowercased())
                && error.message.contains(ids[1].uuidString.lowercased())
        }
        await #expect {
            try await store.session(idPrefix: "0123")
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .notFound && CommandFailure.exitCode(for: error) == 66
                && error.message.contains("sportsensorctl sessions")
        }
    }

    @Test("sessions: filters by athlete, sensor, profile and start; the table aligns; --json parses")
    func sessionsListing() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let jump = try directory.write("jump.csv", Array(StoreFixtures.simulatedCSV(.jumps, seconds: 20).utf8))
        let steps = try directory.write("steps.csv", Array(StoreFixtures.simulatedCSV(.steps, seconds: 20).utf8))
        let store = try directory.open()
        let sensor = BluetoothAddress(string: "FC:97:8B:75:10:AB")!
        let may = try StoreArguments.date("2024-05-01T10:00:00Z", option: "")
        let june = try StoreArguments.date("2024-06-01T10:00:00Z", option: "")
        let a = try await importFile(jump, store, profile: .jump, athlete: "Ada", sensor: sensor, startedAt: may)
        let b = try await importFile(steps, store, profile: .steps, athlete: "Bo", startedAt: june)
        #expect(a.addedAthlete && b.addedAthlete)
        let c = try await importFile(jump, store, profile: .jump, athlete: "Ada", startedAt: june)
        #expect(!c.addedAthlete)

        func ids(_ filter: SessionFilter = .init(), athlete: String? = nil) async throws -> [UUID] {
            try await SessionsCommand.listings(store, filter: filter, athlete: athlete).map(\.record.id)
        }
        #expect(try await ids().last == a.session.id, "newest first")
        #expect(Set(try await ids()) == [a.session.id, b.session.id, c.session.id])
        #expect(Set(try await ids(athlete: "Ada")) == [a.session.id, c.session.id])
        #expect(try await ids(athlete: "Nobody").isEmpty)
        #expect(try await ids(SessionFilter(sensor: sensor)) == [a.session.id])
        #expect(try await ids(SessionFilter(profile: "steps")) == [b.session.id])
        let since = try StoreArguments.date("2024-05-15", option: "--since")
        #expect(Set(try await ids(SessionFilter(startedFrom: since))) == [b.session.id, c.session.id])
        #expect(try await ids(SessionFilter(startedBefore: since)) == [a.session.id])

        let listings = try await SessionsCommand.listings(store, filter: .init(), athlete: nil)
        let table = SessionsCommand.table(listings).split(separator: "\n")
        #expect(table.count == 4)
        #expect(table[0].hasPrefix("ID        STARTED"))
        let eventsColumnEnd = table[0].count
        #expect(table.allSatisfy { $0.count == eventsColumnEnd }, "right-aligned last column")
        let match = table.first(where: { $0.hasPrefix(String(a.session.idText.prefix(8))) })
        let row = try #require(match)
        #expect(row.contains("2024-05-01T10:00:00Z") && row.contains("Ada") && row.contains(sensor.description))
        #expect(row.contains("jump") && row.hasSuffix(" \(a.events.count)"))

        let json = SessionsCommand.json(listings)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(array.count == 3)
        let matching = array.first(where: { ($0["id"] as? String) == a.session.idText })
        let first = try #require(matching)
        #expect(first["athlete"] as? String == "Ada")
        #expect(first["sensor"] as? String == sensor.description)
        #expect(first["profile"] as? String == "jump")
        #expect(first["started_at"] as? String == "2024-05-01T10:00:00Z")
        #expect(first["end_reason"] as? String == "imported")
        #expect(first["samples"] as? Int == (try loadSamples(jump)).count)
        #expect(first["events"] as? Int == a.events.count)
    }

    @Test("show: counts per type and the profile summary analyze --summary prints")
    func show() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let path = try directory.write("tt.csv", Array(StoreFixtures.simulatedCSV(.tableTennis).utf8))
        let store = try directory.open()
        let imported = try await importFile(path, store, profile: .tableTennis, athlete: "Ada")
        let report = try await ShowCommand.report(imported.session, store: store)
        let samples = try loadSamples(path)
        let summary = summarize(
            samples, events: detectEvents(in: samples, settings: DetectionSettings(profile: .tableTennis)),
            profile: .tableTennis)
        // The stored summary is analyze's, with kcal null and why (Ada has no body mass).
        #expect(report.summary?.jsonLine == summary.withBodyMass(nil).jsonLine)
        #expect(report.eventCounts.map(\.0) == ["hit"] && report.eventCounts[0].1 == imported.events.count)
        #expect(report.table.contains("hit events  "))
        #expect(report.table.contains("max_peak_g"))
        #expect(report.table.contains("end reason"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        #expect((object["summary"] as? [String: Any])?["hits"] as? Int == imported.events.count)
        #expect((object["event_counts"] as? [String: Any])?["hit"] as? Int == imported.events.count)
        #expect(object["received"] as? Int == samples.count)
    }
}

@Suite("sportsensorctl store commands, as a process")
struct StoreProcessTests {
    let process = DecodeProcessTests()

    func run(
        _ arguments: [String], state: TemporaryStateDirectory
    ) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await process.run(arguments + ["--state-dir", state.path])
    }

    @Test("import prints the id; sessions, show, export, reanalyze and prune run; failures exit with sysexits codes")
    func commands() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: DecodeProcessTests.executable.path))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let csv = StoreFixtures.simulatedCSV(.tableTennis, seconds: 20)
        let path = try directory.write("tt.csv", Array(csv.utf8))

        let imported = try await run(
            ["import", path, "--profile", "table-tennis", "--athlete", "Ada"], state: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id) != nil)

        let list = try await run(["sessions"], state: directory)
        #expect(list.status == 0 && list.stdout.contains(String(id.prefix(8))) && list.stdout.contains("Ada"))
        let json = try await run(["sessions", "--json", "--profile", "jump"], state: directory)
        #expect(json.status == 0 && json.stdout == "[]\n")

        let show = try await run(["show", String(id.prefix(6))], state: directory)
        #expect(show.status == 0 && show.stdout.contains("max_peak_g"))

        let output = directory.path + "/out.csv"
        let export = try await run(
            ["export", String(id.prefix(8)), "--format", "csv", "--output", output], state: directory)
        #expect(export.status == 0)
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(StoreFixtures.sampleLines(written) == StoreFixtures.sampleLines(csv))

        let analyze = try await process.run(["analyze", "--profile", "table-tennis", path])
        let jsonl = try await run(["export", id, "--format", "jsonl"], state: directory)
        #expect(jsonl.status == 0 && jsonl.stdout == analyze.stdout && !analyze.stdout.isEmpty)
        let reanalyzed = try await run(["reanalyze", id], state: directory)
        #expect(reanalyzed.status == 0 && reanalyzed.stdout == analyze.stdout)

        let unknown = try await run(["show", "0000"], state: directory)
        #expect(unknown.status == 66 && unknown.stderr.contains("error: no session id starts with '0000'"))
        let notHex = try await run(["export", "zz", "--format", "csv"], state: directory)
        #expect(notHex.status == 66 && notHex.stderr.contains("hex digits"))
        let badDuration = try await run(["prune", "--older-than", "90"], state: directory)
        #expect(badDuration.status == 64 && badDuration.stderr.contains("90d, 12h, 2w"))
        let badProfile = try await run(["import", path, "--profile", "tennis"], state: directory)
        #expect(badProfile.status == 64 && badProfile.stderr.contains("table-tennis, jump, throw, steps"))
        let missing = try await run(["import", path + ".missing", "--profile", "jump"], state: directory)
        #expect(missing.status == 66 && missing.stderr.contains("cannot read the file"))

        let prune = try await run(["prune", "--older-than", "1d"], state: directory)
        #expect(prune.status == 0 && prune.stdout.hasPrefix("removed 0 of 1 session(s)"), "\(prune)")
        #expect(try await run(["sessions", "--json"], state: directory).stdout.contains(id))
    }

    @Test("ambiguous prefix, newer schema and a damaged database: clear messages, exit codes, nothing changed")
    func storeFailures() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: DecodeProcessTests.executable.path))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let store = try directory.open()
        for suffix in ["1", "2"] {
            _ = try await store.importSession(
                NewSession(
                    id: UUID(uuidString: "abcdef0\(suffix)-0000-4000-8000-000000000000")!,
                    settings: DetectionSettings(profile: .jump)),
                samples: [], events: [])
        }
        try store.close()
        let ambiguous = try await run(["show", "abcdef"], state: directory)
        #expect(ambiguous.status == 64)
        #expect(ambiguous.stderr.contains("matches 2 sessions") && ambiguous.stderr.contains("abcdef01-0000"))

        let database = directory.stateDirectory.databasePath
        let queue = try DatabaseQueue(path: database)
        try await queue.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
        try queue.close()
        let newer = try await run(["sessions"], state: directory)
        #expect(newer.status == 65 && newer.stderr.contains("upgrade sportsensord"))

        let damaged = TemporaryStateDirectory()
        defer { damaged.remove() }
        let garbage = [UInt8](repeating: 0x42, count: 4096)
        let file = try damaged.write(StateDirectory.databaseFileName, garbage)
        let corrupt = try await run(["sessions"], state: damaged)
        #expect(corrupt.status == 65 && corrupt.stderr.contains("damaged") && corrupt.stderr.contains("--state-dir"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(garbage))

        let environment = try await process.run(
            ["sessions", "--json"], environment: ["SPORTSENSOR_STATE_DIR": damaged.path])
        #expect(environment.status == 65)
    }
}
