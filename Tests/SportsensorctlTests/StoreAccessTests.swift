// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import GatewayTesting
import SDUSensor
import SeededRandomness
import SessionStore
import StoreFormats
import Testing
import VirtualSensor

@testable import sportsensorctl

/// How the store commands open the store: the reading ones change nothing, the writing ones
/// refuse what would break a live session, and `store check` is where the whole file is read.
@Suite("sportsensorctl: reading and checking the store")
struct StoreAccessTests {
    static var executable: String { BuiltProducts.path(of: "sportsensorctl") ?? "sportsensorctl (not built)" }

    func run(_ arguments: [String]) async throws -> CommandResult {
        try await runCommand(Self.executable, arguments)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// A state directory holding one imported session, the store checkpointed (the file alone
    /// holds it) and closed.
    func importedStore() async throws -> (TemporaryStateDirectory, SessionRecord) {
        let directory = TemporaryStateDirectory()
        let path = try directory.write("steps.csv", Array(StoreFixtures.simulatedCSV(.steps, seconds: 10).utf8))
        let store = try directory.open()
        let imported = try await store.importRecording(
            try SessionImport.read(path).recording, settings: DetectionSettings(profile: .steps))
        try await store.checkpoint()
        try store.close()
        return (directory, imported.session)
    }

    @Test("sessions, show and export leave a store of an older schema as it is: no migration")
    func readingDoesNotMigrate() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let (directory, session) = try await importedStore()
        defer { directory.remove() }
        let database = directory.stateDirectory.databasePath
        // Make it look one migration older than this build.
        let queue = try DatabaseQueue(path: database)
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v2-paired-sensors'")
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        try queue.close()
        let before = try bytes(database)

        let state = ["--state-dir", directory.path]
        for arguments in [["sessions"], ["show", session.idText], ["export", session.idText, "--format", "jsonl"]] {
            let result = try await run(arguments + state)
            #expect(result.status == 0, "\(arguments): \(result)")
        }
        #expect(try bytes(database) == before)
        let check = try DatabaseQueue(path: database)
        #expect(try await check.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == 1)
        try check.close()
    }

    @Test("a store of a newer schema: every command refuses it (65) naming the fix, and it stays as it was")
    func newerSchemaRefused() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let (directory, session) = try await importedStore()
        defer { directory.remove() }
        let database = directory.stateDirectory.databasePath
        let queue = try DatabaseQueue(path: database)
        try await queue.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
        try queue.close()
        let before = try bytes(database)

        let state = ["--state-dir", directory.path]
        for arguments in [["sessions"], ["show", session.idText], ["reanalyze", session.idText, "--save"]] {
            let result = try await run(arguments + state)
            #expect(result.status == 65, "\(arguments): \(result)")
            #expect(result.standardError.contains("upgrade sportsensord"), "\(arguments): \(result)")
        }
        #expect(try bytes(database) == before)
    }

    @Test("reanalyze --save refuses a session still recording (75); without --save it re-analyses it")
    func reanalyzeLive() async throws {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let store = try directory.open()
        let live = try await store.createSession(NewSession(settings: DetectionSettings(profile: .steps)))
        let recorder = try await store.recorder(for: live)
        let samples = try SampleCSV.parse(StoreFixtures.simulatedCSV(.steps, seconds: 10)).enumerated().map {
            IndexedSample(index: Int64($0.offset), t: $0.element.t, raw: SessionImport.counts(of: $0.element))
        }
        recorder.record(samples: samples)
        try await recorder.flush()

        do {
            _ = try await store.reanalyze(live, profile: nil, rules: nil, save: true)
            Issue.record("a live session was re-analysed and saved")
        } catch {
            #expect(error.code == .sessionLive && CommandFailure.exitCode(for: error) == 75)
            #expect(error.message.contains("stop it first"))
        }
        #expect(try await store.events(of: live.id).isEmpty)
        let dryRun = try await store.reanalyze(live, profile: nil, rules: nil, save: false)
        #expect(!dryRun.events.isEmpty)
    }

    @Test("store check: 0 for a sound store, 65 with the fix for a damaged one, 66 without one")
    func storeCheck() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let (directory, _) = try await importedStore()
        defer { directory.remove() }
        let sound = try await run(["store", "check", "--state-dir", directory.path])
        #expect(sound.status == 0 && sound.standardOutput.contains("no damage found"), "\(sound)")

        // A copy with garbage over its second half.
        let damaged = directory.path + "/damaged"
        try FileManager.default.createDirectory(atPath: damaged, withIntermediateDirectories: true)
        var data = [UInt8](try bytes(directory.stateDirectory.databasePath))
        var random = SplitMix64(seed: 9)
        for position in data.count / 2..<data.count { data[position] = UInt8(truncatingIfNeeded: random.next()) }
        let damagedFile = damaged + "/" + StateDirectory.databaseFileName
        try Data(data).write(to: URL(fileURLWithPath: damagedFile))
        let bad = try await run(["store", "check", "--state-dir", damaged])
        #expect(bad.status == 65 && bad.standardError.contains("restore a backup"), "\(bad)")
        #expect(try bytes(damagedFile) == Data(data), "the damaged file is left as it was")

        let none = try await run(["store", "check", "--state-dir", directory.path + "/nothing"])
        #expect(none.status == 66, "\(none)")
    }
}
