// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Foundation
import SessionStore

/// `sportsensorctl store backup DIR`: a consistent copy of the store, its chunk files included.
struct StoreBackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the session database and its chunk files into a new directory (works while recording).",
        discussion: """
            Recorded samples live in files under sportsensord.sqlite-tail/ that the database's rows \
            name, so a copy of the database file alone (cp, sqlite3 .backup) has sessions without \
            their samples. This copies one snapshot of the database (SQLite's online backup, \
            read-only, next to the daemon) with every file that snapshot names and the open tails \
            of live sessions, into DIR/sportsensord.sqlite and DIR/sportsensord.sqlite-tail/. DIR \
            is created; one that holds a store already is refused. Restore: Docs/OPERATIONS.md.
            """
    )

    @OptionGroup var state: StateDirectoryOptions

    @Argument(help: ArgumentHelp("The directory to create the copy in.", valueName: "dir"))
    var destination: String

    func run() async throws {
        try await reportingFailures {
            let path = state.directory.databasePath
            guard FileManager.default.fileExists(atPath: path) else {
                throw CommandFailure.noInput(
                    "no session database at \(path): check --state-dir or $SPORTSENSOR_STATE_DIR")
            }
            let store = try state.openStoreReadOnly()
            let result = try await store.backup(to: destination)
            try store.close()
            var summary =
                "backed up \(path) to \(result.databasePath) with \(result.chunkFiles) chunk file(s) and "
                + "\(result.tailSegments) open tail segment(s), \(result.bytes) bytes\n"
            if result.chunksPruned > 0 {
                summary += "note: \(result.chunksPruned) chunk(s) pruned while copying are not in the backup\n"
            }
            StoreFormat.write(summary)
        }
    }
}
