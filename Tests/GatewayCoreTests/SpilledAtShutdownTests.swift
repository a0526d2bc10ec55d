// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import Logging
import NIOConcurrencyHelpers
import SessionStore
import Testing

/// An end the store could take nowhere at the stop, which shutdown's last attempt spills: the
/// database's disk is still full, but the tail segments' is not (each is its own small tmpfs, so
/// which write fails does not depend on what a file's last block has left).
@Suite("Gateway: an end spilled at shutdown", .serialized, .timeLimit(.minutes(5)))
struct SpilledAtShutdownTests {
    @Test("shutdown spills the end a stop could not store: the exit says spilled and the log calls nothing lost")
    func spilledEndIsNotLost() async throws {
        let temporary = NSTemporaryDirectory() + "spilled-end-\(UUID().uuidString.prefix(8))"
        let state = try await SmallFileSystem.mount(at: temporary + "/state", megabytes: 16)
        let tail = try await SmallFileSystem.mount(at: state.path + "/sportsensord.sqlite-tail", megabytes: 4)
        defer {
            tail.unmount()
            state.unmount()
            try? FileManager.default.removeItem(atPath: temporary)
        }
        let log = CapturedLog()
        let bench = try GatewayBench(
            scripts: [.jumps], directory: state.path, logger: Logger(label: "test.gateway") { _ in log })
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        let started = try await bench.gateway.startSession(StartSessionRequest(sensor: "virtual-1"))
        try await bench.drive(for: 2)
        // No spill reserve and both disks full: the stop can neither store nor spill the end.
        for name in try FileManager.default.contentsOfDirectory(atPath: tail.path) where name.hasPrefix("spill.reserve")
        {
            try FileManager.default.removeItem(atPath: tail.path + "/" + name)
        }
        try state.fill("filler")
        try tail.fill("filler")
        #expect(
            try await bench.drive(step: 1, upTo: 60) {
                try await bench.gateway.status().storeDegradedSessions == 1
            }, "the session is degraded once both disks are full")
        try await bench.drive(for: 2)
        await GatewayBench.expectControlError(.unavailable) {
            try await bench.gateway.stopSession(id: started.id)
        }
        #expect(log.contains("cannot save the session's last rows, nor spill them"))

        // Room for the tail segment only (the clock stands still: no periodic retry runs). The
        // last attempt stores the rows in the segment, cannot close the session in the database,
        // and spills the end.
        try FileManager.default.removeItem(atPath: tail.path + "/filler")
        running.cancel()
        var exit: UnsavedShutdownError?
        do { try await running.value } catch let error as UnsavedShutdownError { exit = error }
        #expect(exit?.code == .spilled, "\(String(describing: exit))")
        #expect(log.contains("spilled its unsaved rows to a recovery file"))
        #expect(!log.contains("could be neither saved nor spilled"), "nothing was lost: \(log.messages)")
    }
}

/// Every message logged through it, for a test to read.
final class CapturedLog: LogHandler, Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    var messages: [String] { lines.withLockedValue { $0 } }

    func contains(_ text: String) -> Bool { lines.withLockedValue { $0.contains { $0.contains(text) } } }

    func log(event: LogEvent) {
        lines.withLockedValue { $0.append("\(event.level) \(event.message)") }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { nil }
        set {}
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }
}
