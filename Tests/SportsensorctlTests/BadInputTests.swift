// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Foundation
import GatewayTesting
import SessionStore
import Testing

@testable import sportsensorctl

/// Input that must not get into the store, and what the store holds that must not break a listing
/// or a terminal.
@Suite("sportsensorctl: bad input")
struct BadInputTests {
    static var executable: String { BuiltProducts.path(of: "sportsensorctl") ?? "sportsensorctl (not built)" }

    func importing(_ csv: String, _ extra: [String] = []) async throws -> (CommandResult, [SessionRecord]) {
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let path = try directory.write("bad.csv", Array(csv.utf8))
        let result = try await runCommand(
            Self.executable, ["import", "--state-dir", directory.path, "--profile", "steps", path] + extra)
        // Refused before the store was opened: there is no store, so nothing was stored.
        guard FileManager.default.fileExists(atPath: directory.stateDirectory.databasePath) else { return (result, []) }
        let store = try SessionStore.openReadOnly(at: directory.stateDirectory)
        defer { try? store.close() }
        return (result, try await store.sessions())
    }

    static func csv(times: [String]) -> String {
        "t,x,y,z\n" + times.map { "\($0),0.0,0.0,1.0\n" }.joined()
    }

    @Test("import refuses a time of 1e300 (which made every later listing trap): exit 65, nothing stored")
    func hugeTime() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let (result, sessions) = try await importing(Self.csv(times: ["0.00", "0.01", "1e300"]))
        #expect(result.status == 65, "\(result)")
        #expect(result.standardError.contains("sample 3's time t is 1e+300 s; it must be 0 s to 604800 s"), "\(result)")
        #expect(result.standardError.contains("seconds from the recording's start"), "\(result)")
        #expect(sessions.isEmpty)
    }

    @Test(
        "analyze reads a time of 1e300 as import does: exit 65 naming the sample and the range, with or without --summary"
    )
    func analyzeHugeTime() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let path = try directory.write("huge.csv", Array(Self.csv(times: ["0.00", "0.01", "1e300"]).utf8))
        for extra in [[], ["--summary"]] {
            let result = try await runCommand(Self.executable, ["analyze", "--profile", "steps", path] + extra)
            #expect(result.status == 65, "\(extra): \(result)")
            #expect(
                result.standardError.contains("sample 3's time t is 1e+300 s; it must be 0 s to 604800 s"), "\(result)")
            #expect(result.standardOutput.isEmpty, "\(result)")
        }
    }

    @Test("a btsnoop capture dated 2253 (a capture without a real clock) is stored as starting now, never in 2253")
    func captureOutOfRange() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        // A real session's capture, every record moved 230 years on.
        var capture = try BTSnoopCapture(parsing: SessionRecorderFixture.session(datalink: .linuxMonitor).capture)
        for index in capture.records.indices { capture.records[index].timestamp += 230 * 31_557_600 * 1_000_000 }
        let path = try directory.write(
            "future.btsnoop", try BTSnoopWriter.file(datalink: capture.datalink, records: capture.records))
        let state = directory.path + "/state"
        let before = Date()
        let result = try await runCommand(
            Self.executable, ["import", "--state-dir", state, "--profile", "table-tennis", path])
        #expect(result.status == 0, "\(result)")
        let store = try SessionStore.openReadOnly(at: StateDirectory(path: state))
        defer { try? store.close() }
        let sessions = try await store.sessions()
        #expect(sessions.count == 1)
        for session in sessions {
            #expect(StoredRanges.wallClock.problem(with: session.startedAt) == nil, "\(session.startedAt)")
            #expect(session.startedAt >= before.addingTimeInterval(-1) && session.startedAt <= Date())
        }
    }

    @Test("import refuses epoch times with the fix (subtract the first time, --started for the wall clock)")
    func epochTimes() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let (result, sessions) = try await importing(Self.csv(times: ["1732550000.00", "1732550000.01"]))
        #expect(result.status == 65, "\(result)")
        #expect(result.standardError.contains("subtract the first time"), "\(result)")
        #expect(result.standardError.contains("--started"), "\(result)")
        #expect(sessions.isEmpty)
    }

    @Test("import refuses an athlete name with a terminal escape before reading anything")
    func athleteName() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let (result, sessions) = try await importing(Self.csv(times: ["0.00", "0.01"]), ["--athlete", "\u{1B}[2J"])
        #expect(result.status == 64, "\(result)")
        #expect(result.standardError.contains("control character U+001B"), "\(result)")
        #expect(sessions.isEmpty)
    }

    @Test("durations past any real session print as -, never trap; tables show control characters escaped")
    func printing() {
        #expect(StoreFormat.duration(1e300) == "-")
        #expect(StoreFormat.duration(.nan) == "-")
        #expect(StoreFormat.duration(3723) == "1:02:03")
        #expect(TerminalText.escaped("\u{1B}[2Jann\u{07}a") == "\\u{1B}[2Jann\\u{7}a")
        #expect(TerminalText.escaped("Zoë") == "Zoë")
        var table = TextTable(["NAME"])
        table.append(["a\nb"])
        #expect(table.rendered == "NAME\na\\u{A}b\n")
        #expect(StoreFormat.table(header: ["N"], rows: [["\u{1B}c"]]).contains("\\u{1B}c"))
    }
}
