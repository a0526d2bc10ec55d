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
    static func run(_ arguments: [String], standardOutput: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = try #require(FileHandle(forWritingAtPath: standardOutput))
        let errors = Pipe()
        process.standardOutput = out
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
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

        let csv = directory.path + "/tt.csv"
        let analyzed = try Self.run(["analyze", "--profile", "table-tennis", csv], standardOutput: "/dev/full")
        #expect(analyzed.status == 74, "\(analyzed.stderr)")
    }

    @Test("on a filled file system: --output exits 74 and leaves no file; > file exits 74")
    func filledFileSystem() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        try #require(geteuid() == 0, "this test mounts a small tmpfs: run the tests as root (make test does in CI)")
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let id = try await Self.importedSession(in: directory)
        let state = ["--state-dir", directory.path]
        let small = directory.path + "/small"
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        let mounted = try await runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", small])
        try #require(mounted.status == 0, "mount -t tmpfs: \(mounted)")
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: ["-l", small]).waitUntilExit() }
        // Leave 64 kB: less than the export (about 6 000 samples, over 200 kB).
        _ = FileManager.default.createFile(atPath: small + "/filler", contents: nil)
        let filler = try #require(FileHandle(forWritingAtPath: small + "/filler"))
        try filler.write(contentsOf: Data(count: 1_048_576 - 65_536))
        try filler.close()

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
}
