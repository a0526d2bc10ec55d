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

@Suite("State directory: writable by others")
struct StateDirectorySecuringTests {
    static func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test("0777 of our own is tightened to 0750 and says from what; 0750 is left alone")
    func tightened() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = StateDirectory(path: temporary.path + "/state")
        try directory.create()
        #expect(try directory.secure() == .isPrivate)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        #expect(try directory.secure() == .tightened(from: 0o777))
        #expect(try Self.mode(directory.path) == 0o750)
    }

    @Test("a shared sticky directory (1777, like /tmp) is refused with the fix, and left as it was")
    func sticky() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let directory = StateDirectory(path: temporary.path + "/shared")
        try directory.create()
        try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: directory.path)
        #expect {
            try directory.secure()
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .permission && error?.message.contains("--state-dir") == true
                && error?.message.contains("1777") == true
        }
        #expect(try Self.mode(directory.path) == 0o1777)
    }
}
