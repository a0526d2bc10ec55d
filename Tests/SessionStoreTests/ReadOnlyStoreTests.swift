// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import Testing

@testable import SessionStore

/// `openReadOnly`: what the reading commands open. Run as root, the permission bits below do not
/// stop a write; the tests therefore also check that nothing was created or changed, which is
/// what lets a reader without write access (the daemon's group, a read-only file system) succeed.
@Suite("Session store opened read-only")
struct ReadOnlyStoreTests {
    /// A store with one imported session, closed.
    func storeWithSession(_ temporary: TemporaryDirectory) async throws -> SessionRecord {
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .jump)), samples: SyntheticMotion.rest(count: 500, seed: 2),
            events: [EventRecord(type: "jump", t: 1, takeoff: 1, landing: 1.4, flightS: 0.4, heightM: 0.196)])
        try store.close()
        return session
    }

    func listing(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: path + "/" + name))
        }
        return files
    }

    @Test("the daemon's store at rest, in a directory it may only read: read, and nothing created or changed")
    func storeAtRest() async throws {
        let temporary = try TemporaryDirectory()
        defer {
            chmod(temporary.path, 0o755)
            temporary.remove()
        }
        let session = try await storeWithSession(temporary)
        // A commit left in the WAL, as when the last connection to close cannot checkpoint (a
        // reader) or the process is killed: the file alone does not hold it.
        var readOnly = Configuration()
        readOnly.readonly = true
        let reader = try DatabaseQueue(path: temporary.databasePath, configuration: readOnly)
        let writer = try DatabaseQueue(path: temporary.databasePath)
        _ = try await reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions") }
        try await writer.write { db in
            try db.execute(sql: "INSERT INTO athletes (name, created) VALUES ('Ada', 1700000000)")
        }
        try writer.close()
        try reader.close()
        #expect(FileManager.default.fileExists(atPath: temporary.databasePath + "-wal"))
        try await readWithoutChanges(temporary, session: session, athletes: ["Ada"])
    }

    @Test("a store without a WAL (its last connection checkpointed it away), read-only: read as immutable")
    func storeWithoutWAL() async throws {
        let temporary = try TemporaryDirectory()
        defer {
            chmod(temporary.path, 0o755)
            temporary.remove()
        }
        let session = try await storeWithSession(temporary)
        // One connection, closed: it checkpoints the WAL into the file and deletes it.
        try DatabaseQueue(path: temporary.databasePath).close()
        #expect(!FileManager.default.fileExists(atPath: temporary.databasePath + "-wal"))
        try await readWithoutChanges(temporary, session: session)
    }

    /// Makes the directory and files read-only, opens the store read-only and reads everything:
    /// no file may appear, and none but the WAL index (shared memory) may change.
    func readWithoutChanges(
        _ temporary: TemporaryDirectory, session: SessionRecord, athletes: [String] = []
    ) async throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: temporary.path) {
            chmod(temporary.path + "/" + name, 0o440)
        }
        chmod(temporary.path, 0o550)
        let before = try listing(temporary.path)

        let store = try SessionStore.openReadOnly(at: temporary.stateDirectory)
        #expect(store.isReadOnly)
        #expect(try await store.sessions().map(\.id) == [session.id])
        #expect(try await store.events(of: session.id).map(\.type) == ["jump"])
        #expect(try await store.samples(of: session.id).count == 500)
        #expect(try await store.athletes().map(\.name) == athletes)
        try await store.quickCheck()
        await expectStoreError(.readOnly) { try await store.replaceEvents(of: session.id, with: []) }
        await expectStoreError(.readOnly) { _ = try await store.recorder(for: session) }
        try store.close()
        let after = try listing(temporary.path)
        #expect(Set(after.keys) == Set(before.keys))
        #expect(after.filter { !$0.key.hasSuffix("-shm") } == before.filter { !$0.key.hasSuffix("-shm") })
    }

    @Test("next to a writer: every commit is seen, through the writer's WAL")
    func besideWriter() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let writer = try SessionStore.open(at: temporary.stateDirectory)
        let first = try await writer.createSession(NewSession(settings: DetectionSettings(profile: .steps)))
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: temporary.path))

        let reader = try SessionStore.openReadOnly(at: temporary.stateDirectory)
        #expect(try await reader.session(id: first.id).isOpen)
        let second = try await writer.importSession(
            NewSession(settings: DetectionSettings(profile: .jump)), samples: [], events: [])
        #expect(Set(try await reader.sessions().map(\.id)) == [first.id, second.id])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: temporary.path)) == names)
        try reader.close()
        try writer.close()
    }

    @Test("an older schema is read as it is: no migration")
    func olderSchema() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in try db.execute(sql: V1Fixture.sql) }
        try queue.close()
        let before = try listing(temporary.path)

        let store = try SessionStore.openReadOnly(at: temporary.stateDirectory)
        let session = try await store.session(idPrefix: "5e55")
        #expect(session.profile == "table-tennis" && session.counts.received == 6)
        #expect(try await store.events(of: session.id).count == 2)
        #expect(try await store.samples(of: session.id).count == 6)
        let version = try await store.database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == 1)
        try store.close()
        #expect(try listing(temporary.path) == before)
    }

    @Test("a newer schema is refused with the fix, and left untouched")
    func newerSchema() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        _ = try await storeWithSession(temporary)
        let queue = try DatabaseQueue(path: temporary.databasePath)
        try await queue.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
        try queue.close()
        let before = try listing(temporary.path)
        await expectStoreError(.newerSchema, containing: "upgrade sportsensord") {
            _ = try SessionStore.openReadOnly(at: temporary.stateDirectory)
        }
        #expect(try listing(temporary.path) == before)
    }

    @Test("no database yet: an empty store, and nothing created")
    func missing() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = StateDirectory(path: temporary.path + "/not-yet")
        let store = try SessionStore.openReadOnly(at: directory)
        #expect(try await store.sessions().isEmpty)
        await expectStoreError(.notFound) { _ = try await store.session(idPrefix: "5e55") }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test("a session still recording cannot have its events replaced")
    func liveSessionRefused() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        let live = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        await expectStoreError(.sessionLive, containing: "sportsensorctl stop") {
            try await store.replaceEvents(of: live.id, with: [], settings: DetectionSettings(profile: .steps))
        }
        await expectStoreError(.sessionLive) { try await store.replaceEvents(of: live.id, with: []) }
        #expect(try await store.session(id: live.id).settings == DetectionSettings(profile: .jump))
    }
}
