// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Testing
import VirtualSensor

#if canImport(Glibc)
import Glibc
#endif

/// Every file the CLI writes checks its writes: `--output` and standard output on a full disk
/// (a filled tmpfs, `/dev/full`) exit 74 with the fix, and `--output` never leaves a partial file.
@Suite("sportsensorctl output on a full disk", .serialized)
struct OutputFailureTests {
    static var executable: String { BuiltProducts.path(of: "sportsensorctl") ?? "sportsensorctl (not built)" }

    /// Runs sportsensorctl with standard output going to `standardOutput` (a file or a device).
    static func run(
        _ arguments: [String], standardOutput: String, standardInput: String? = nil
    ) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = try #require(FileHandle(forWritingAtPath: standardOutput))
        let errors = Pipe()
        process.standardOutput = out
        process.standardError = errors
        process.standardInput =
            try standardInput.map { try #require(FileHandle(forReadingAtPath: $0)) }
            ?? FileHandle.nullDevice
        try process.run()
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? out.close()
        return (process.terminationStatus, String(decoding: text, as: UTF8.self))
    }

    /// A state directory holding one imported session; returns its id.
    static func importedSession(in directory: TemporaryStateDirectory) async throws -> String {
        let path = try directory.write("tt.csv", Array(StoreFixtures.simulatedCSV(.tableTennis, seconds: 60).utf8))
        let imported = try await runCommand(
            executable, ["import", path, "--profile", "table-tennis", "--state-dir", directory.path])
        #expect(imported.status == 0, "\(imported)")
        return imported.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("export --output /dev/full and > /dev/full exit 74 saying the disk is full; analyze too")
    func devFull() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let id = try await Self.importedSession(in: directory)
        let state = ["--state-dir", directory.path]

        let toDevice = try await runCommand(
            Self.executable, ["export", id, "--format", "csv", "--output", "/dev/full"] + state)
        #expect(toDevice.status == 74, "\(toDevice)")
        #expect(toDevice.standardError.contains("the disk is full"), "\(toDevice)")

        let redirected = try Self.run(["export", id, "--format", "csv"] + state, standardOutput: "/dev/full")
        #expect(redirected.status == 74, "\(redirected.stderr)")
        #expect(redirected.stderr.contains("cannot write standard output: the disk is full"), "\(redirected.stderr)")

        // Standard error full too: nowhere to say it, but the status still does (no trap).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["export", id, "--format", "csv"] + state
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 74)

        let csv = directory.path + "/tt.csv"
        let analyzed = try Self.run(["analyze", "--profile", "table-tennis", csv], standardOutput: "/dev/full")
        #expect(analyzed.status == 74, "\(analyzed.stderr)")
    }

    @Test("on a filled file system: --output exits 74 and leaves no file; > file exits 74")
    func filledFileSystem() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let id = try await Self.importedSession(in: directory)
        let state = ["--state-dir", directory.path]
        let disk = try await SmallFileSystem.mount(at: directory.path + "/small", megabytes: 1, mode: "0755")
        defer { disk.unmount() }
        let small = disk.path
        // Leave 64 kB: less than the export (about 6 000 samples, over 200 kB).
        try disk.fill("filler", leaving: 65_536)

        let output = small + "/session.csv"
        let exported = try await runCommand(
            Self.executable, ["export", id, "--format", "csv", "--output", output] + state)
        #expect(exported.status == 74, "\(exported)")
        #expect(exported.standardError.contains("the disk is full"), "\(exported)")
        #expect(!exported.standardError.contains("check that its directory exists"), "\(exported)")
        let left = try FileManager.default.contentsOfDirectory(atPath: small)
        #expect(left == ["filler"], "no partial export, no temporary file: \(left)")

        let target = small + "/redirected.csv"
        _ = FileManager.default.createFile(atPath: target, contents: nil)
        let redirected = try Self.run(["export", id, "--format", "csv"] + state, standardOutput: target)
        #expect(redirected.status == 74, "\(redirected.stderr)")
        #expect(redirected.stderr.contains("the disk is full"), "\(redirected.stderr)")
    }

    @Test("users add and store backup on a filled file system: exit 74 naming the fix, nothing partial left")
    func usersAndBackup() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        _ = try await Self.importedSession(in: directory)
        let disk = try await SmallFileSystem.mount(at: directory.path + "/small", megabytes: 1, mode: "0755")
        defer { disk.unmount() }
        let users = disk.path + "/dashboard-users.json"
        let password = try directory.write("password", Array("a-long-enough-password\n".utf8))
        let added = try Self.run(
            ["users", "add", "ada", "--users-file", users, "--password-stdin"], standardOutput: "/dev/null",
            standardInput: password)
        #expect(added.status == 0, "\(added.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: users))
        try disk.fill("filler")

        let full = try Self.run(
            ["users", "add", "ben", "--users-file", users, "--password-stdin"], standardOutput: "/dev/null",
            standardInput: password)
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("the disk is full") && full.stderr.contains("free space"), "\(full.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: users)) == before, "the old accounts file is intact")

        let backup = try await runCommand(
            Self.executable, ["store", "backup", disk.path + "/backup", "--state-dir", directory.path])
        #expect(backup.status == 74, "\(backup)")
        #expect(backup.standardError.contains("is full"), "\(backup)")
        #expect(backup.standardError.contains("back up to another disk"), "\(backup)")
        let copied = (try? FileManager.default.contentsOfDirectory(atPath: disk.path + "/backup")) ?? []
        #expect(copied.isEmpty, "no partial backup: \(copied)")
        let left = try FileManager.default.contentsOfDirectory(atPath: disk.path).sorted()
        #expect(
            left == ["backup", "dashboard-users.json", "filler"] || left == ["dashboard-users.json", "filler"],
            "\(left)")
    }
}
