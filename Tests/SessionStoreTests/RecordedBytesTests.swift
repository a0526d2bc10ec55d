// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import GatewayTesting
import SDUSensor
import Testing

@testable import SessionStore
@testable import StoreFormats

/// What a recording leaves on disk, pinned: the chunk files and rows that seeded samples become
/// through the recorder (flushes of uneven sizes, a second recorder resuming the open segment, a
/// session closed by crash recovery). A change to the recorder's memory must not change one byte;
/// a change to these values is a new stored format (or a bug).
@Suite("Session store: recorded bytes")
struct RecordedBytesTests {
    static let finished = UUID(uuidString: "0b1ec7ed-0000-4000-8000-00000000000a")!
    static let crashed = UUID(uuidString: "0b1ec7ed-0000-4000-8000-00000000000b")!
    static let started = Date(timeIntervalSince1970: 1_700_000_000)

    /// Samples from integer arithmetic only (no libm): a random walk per axis that sometimes clips,
    /// an index that sometimes skips lost samples, and a clock in whole microseconds that jitters.
    static func samples(count: Int, seed: UInt64) -> [IndexedSample] {
        var random = SeededRandom(seed: seed)
        var index: Int64 = 0
        var micros: Int64 = 0
        var axes: [Int32] = [0, -16384, 0]
        return (0..<count).map { _ in
            let roll = random.next()
            let skipped: Int64 = roll % 97 == 0 ? Int64(1 + roll % 5) : 0
            index += 1 + skipped
            micros += (10_000 + Int64(roll >> 60) - 8) * (1 + skipped)
            for axis in 0..<3 {
                let kick: Int32 = random.next() % 211 == 0 ? 20_000 : 0
                let step = Int32(random.next() % 801) - 400 + kick
                axes[axis] = min(Int32(Int16.max), max(Int32(Int16.min), axes[axis] + step))
            }
            return IndexedSample(
                index: index, t: Double(micros) / 1_000_000,
                raw: RawAcceleration(x: Int16(axes[0]), y: Int16(axes[1]), z: Int16(axes[2])))
        }
    }

    /// Hands `samples` to `recorder` in flushes of 1 to 240 samples, an event every third flush.
    static func feed(
        _ recorder: SessionRecorder<ContinuousClock>, _ samples: ArraySlice<IndexedSample>, seed: UInt64
    )
        async throws
    {
        var random = SeededRandom(seed: seed)
        var rest = samples
        var flushes = 0
        while !rest.isEmpty {
            let count = min(rest.count, 1 + Int(random.next() % 240))
            recorder.record(samples: rest.prefix(count))
            if flushes % 3 == 0, let last = rest.prefix(count).last {
                recorder.record(event: EventRecord(type: "hit", t: last.t, peakG: 1 + Double(flushes) / 8))
            }
            rest = rest.dropFirst(count)
            flushes += 1
            try await recorder.flush()
        }
    }

    /// Each file of the tail directory (name, size, CRC-32) and each chunk row (times as bit patterns).
    static func digest(_ store: SessionStore) async throws -> [String] {
        let directory = store.tailDirectory
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let files = try names.map { name in
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + name)))
            return "\(name) \(bytes.count) \(String(CRC32.checksum(bytes), radix: 16))"
        }
        let rows = try await store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sample_chunks ORDER BY session_id, chunk").map { row in
                let times = ["first_time", "time_step", "last_time"].map {
                    String((row[$0] as Double).bitPattern, radix: 16)
                }
                let data: Data = row["data"]
                let file: String? = row["file"]
                return "\(row["chunk"] as Int64) \(row["first_index"] as Int64) \(row["sample_count"] as Int64) "
                    + "\(times.joined(separator: " ")) \(row["codec_version"] as Int) \(data.count) \(file ?? "-")"
            }
        }
        let others = try await store.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.id, s.ended_at, s.end_reason, s.received_count, COUNT(e.sequence) AS events,
                        MAX(e.sequence) AS last
                    FROM sessions s LEFT JOIN events e ON e.session_id = s.id GROUP BY s.id ORDER BY s.id
                    """
            ).map { row in
                "\(row["id"] as String) \(row["ended_at"] as Double) \(row["end_reason"] as String) "
                    + "\(row["received_count"] as Int64) \(row["events"] as Int64) \(row["last"] as Int64)"
            }
        }
        return files + rows + others
    }

    @Test("seeded recordings become the same chunk files and rows, byte for byte")
    func pinned() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let configuration = SessionRecorder<ContinuousClock>.Configuration(chunkLength: 500)
        let samples = Self.samples(count: 2300, seed: 30)
        do {
            let store = try SessionStore.open(at: temporary.stateDirectory)
            let finished = try await store.createSession(
                NewSession(
                    id: Self.finished, settings: DetectionSettings(profile: .tableTennis), startedAt: Self.started))
            let first = try await store.recorder(for: finished, configuration: configuration, clock: ContinuousClock())
            try await Self.feed(first, samples[..<1320], seed: 1)
            // A second recorder continues the open segment the first left.
            let second = try await store.recorder(for: finished, configuration: configuration, clock: ContinuousClock())
            try await Self.feed(second, samples[1320...], seed: 2)
            try await second.finish(reason: .stopped, endedAt: Self.started.addingTimeInterval(30))

            let crashed = try await store.createSession(
                NewSession(id: Self.crashed, settings: DetectionSettings(profile: .jump), startedAt: Self.started))
            let recorder = try await store.recorder(
                for: crashed, configuration: configuration, clock: ContinuousClock())
            try await Self.feed(recorder, samples[..<1130], seed: 3)
            // No finish: the process "dies"; the next open registers the open segment.
            try store.close()
        }
        let store = try SessionStore.open(at: temporary.stateDirectory)
        #expect(store.recoveredSessions == [Self.crashed])
        #expect(sameSamples(try await store.samples(of: Self.finished), samples))
        #expect(sameSamples(try await store.samples(of: Self.crashed), samples[..<1130]))
        let digest = try await Self.digest(store)
        #expect(digest == Self.expected, "\(digest)")
    }

    /// What the recorder wrote (commit 4e0b817) while the open chunk still kept its samples in memory.
    static let expected: [String] = [
        "0b1ec7ed-0000-4000-8000-00000000000a.0.tail 2538 bdc54209",
        "0b1ec7ed-0000-4000-8000-00000000000a.1.tail 2509 a69b27fe",
        "0b1ec7ed-0000-4000-8000-00000000000a.2.tail 2511 75dda37c",
        "0b1ec7ed-0000-4000-8000-00000000000a.3.tail 2507 6d5ac189",
        "0b1ec7ed-0000-4000-8000-00000000000a.4.tail 1532 a98f38ee",
        "0b1ec7ed-0000-4000-8000-00000000000b.0.tail 2580 e6ca9dcb",
        "0b1ec7ed-0000-4000-8000-00000000000b.1.tail 2594 d99674a3",
        "0b1ec7ed-0000-4000-8000-00000000000b.2.tail 709 87fe54f2",
        "0 1 500 3f847bedb7281fda 3f847a92eb8e7e3a 4014519e731d2e0e 3 0 0b1ec7ed-0000-4000-8000-00000000000a.0.tail",
        "1 509 500 40145bdad7518b0d 3f847aa7d4ebab5a 402499554fbdad75 3 0 0b1ec7ed-0000-4000-8000-00000000000a.1.tail",
        "2 1031 500 40249e74d1633483 3f847ab0bbb084ce 402ef5668c261390 3 0 0b1ec7ed-0000-4000-8000-00000000000a.2.tail",
        "3 1549 500 402efa85caafbc1b 3f847aa909503dfb 4034bd347a5b0ff1 3 0 0b1ec7ed-0000-4000-8000-00000000000a.3.tail",
        "4 2075 300 4034bfc3504c48ae 3f847acae90e938a 4037de7839cd8128 3 0 0b1ec7ed-0000-4000-8000-00000000000a.4.tail",
        "0 1 500 3f847bedb7281fda 3f847a92eb8e7e3a 4014519e731d2e0e 3 0 0b1ec7ed-0000-4000-8000-00000000000b.0.tail",
        "1 509 500 40145bdad7518b0d 3f847aa7d4ebab5a 402499554fbdad75 3 0 0b1ec7ed-0000-4000-8000-00000000000b.1.tail",
        "2 1031 130 40249e74d1633483 3f847a570e471de9 40274c7735c182ed 3 0 0b1ec7ed-0000-4000-8000-00000000000b.2.tail",
        // A second recorder counts only what it received (980 of 2300), as before.
        "0b1ec7ed-0000-4000-8000-00000000000a 1700000030.0 stopped 980 7 6",
        "0b1ec7ed-0000-4000-8000-00000000000b 1700000011.6493468 interrupted 1130 4 3",
    ]
}
