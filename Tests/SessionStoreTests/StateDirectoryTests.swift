// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SessionStore
import Testing

@Suite("State directory resolution")
struct StateDirectoryTests {
    @Test("--state-dir wins over the environment and the defaults")
    func commandLine() {
        let directory = StateDirectory.resolve(
            commandLine: "/srv/x", environment: ["SPORTSENSOR_STATE_DIR": "/env"], isWritableDirectory: { _ in true })
        #expect(directory == StateDirectory(path: "/srv/x", source: .commandLine))
        #expect(directory.databasePath == "/srv/x/sportsensord.sqlite")
    }

    @Test("SPORTSENSOR_STATE_DIR wins over the defaults")
    func environment() {
        let directory = StateDirectory.resolve(
            environment: ["SPORTSENSOR_STATE_DIR": "/env/", "HOME": "/home/a"], isWritableDirectory: { _ in true })
        #expect(directory.source == .environment)
        #expect(directory.databasePath == "/env/sportsensord.sqlite")
    }

    @Test("/var/lib/sportsensord when it exists and is writable")
    func system() {
        let directory = StateDirectory.resolve(
            environment: ["HOME": "/home/a"], isWritableDirectory: { $0 == "/var/lib/sportsensord" })
        #expect(directory == StateDirectory(path: "/var/lib/sportsensord", source: .system))
    }

    @Test("else XDG_DATA_HOME, else ~/.local/share; a relative XDG_DATA_HOME is ignored")
    func xdg() {
        let never: (String) -> Bool = { _ in false }
        #expect(
            StateDirectory.resolve(
                environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/a"], isWritableDirectory: never)
                == StateDirectory(path: "/data/sportsensord", source: .xdgData))
        #expect(
            StateDirectory.resolve(environment: ["HOME": "/home/a"], isWritableDirectory: never).path
                == "/home/a/.local/share/sportsensord")
        #expect(
            StateDirectory.resolve(
                environment: ["XDG_DATA_HOME": "rel", "HOME": "/home/a/"], isWritableDirectory: never
            )
            .path == "/home/a/.local/share/sportsensord")
    }

    @Test("create() makes the directory and its parents; an impossible one is a permission error")
    func create() throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let nested = StateDirectory(path: temporary.path + "/a/b")
        try nested.create()
        #expect(StateDirectory.isWritableDirectory(nested.path))
        let file = temporary.path + "/plain"
        #expect(throws: Never.self) { try "x".write(toFile: file, atomically: true, encoding: .utf8) }
        #expect { try StateDirectory(path: file + "/sub").create() } throws: { error in
            (error as? StoreError)?.code == .permission
        }
    }
}
