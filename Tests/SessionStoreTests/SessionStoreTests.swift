// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Detection
import Foundation
import GRDB
import GatewayTesting
import NIOConcurrencyHelpers
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// Counts commits on a connection, to prove a flush is one transaction.
final class CommitCounter: TransactionObserver, Sendable {
    let commits = NIOLockedValueBox(0)
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits.withLockedValue { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}

func expectStoreError(
    _ code: StoreError.Code, containing text: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected StoreError \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let text { #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected StoreError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

@Suite("Session store")
struct SessionStoreTests {
    // MARK: Schema and migrations

    @Test("an empty file migrates to the current schema: tables, user_version, application_id")
    func emptyToCurrent() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let (version, application, tables, applied) = try await store.database.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA user_version"), try Int32.fetchOne(db, sql: "PRAGMA application_id"),
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            )
        }
        #expect(version == StoreSchema.current.number)
        #expect(application == StoreSchema.applicationID)
        #expect(Set(["athletes", "sensors", "sessions", "events", "sample_chunks"]).isSubset(of: Set(tables)))
        #expect(applied == StoreSchema.versions.map(\.name))
        let journal = try await store.database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        let synchronous = try await store.database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        let foreignKeys = try await store.database.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") }
        #expect(journal == "wal")
        #expect(synchronous == 1)  // NORMAL
        #expect(foreignKeys == 1)
        // Every connection, the writer and the readers, keeps a page cache of pageCacheKiB.
        let cacheSizes = try await (
            store.database.write { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") },
            store.database.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") }
        )
        #expect(cacheSizes.0 == -SessionStore.pageCacheKiB)
        #expect(cacheSizes.1 == -SessionStore.pageCacheKiB)
    }

    /// One case per schema version: a database left at that version (with a session in it) opens,
    /// migrates to the current version and keeps its data. Adding v2 adds a case by itself.
    @Test("every earlier schema version migrates to the current one", arguments: StoreSchema.versions)
    func migratesFrom(version: StoreSchema.Version) async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try StoreSchema.migrator.migrate(queue, upTo: version.name)
        try await queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO sessions (id, profile, started_at, ended_at, end_reason) VALUES (?, 'jump', 10, 20, 'stopped')",
                arguments: ["0f0f0f0f-0000-4000-8000-000000000001"])
        }
        try queue.close()
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let sessions = try await store.sessions()
        #expect(sessions.map(\.idText) == ["0f0f0f0f-0000-4000-8000-000000000001"])
        let version = try await store.database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == StoreSchema.current.number)
    }

    @Test("a v1 fixture database (frozen SQL and chunk bytes) stays readable")
    func v1Fixture() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in try db.execute(sql: V1Fixture.sql) }
        try queue.close()

        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.session(idPrefix: "5e55")
        #expect(session.profile == "table-tennis")
        #expect(session.sensor == BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random))
        #expect(session.endReason == .stopped)
        #expect(session.counts == SessionCounts(received: 6, lost: 1, malformed: 2, sampleRate: 99.5))
        #expect(session.athleteID == 1)
        let events = try await store.events(of: session.id)
        #expect(events.map(\.type) == ["hit", "jump"])
        #expect(events[0].peakG == 1.9 && events[0].saturated == true)
        #expect(events[1].heightM == 0.31)
        let samples = try await store.samples(of: session.id)
        #expect(samples.map(\.raw) == V1Fixture.samples.map(\.raw))
        #expect(samples.map(\.index) == V1Fixture.samples.map(\.index))
        for (a, b) in zip(samples, V1Fixture.samples) { #expect(abs(a.t - b.t) < 1e-6) }
        #expect(try await store.athletes().map(\.name) == ["Ada"])
        #expect(try await store.sensors().first?.alias == "left wrist")
    }

    @Test("a database from a newer schema is refused and left as it was")
    func newerSchema() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        try SessionStore.open(at: temporary.stateDirectory).close()
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
        try queue.close()
        await expectStoreError(.newerSchema, containing: "newer sportsensord (schema 99)") {
            _ = try SessionStore.open(at: temporary.stateDirectory)
        }
        await expectStoreError(.newerSchema, containing: "upgrade sportsensord or point --state-dir elsewhere") {
            _ = try SessionStore.open(at: temporary.stateDirectory)
        }
        let check = try DatabaseQueue(path: temporary.databasePath)
        #expect(try await check.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == 99)
        try check.close()
    }

    @Test("a database with a migration this build does not know is refused")
    func unknownMigration() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        try SessionStore.open(at: temporary.stateDirectory).close()
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v2-from-the-future')")
        }
        try queue.close()
        await expectStoreError(.newerSchema, containing: "v2-from-the-future") {
            _ = try SessionStore.open(at: temporary.stateDirectory)
        }
    }

    @Test("another application's SQLite file is refused")
    func foreignDatabase() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in try db.execute(sql: "CREATE TABLE notes (body TEXT)") }
        try queue.close()
        await expectStoreError(.notOurDatabase) { _ = try SessionStore.open(at: temporary.stateDirectory) }
    }

    // MARK: Faults

    @Test("a damaged file is reported by the check, never overwritten or deleted")
    func corruptFile() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .jump)),
            samples: SyntheticMotion.training(count: 40_000, seed: 1),
            events: (0..<200).map { EventRecord(type: "step", t: Double($0)) })
        _ = session
        try await store.checkpoint()
        try store.close()

        // Garbage over the middle of a copy: SQLite's own header stays, pages are destroyed.
        let copy = temporary.path + "/copy"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        let damagedPath = copy + "/" + StateDirectory.databaseFileName
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: temporary.databasePath)))
        #expect(bytes.count > 64 * 1024)
        var random = SeededRandom(seed: 5)
        // Pages in the second half: sample chunks, away from the schema that opening reads.
        let damageStart = bytes.count / 2 / 4096 * 4096
        for position in damageStart..<min(bytes.count, damageStart + 4096 * 12) {
            bytes[position] = UInt8(truncatingIfNeeded: random.next())
        }
        try Data(bytes).write(to: URL(fileURLWithPath: damagedPath))
        // Opening does not read every page: the check does.
        let damaged = try SessionStore.openReadOnly(path: damagedPath)
        await expectStoreError(.corrupt, containing: "leaves it untouched") { try await damaged.quickCheck() }
        try damaged.close()
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: damagedPath))) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: copy) == [StateDirectory.databaseFileName])

        // Garbage from the first byte: not even a SQLite file.
        let garbagePath = copy + "/garbage.sqlite"
        let garbage = (0..<8192).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        try Data(garbage).write(to: URL(fileURLWithPath: garbagePath))
        await expectStoreError(.corrupt) { _ = try SessionStore.open(path: garbagePath) }
        await expectStoreError(.corrupt) { _ = try SessionStore.openReadOnly(path: garbagePath) }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: garbagePath))) == garbage)

        // The sound original passes.
        try await SessionStore.openReadOnly(path: temporary.databasePath).quickCheck()
    }

    @Test("disk full: a typed error naming the fix, the file intact, the recorder keeps its rows and retries")
    func diskFull() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(
            at: temporary.stateDirectory, options: SessionStore.Options(maxPageCount: 40))
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .tableTennis)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 512), clock: ContinuousClock())
        let samples = SyntheticMotion.training(count: 200_000, seed: 2)
        var failure: StoreError?
        var recorded = 0
        while recorded < samples.count {
            recorder.record(samples: samples[recorded..<min(recorded + 5000, samples.count)])
            recorder.record(event: EventRecord(type: "hit", t: samples[recorded].t))
            recorded += 5000
            do { try await recorder.flush() } catch {
                failure = error
                break
            }
        }
        let error = try #require(failure, "the page cap was never reached")
        #expect(error.code == .diskFull)
        #expect(error.message.contains("the disk holding \(store.path) is full: free space or prune old sessions"))
        #expect(error.message.contains("sportsensorctl prune --older-than 90d"))
        let stuck = recorder.statistics
        #expect(stuck.failedFlushes == 1)
        #expect(stuck.bufferedSamples > 0)
        #expect(stuck.lastError != nil)
        #expect(try await store.integrityCheck() == ["ok"])

        // Still recording while full: rows are counted as buffered, nothing is lost.
        recorder.record(samples: samples[recorded..<recorded + 1000])
        await #expect(throws: StoreError.self) { try await recorder.flush() }
        #expect(recorder.statistics.bufferedSamples == stuck.bufferedSamples + 1000)

        // Space comes back: the next flush saves the backlog.
        try await store.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1000000")
        }
        try await recorder.flush()
        let after = recorder.statistics
        #expect(after.bufferedSamples == 0)
        #expect(after.lastError == nil)
        try await recorder.finish(reason: .stopped)
        let stored = try await store.samples(of: session.id)
        #expect(sameSamples(stored, samples[0..<recorded + 1000]))
        #expect(try await eventSequences(store, session.id) == (0..<Int64(recorded / 5000)).map { $0 })
        #expect(try await store.integrityCheck() == ["ok"])
    }

    // MARK: Recorder

    @Test("a flush commits once per chunk it closes, however many rows; reading back gives the rows in order")
    func batching() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let address = BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random)!
        let session = try await store.createSession(
            NewSession(sensor: address, settings: DetectionSettings(profile: .jump)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(flushThreshold: 1_000_000, chunkLength: 1000), clock: ContinuousClock())
        let counter = CommitCounter()
        store.database.add(transactionObserver: counter)

        let samples = SyntheticMotion.training(count: 5500, seed: 3)
        recorder.record(samples: samples)
        let events = (0..<25).map { EventRecord(type: "jump", t: Double($0), flightS: 0.5, heightM: 0.31) }
        for event in events { recorder.record(event: event) }
        #expect(recorder.statistics.queueDepth == 5525)
        try await recorder.flush()
        // Five chunks closed: each sealed segment registered by its own commit.
        #expect(counter.commits.withLockedValue { $0 } == 5)
        let statistics = recorder.statistics
        #expect(statistics.flushes == 1 && statistics.samplesWritten == 5500 && statistics.eventsWritten == 25)
        #expect(statistics.queueDepth == 0)
        #expect(statistics.lastFlushLatency > .zero)

        // Small flushes append to the open chunk's tail segment and commit nothing; a chunk is
        // registered once, in the flush that fills it.
        for start in stride(from: 0, to: 900, by: 300) {
            recorder.record(
                samples: SyntheticMotion.rest(count: 300, seed: UInt64(start)).map {
                    IndexedSample(
                        index: 5500 + Int64(start) + $0.index, t: 55 + Double(start) / 100 + $0.t, raw: $0.raw)
                })
            try await recorder.flush()
        }
        #expect(counter.commits.withLockedValue { $0 } == 6)
        let chunks = try await store.database.read { db in
            try Int.fetchAll(db, sql: "SELECT sample_count FROM sample_chunks ORDER BY chunk")
        }
        #expect(chunks == [1000, 1000, 1000, 1000, 1000, 1000])
        #expect(try await store.samples(of: session.id).count == 6400)
        recorder.update(counts: SessionCounts(received: 6400, lost: 3, malformed: 1, sampleRate: 99.8))
        let closed = try await recorder.finish(reason: .stopped)
        #expect(closed.endReason == .stopped)
        #expect(counter.commits.withLockedValue { $0 } == 7)
        let closedChunks = try await store.database.read { db in
            try Int.fetchAll(db, sql: "SELECT sample_count FROM sample_chunks ORDER BY chunk")
        }
        #expect(closedChunks == [1000, 1000, 1000, 1000, 1000, 1000, 400])

        let stored = try await store.samples(of: session.id)
        #expect(stored.count == 6400)
        #expect(sameSamples(stored.prefix(5500), samples))
        let g = try await store.accelerationSamples(of: session.id)
        #expect(g[10].x == AccelerationSample(t: samples[10].t, raw: samples[10].raw).x)
        let storedEvents = try await store.events(of: session.id)
        #expect(try await eventSequences(store, session.id) == (0..<25).map { Int64($0) })
        #expect(storedEvents == events)
        let reread = try await store.session(id: session.id)
        #expect(reread.counts == SessionCounts(received: 6400, lost: 3, malformed: 1, sampleRate: 99.8))
        #expect(reread.sensor == address)
        // After finish, rows are refused and counted, never written.
        recorder.record(samples: samples.prefix(10))
        #expect(recorder.statistics.ignoredAfterFinish == 10)
    }

    @Test("the buffer bound drops new rows and counts them")
    func bound() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(maxBufferedSamples: 1000, maxBufferedEvents: 2), clock: ContinuousClock()
        )
        let samples = SyntheticMotion.rest(count: 1500, seed: 1)
        recorder.record(samples: samples)
        for t in 0..<5 { recorder.record(event: EventRecord(type: "step", t: Double(t))) }
        let statistics = recorder.statistics
        #expect(statistics.bufferedSamples == 1000 && statistics.droppedSamples == 500)
        #expect(statistics.bufferedEvents == 2 && statistics.droppedEvents == 3)
        try await recorder.finish(reason: .stopped)
        #expect(sameSamples(try await store.samples(of: session.id), samples.prefix(1000)))
        #expect(try await eventSequences(store, session.id) == [0, 1])
    }

    @Test("run() flushes on its own once the threshold is reached")
    func thresholdFlush() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        let clock = TestClock()
        let recorder = try await store.recorder(
            for: session, configuration: .init(flushInterval: .seconds(3600), flushThreshold: 100), clock: clock)
        let runner = Task { await recorder.run() }
        recorder.record(samples: SyntheticMotion.rest(count: 99, seed: 1))
        try await Task.sleep(for: .milliseconds(100))
        #expect(recorder.statistics.samplesWritten == 0)  // below the threshold, the hour has not passed
        recorder.record(samples: SyntheticMotion.rest(count: 1, seed: 2))
        try await waitUntil { recorder.statistics.samplesWritten == 100 }

        // The interval: advance the test clock by the flush interval.
        recorder.record(event: EventRecord(type: "jump", t: 1))
        try await Task.sleep(for: .milliseconds(50))
        #expect(recorder.statistics.eventsWritten == 0)
        await clock.advance(by: .seconds(3600))
        try await waitUntil { recorder.statistics.eventsWritten == 1 }
        try await recorder.finish(reason: .stopped)
        await runner.value
    }

    // MARK: Crash recovery

    @Test("a session left open is closed as interrupted at its last sample when the store is reopened")
    func recoveryInProcess() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let started = Date(timeIntervalSince1970: 1_700_000_000)
        do {
            let store = try SessionStore.open(at: temporary.stateDirectory)
            let withSamples = try await store.createSession(
                NewSession(settings: DetectionSettings(profile: .jump), startedAt: started))
            let recorder = try await store.recorder(for: withSamples)
            recorder.record(samples: SyntheticMotion.rest(count: 1234, seed: 1))
            recorder.record(event: EventRecord(type: "jump", t: 3))
            try await recorder.flush()
            let eventsOnly = try await store.createSession(
                NewSession(settings: DetectionSettings(profile: .jump), startedAt: started.addingTimeInterval(100)))
            let eventsRecorder = try await store.recorder(for: eventsOnly)
            eventsRecorder.record(event: EventRecord(type: "jump", t: 7.5))
            try await eventsRecorder.flush()
            _ = try await store.createSession(
                NewSession(settings: DetectionSettings(profile: .jump), startedAt: started.addingTimeInterval(200)))
            try store.close()
        }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        #expect(store.recoveredSessions.count == 3)
        let sessions = try await store.sessions()
        #expect(sessions.allSatisfy { $0.endReason == .interrupted })
        let ends = try sessions.map { try #require($0.endedAt).timeIntervalSince(started) }
        #expect(abs(ends[2] - 12.33) < 1e-6)  // last sample at 1233 / 100 Hz
        #expect(abs(ends[1] - 107.5) < 1e-6)  // its last event
        #expect(abs(ends[0] - 200) < 1e-6)  // its start
    }

    @Test("a closed store lets go of its lock at once, even while something still references it")
    func closeReleasesTheLock() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let first = try SessionStore.open(at: temporary.stateDirectory)
        _ = try await first.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        try first.close()
        // `first` is still alive here (as a task finishing in the background may keep a store).
        let second = try SessionStore.open(at: temporary.stateDirectory)
        #expect(second.recoveredSessions.count == 1, "the session the closed store left open is recovered")
        try second.close()
        _ = first
    }

    @Test("a store opened twice does not close the other process's live session")
    func noRecoveryUnderLiveWriter() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let first = try SessionStore.open(at: temporary.stateDirectory)
        let live = try await first.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        let second = try SessionStore.open(at: temporary.stateDirectory)
        #expect(second.recoveredSessions.isEmpty)
        #expect(try await second.session(id: live.id).isOpen)
        _ = first
    }

    @Test("a child process killed with SIGKILL while recording: integrity ok, every committed event kept")
    func crashRecoveryChildProcess() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let executable = try #require(
            BuiltProducts.path(of: "sportsensor-dev"), "build sportsensor-dev first (swift build --build-tests)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["store-crash-helper", "--state-dir", temporary.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        // Read committed lines until a few flushes are in; then kill without warning.
        var text = ""
        var committedEvents = 0
        let handle = output.fileHandleForReading
        let deadline = ContinuousClock.now + .seconds(60)
        while committedEvents < 20, ContinuousClock.now < deadline {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            let lines = text.split(separator: "\n").filter { $0.hasPrefix("committed events=") }
            if let last = lines.last, let value = Int(last.split(separator: " ")[1].dropFirst("events=".count)) {
                committedEvents = value
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(committedEvents >= 20, "the helper printed: \(text)")

        let store = try SessionStore.open(at: temporary.stateDirectory)
        #expect(try await store.integrityCheck() == ["ok"])
        let sessions = try await store.sessions()
        let session = try #require(sessions.first)
        #expect(sessions.count == 1)
        #expect(store.recoveredSessions == [session.id])
        #expect(session.endReason == .interrupted)
        let events = try await store.events(of: session.id)
        #expect(events.count >= committedEvents)
        #expect(try await eventSequences(store, session.id) == (0..<Int64(events.count)).map { $0 })
        let samples = try await store.samples(of: session.id)
        #expect(samples.count == events.count * 50)
        let ended = try #require(session.endedAt)
        #expect(abs(ended.timeIntervalSince(session.startedAt) - samples.last!.t) < 1e-6)
    }

    // MARK: Reading

    @Test("a reader reads while a writer records (WAL)")
    func readerDuringWriter() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let reader = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .steps)))
        let recorder = try await store.recorder(for: session)
        let samples = SyntheticMotion.training(count: 100_000, seed: 4)
        let writer = Task {
            for start in stride(from: 0, to: samples.count, by: 2000) {
                recorder.record(samples: samples[start..<start + 2000])
                recorder.record(event: EventRecord(type: "step", t: samples[start].t))
                try await recorder.flush()
            }
        }
        var seen: [Int] = []
        while seen.last != 50 {
            let count = try await reader.events(of: session.id).count
            let stored = try await reader.sampleStorage(of: session.id).samples
            #expect(stored == Int64(count) * 2000 || stored > Int64(count - 1) * 2000)
            if count != seen.last { seen.append(count) }
            if count < 50 { try await Task.sleep(for: .milliseconds(2)) }
        }
        try await writer.value
        #expect(seen == seen.sorted())
        #expect(seen.count > 2, "the reader saw \(seen)")
        try await recorder.finish(reason: .stopped)
        #expect(sameSamples(try await reader.samples(of: session.id), samples))
    }

    @Test("lookup by a unique id prefix; an ambiguous prefix lists the candidates; none is a clear error")
    func prefixLookup() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let ids = [
            "aaaa1111-0000-4000-8000-000000000001", "aaaa2222-0000-4000-8000-000000000002",
            "bbbb0000-0000-4000-8000-000000000003",
        ].map { UUID(uuidString: $0)! }
        for id in ids {
            _ = try await store.createSession(NewSession(id: id, settings: DetectionSettings(profile: .jump)))
        }
        #expect(try await store.session(idPrefix: "AAAA1").id == ids[0])
        #expect(try await store.session(idPrefix: "b").id == ids[2])
        #expect(try await store.session(idPrefix: ids[1].uuidString).id == ids[1])
        await expectStoreError(.ambiguousPrefix, containing: "aaaa1111-0000-4000-8000-000000000001") {
            _ = try await store.session(idPrefix: "aaaa")
        }
        await expectStoreError(.ambiguousPrefix, containing: "aaaa2222-0000-4000-8000-000000000002") {
            _ = try await store.session(idPrefix: "aaaa")
        }
        await expectStoreError(.notFound, containing: "sportsensorctl sessions") {
            _ = try await store.session(idPrefix: "ffff")
        }
        await expectStoreError(.notFound) { _ = try await store.session(idPrefix: "a%") }
    }

    @Test("filters (athlete, sensor, profile, dates) and newest first")
    func filters() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let ada = try await store.addAthlete(name: "Ada")
        let bo = try await store.addAthlete(name: "Bo")
        await expectStoreError(.invalidArgument) { _ = try await store.addAthlete(name: "Ada") }
        let left = BluetoothAddress(string: "FC:97:8B:75:10:AB", kind: .random)!
        let right = BluetoothAddress(string: "FC:97:8B:75:10:AC", kind: .random)!
        try await store.saveSensor(SensorRecord(address: left, advertisedName: "BC05FC978B7510AB", alias: "left"))
        let day = 86_400.0
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        var made: [SessionRecord] = []
        for n in 0..<6 {
            made.append(
                try await store.createSession(
                    NewSession(
                        sensor: n % 2 == 0 ? left : right, athleteID: n < 3 ? ada.id : bo.id,
                        settings: DetectionSettings(profile: n % 3 == 0 ? .jump : .tableTennis),
                        startedAt: base.addingTimeInterval(Double(n) * day)
                    )))
        }
        #expect(try await store.sessions().map(\.id) == made.reversed().map(\.id))
        #expect(
            try await store.sessions(filter: SessionFilter(athleteID: bo.id)).map(\.id)
                == [5, 4, 3].map { made[$0].id })
        #expect(
            try await store.sessions(filter: SessionFilter(sensor: left)).map(\.id) == [4, 2, 0].map { made[$0].id })
        #expect(
            try await store.sessions(filter: SessionFilter(profile: "jump")).map(\.id) == [3, 0].map { made[$0].id })
        let window = SessionFilter(
            startedFrom: base.addingTimeInterval(1 * day), startedBefore: base.addingTimeInterval(3 * day))
        #expect(try await store.sessions(filter: window).map(\.id) == [2, 1].map { made[$0].id })
        #expect(try await store.sessions(filter: SessionFilter(limit: 2)).map(\.id) == [5, 4].map { made[$0].id })
        #expect(try await store.sensors().first { $0.address == left }?.alias == "left")
        #expect(try await store.sensors().count == 2)
    }

    @Test(
        "prune counts from when a session entered the store, deletes old finished sessions or only their samples, never an open one; a dry run deletes nothing; past the share it refuses"
    )
    func prune() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let now = Date()
        let samples = SyntheticMotion.rest(count: 5000, seed: 1)
        let events = [EventRecord(type: "step", t: 1), EventRecord(type: "step", t: 2)]
        let settings = DetectionSettings(profile: .steps)
        func imported(startedAt: Date) async throws -> SessionRecord {
            try await store.importSession(
                NewSession(settings: settings, startedAt: startedAt), samples: samples, events: events)
        }
        let old = try await imported(startedAt: now.addingTimeInterval(-100 * 86_400))
        let older = try await imported(startedAt: now.addingTimeInterval(-101 * 86_400))
        let openOld = try await store.createSession(NewSession(settings: settings, startedAt: now))
        // Recorded two years ago, imported today: new to this store.
        let importedToday = try await imported(startedAt: now.addingTimeInterval(-730 * 86_400))
        let recent = try await imported(startedAt: now.addingTimeInterval(-86_400))
        try await store.database.write { db in
            for (session, days) in [(old, 100.0), (older, 101), (openOld, 100), (recent, 1)] {
                try db.execute(
                    sql: "UPDATE sessions SET stored_at = ? WHERE id = ?",
                    arguments: [now.timeIntervalSince1970 - days * 86_400, session.idText])
            }
        }
        let cutoff = now.addingTimeInterval(-30 * 86_400)

        let plan = try await store.prune(storedBefore: cutoff, .init(dryRun: true))
        #expect(plan.sessionIDs == [older.id, old.id], "oldest first; the open and the imported one stay")
        #expect(plan.samplesDeleted == 10_000 && plan.sampleBytes > 0 && plan.finishedSessions == 4)
        #expect(try await store.sessions().count == 5, "a dry run deletes nothing")

        await expectStoreError(.invalidArgument) {
            _ = try await store.prune(storedBefore: cutoff, .init(maximumShare: 0.4))
        }
        #expect(try await store.sessions().count == 5, "past the share nothing is deleted")

        let samplesOnly = try await store.prune(storedBefore: cutoff, .init(samplesOnly: true, maximumShare: 0.5))
        #expect(samplesOnly.sessionsAffected == 2 && samplesOnly.sessionsDeleted == 0)
        #expect(samplesOnly.chunksDeleted == 2 && samplesOnly.samplesDeleted == 10_000)
        #expect(try await store.samples(of: old.id).isEmpty)
        #expect(try await store.events(of: old.id).count == 2)
        #expect(sameSamples(try await store.samples(of: recent.id), samples))
        #expect(sameSamples(try await store.samples(of: importedToday.id), samples))

        let full = try await store.prune(storedBefore: cutoff, .init(vacuum: true))
        #expect(full.sessionsDeleted == 2 && full.eventsDeleted == 4)
        #expect(Set(try await store.sessions().map(\.id)) == [openOld.id, importedToday.id, recent.id])
        await expectStoreError(.notFound) { _ = try await store.session(id: older.id) }
        #expect(try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM events") } == 4)
        #expect(try await store.integrityCheck() == ["ok"])
    }
}

/// Polls `condition` every few milliseconds for up to 10 s.
func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within 10 s")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A minimal manual clock for the recorder's interval: sleepers wake when `advance` passes
/// their deadline.
final class TestClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    private let state = NIOLockedValueBox(State())
    var now: Instant { state.withLockedValue { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLockedValue { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let due = state.withLockedValue { state -> Bool in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = (deadline, continuation)
                    return false
                }
                if due { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.sleepers.removeValue(forKey: id) }?.continuation.resume()
        }
        try Task.checkCancellation()
    }

    /// Moves time forward, waking every sleeper now due, after letting new sleepers register.
    func advance(by duration: Duration) async {
        try? await Task.sleep(for: .milliseconds(20))
        let due = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}
