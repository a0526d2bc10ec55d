// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Testing
import VirtualSensor

extension StoreProcessTests {
    @Test("store backup copies a store that reads the same; a second backup into the directory is refused")
    func backup() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: DecodeProcessTests.executable.path))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let csv = StoreFixtures.simulatedCSV(.jumps, seconds: 10)
        let path = try directory.write("jump.csv", Array(csv.utf8))
        let imported = try await run(["import", path, "--profile", "jump"], state: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = imported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let destination = directory.path + "/backup"
        let backup = try await run(["store", "backup", destination], state: directory)
        #expect(backup.status == 0 && backup.stdout.hasPrefix("backed up "), "\(backup)")
        #expect(FileManager.default.fileExists(atPath: destination + "/sportsensord.sqlite"))
        let original = try await run(["export", id, "--format", "csv"], state: directory)
        let copy = try await process.run(["export", id, "--format", "csv", "--state-dir", destination])
        #expect(copy.status == 0 && copy.stdout == original.stdout && !copy.stdout.isEmpty)

        let again = try await run(["store", "backup", destination], state: directory)
        #expect(again.status != 0 && again.stderr.contains("exists already"), "\(again)")
    }
}
