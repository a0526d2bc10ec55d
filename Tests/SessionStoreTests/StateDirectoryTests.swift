// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SessionStore
import Testing

@Suite("State directory")
struct StateDirectoryTests {
    @Test("create() makes the directory and its parents; an impossible one is a permission error")
    func create() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let nested = StateDirectory(path: temporary.path + "/a/b")
        try nested.create()
        #expect(FileManager.default.isWritableFile(atPath: nested.path))
        let mode = try FileManager.default.attributesOfItem(atPath: nested.path)[.posixPermissions] as? Int
        #expect(mode == 0o750, "the athletes' data: owner and group only, whatever the umask")
        #expect(nested.databasePath == nested.path + "/sportsensord.sqlite")
        let file = temporary.path + "/plain"
        #expect(throws: Never.self) { try "x".write(toFile: file, atomically: true, encoding: .utf8) }
        #expect { try StateDirectory(path: file + "/sub").create() } throws: { error in
            (error as? StoreError)?.code == .permission
        }
    }
}
