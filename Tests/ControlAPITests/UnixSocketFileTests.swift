// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SystemCalls
import SystemPackage
import Testing

@testable import ControlAPI

@Suite("control socket file: errno paths through the syscall wrapper")
struct UnixSocketFileTests {
    @Test("an interrupted lstat is retried; a missing path is ready to bind")
    func interruptedLstatRetried() throws {
        let path = ControlServerHarness.temporarySocketPath()
        defer { ControlServerHarness.removeDirectory(of: path) }
        let script = SyscallScript(["lstat": [.fails(.interrupted)]])
        try SyscallScript.$current.withValue(script) { try UnixSocketFile.prepare(path: path) }
        #expect(script.calls.filter { $0 == "lstat" } == ["lstat", "lstat"])
    }

    @Test("a path that cannot be inspected is socketPathUnusable, with the errno as cause")
    func lstatFailure() throws {
        let path = ControlServerHarness.temporarySocketPath()
        defer { ControlServerHarness.removeDirectory(of: path) }
        let script = SyscallScript(["lstat": [.fails(.permissionDenied)]])
        let error = #expect(throws: ControlServerError.self) {
            try SyscallScript.$current.withValue(script) { try UnixSocketFile.prepare(path: path) }
        }
        #expect(error?.code == .socketPathUnusable)
        #expect(error?.cause as? Errno == .permissionDenied)
        #expect(error?.message.contains(path) == true)
    }

    @Test("a directory that cannot be created names the directory and the fix")
    func mkdirFailure() {
        let path = ControlServerHarness.temporarySocketPath()
        let directory = (path as NSString).deletingLastPathComponent
        // "/tmp" exists (EEXIST is fine); the socket's own directory then fails.
        let script = SyscallScript(["mkdir": [.fails(.fileExists), .fails(.readOnlyFileSystem)]])
        let error = #expect(throws: ControlServerError.self) {
            try SyscallScript.$current.withValue(script) { try UnixSocketFile.prepare(path: path) }
        }
        #expect(error?.code == .socketPathUnusable)
        #expect(error?.cause as? Errno == .readOnlyFileSystem)
        #expect(error?.message.contains(directory) == true)
        #expect(error?.message.contains("RuntimeDirectory=sportsensord") == true)
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test("a stale socket that cannot be removed is refused and left in place")
    func unlinkFailure() throws {
        let path = ControlServerHarness.temporarySocketPath()
        defer { ControlServerHarness.removeDirectory(of: path) }
        try makeStaleSocket(at: path)
        let script = SyscallScript(["unlink": [.fails(.notPermitted)]])
        let error = #expect(throws: ControlServerError.self) {
            try SyscallScript.$current.withValue(script) { try UnixSocketFile.prepare(path: path) }
        }
        #expect(error?.code == .socketPathUnusable)
        #expect(error?.cause as? Errno == .notPermitted)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("a probe whose socket cannot be opened reports the errno instead of guessing")
    func probeSocketFailure() throws {
        let path = ControlServerHarness.temporarySocketPath()
        defer { ControlServerHarness.removeDirectory(of: path) }
        try makeStaleSocket(at: path)
        let script = SyscallScript(["socket": [.fails(.tooManyOpenFiles)]])
        let probe = SyscallScript.$current.withValue(script) { UnixSocketFile.probe(path: path) }
        #expect(probe == .failed(.tooManyOpenFiles))
        let error = #expect(throws: ControlServerError.self) {
            try SyscallScript.$current.withValue(SyscallScript(["socket": [.fails(.tooManyOpenFiles)]])) {
                try UnixSocketFile.prepare(path: path)
            }
        }
        #expect(error?.code == .socketPathUnusable)
        #expect(error?.cause as? Errno == .tooManyOpenFiles)
    }

    @Test("chmod and chown failures become one warning, not an error")
    func restrictFailures() throws {
        let path = ControlServerHarness.temporarySocketPath()
        defer { ControlServerHarness.removeDirectory(of: path) }
        try makeStaleSocket(at: path)
        let group = try primaryGroupName()
        let script = SyscallScript([
            "chmod": [.fails(.readOnlyFileSystem)], "stat": [.fails(.permissionDenied)],
            "chown": [.fails(.notPermitted)],
        ])
        let restriction = SyscallScript.$current.withValue(script) {
            UnixSocketFile.restrict(path: path, mode: 0o660, group: group)
        }
        #expect(!restriction.groupApplied)
        #expect(restriction.problem?.contains("cannot chmod \(path)") == true)
        #expect(restriction.problem?.contains("cannot give \(path) to group \(group)") == true)
    }

    @Test("a socket that already has the group (the unit runs as it) needs no chown, which the unit's filter forbids")
    func alreadyTheGroup() throws {
        let path = ControlServerHarness.temporarySocketPath()
        defer { ControlServerHarness.removeDirectory(of: path) }
        try makeStaleSocket(at: path)
        let script = SyscallScript(["chown": [.fails(.notPermitted)]])
        let restriction = SyscallScript.$current.withValue(script) {
            UnixSocketFile.restrict(path: path, mode: 0o660, group: try? primaryGroupName())
        }
        #expect(restriction.groupApplied)
        #expect(restriction.problem == nil)
        #expect(!script.calls.contains("chown"))
    }
}
