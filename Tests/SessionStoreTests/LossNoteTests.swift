// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GRDB
import GatewayTesting
import Testing

@testable import SessionStore
@testable import StoreFormats

/// A session's end that a full disk can take neither in the database nor in a recovery file: the
/// recorder notes the end and the samples it could not keep in the few bytes held for that, and
/// the next open closes the session as it ended, with that count, not as `interrupted` at its
/// last saved sample.
@Suite("Session store: a loss on a full disk is noted", .serialized)
struct LossNoteTests {
    @Test("neither saved nor spilled: the next open closes the session as stopped, at its end, with unsaved_samples")
    func notedLoss() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let disk = try await SmallFileSystem.mount(at: temporary.path + "/state", megabytes: 8)
        defer { disk.unmount() }
        let state = StateDirectory(path: disk.path)
        let store = try SessionStore.open(at: state, options: SessionStore.Options(spillReserveBytes: 1 << 20))
        let reserve = try #require(store.spillReserve)
        #expect(reserve.isNoteSpaceHeld)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .tableTennis)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 8192), clock: ContinuousClock())
        let samples = SyntheticMotion.training(count: 3000, seed: 3)
        recorder.record(samples: samples[..<1000])
        try await recorder.flush()

        // The spill reserve is used up and the disk is full: the other 2000 samples fit nowhere.
        for path in reserve.paths { try FileManager.default.removeItem(atPath: path) }
        try disk.fill("filler")
        recorder.record(samples: samples[1000...])
        let endedAt = session.startedAt.addingTimeInterval(30)
        var thrown: StoreError?
        do {
            try await recorder.finish(
                reason: .stopped, endedAt: endedAt, counts: SessionCounts(received: 3000, lost: 2, sampleRate: 100))
        } catch { thrown = error }
        let error = try #require(thrown, "finish must not report success")
        #expect(error.code != .spilled, "\(error)")
        #expect(recorder.statistics.bufferedSamples == 2000, "kept in memory for a retry")
        #expect(reserve.isNoteSpaceHeld, "what the note left of its space is held again for the next note")

        // The process ends before space returns; then space is freed and the store opened again.
        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        try store.close()
        let reopened = try SessionStore.open(at: state)
        defer { try? reopened.close() }
        #expect(reopened.recoveredSessions == [session.id])
        let stored = try await reopened.session(id: session.id)
        #expect(stored.endReason == .stopped, "the note's end, not interrupted")
        // The store keeps times to the millisecond.
        #expect(
            abs(try #require(stored.endedAt).timeIntervalSince(endedAt)) < 0.001,
            "as long as it was recorded, not up to its last saved sample")
        #expect(stored.unsavedSamples == 2000)
        #expect(stored.counts.received == 3000 && stored.counts.lost == 2)
        #expect(try await reopened.samples(of: session.id).count == 1000)
    }

    @Test("space returns before the process ends: the retried end stores every sample and counts none unsaved")
    func retriedEnd() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let disk = try await SmallFileSystem.mount(at: temporary.path + "/state", megabytes: 8)
        defer { disk.unmount() }
        let store = try SessionStore.open(
            at: StateDirectory(path: disk.path), options: SessionStore.Options(spillReserveBytes: 1 << 20))
        defer { try? store.close() }
        let reserve = try #require(store.spillReserve)
        let session = try await store.createSession(NewSession(settings: DetectionSettings(profile: .jump)))
        let recorder = try await store.recorder(
            for: session, configuration: .init(chunkLength: 8192), clock: ContinuousClock())
        let samples = SyntheticMotion.training(count: 3000, seed: 4)
        recorder.record(samples: samples[..<1000])
        try await recorder.flush()
        for path in reserve.paths { try FileManager.default.removeItem(atPath: path) }
        try disk.fill("filler")
        recorder.record(samples: samples[1000...])
        let endedAt = session.startedAt.addingTimeInterval(30)
        await #expect(throws: StoreError.self) {
            try await recorder.finish(reason: .stopped, endedAt: endedAt, counts: SessionCounts(received: 3000))
        }
        try FileManager.default.removeItem(atPath: disk.path + "/filler")
        let record = try await recorder.finish(
            reason: .stopped, endedAt: endedAt, counts: SessionCounts(received: 3000))
        #expect(record.unsavedSamples == 0)
        let stored = try await store.session(id: session.id)
        #expect(
            abs(try #require(stored.endedAt).timeIntervalSince(endedAt)) < 0.001,
            "the store keeps times to the millisecond")
        #expect(stored.endReason == .stopped && stored.unsavedSamples == 0)
        #expect(try await store.samples(of: session.id).count == 3000)
    }
}
