// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Testing
import VirtualSensor

/// Every file the CLI creates in the store is 0640 and every directory 0750, under the usual
/// umask 022 (the daemon sets its own umask; the CLI runs under the user's).
@Suite("sportsensorctl: modes of the files it creates in the store")
struct StoreFileModeTests {
    @Test(
        "offline import into a new directory, then users add, under umask 022: database, lock, chunk files and accounts file 0640, directories 0750"
    )
    func importModes() async throws {
        let executable = try #require(BuiltProducts.path(of: "sportsensorctl"))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let csv = try directory.write("walk.csv", Array(StoreFixtures.simulatedCSV(.tableTennis, seconds: 30).utf8))
        let state = directory.path + "/new/state"
        // umask is per process: set in the child's shell, never in the test runner.
        let imported = try await runCommand(
            "/bin/sh",
            [
                "-c",
                "umask 022 && \"$0\" import \"$1\" --profile table-tennis --state-dir \"$2\" && "
                    + "echo coach-password | exec \"$0\" users add coach --role coach --password-stdin --state-dir \"$2\"",
                executable, csv, state,
            ])
        #expect(imported.status == 0, "\(imported)")

        var seen = 0
        let enumerator = try #require(FileManager.default.enumerator(atPath: state))
        var paths = [state]
        while let relative = enumerator.nextObject() as? String { paths.append(state + "/" + relative) }
        for path in paths {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let mode = attributes[.posixPermissions] as? Int
            if attributes[.type] as? FileAttributeType == .typeDirectory {
                #expect(mode == 0o750, "\(path) is \(String(mode ?? 0, radix: 8))")
            } else {
                #expect(mode == 0o640, "\(path) is \(String(mode ?? 0, radix: 8))")
                seen += 1
            }
        }
        #expect(paths.contains(state + "/sportsensord.sqlite"))
        #expect(paths.contains(state + "/dashboard-users.json"))
        #expect(seen >= 2, "the database and its lock at least: \(paths)")
    }
}
