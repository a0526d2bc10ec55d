// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Foundation
import SessionStore

/// `sportsensorctl store`: looking after the session database itself.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Look after the session database.",
        subcommands: [StoreCheckCommand.self, StoreBackupCommand.self]
    )
}

/// `sportsensorctl store check`: SQLite's quick check of every page, read-only.
struct StoreCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the session database for damage (reads every page; changes nothing).",
        discussion: """
            Runs SQLite's quick_check over the whole file through a read-only connection, so it \
            works while the daemon records and on a directory it may only read. Exits with 0 when \
            no damage is found, 65 when some is (with SQLite's first findings and what to do), \
            66 when there is no database yet.
            """
    )

    @OptionGroup var state: StateDirectoryOptions

    func run() async throws {
        try await reportingFailures {
            let path = state.directory.databasePath
            guard FileManager.default.fileExists(atPath: path) else {
                throw CommandFailure.noInput(
                    "no session database at \(path): the daemon creates it on its first start; "
                        + "check --state-dir or $SPORTSENSOR_STATE_DIR")
            }
            let store = try state.openStoreReadOnly()
            try await store.quickCheck()
            StoreFormat.write("ok: \(path): no damage found\n")
        }
    }
}
