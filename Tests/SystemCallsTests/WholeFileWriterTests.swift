// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SystemCalls
import SystemPackage
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Whole-file writes")
struct WholeFileWriterTests {
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wfw-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("a file is written whole, through a temporary name that is gone afterwards")
    func written() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = Array(repeating: UInt8(ascii: "x"), count: 300_000)
        let result = WholeFileWriter.replace(directory + "/out.csv", with: bytes)
        #expect((try? result.get()) != nil)
        #expect(FileManager.default.contents(atPath: directory + "/out.csv") == Data(bytes))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.csv"])
    }

    @Test("an owner given is set on the temporary file, before the rename: the file has it when it appears")
    func owner() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/users.json"
        let result = WholeFileWriter.replace(path, with: [1, 2, 3], mode: 0o640, owner: (getuid(), getgid()))
        #expect((try? result.get()) != nil)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_uid == getuid() && status.st_gid == getgid())
        #expect(status.st_mode & 0o777 & ~0o640 == 0, "no more than 0640")
        let script = SyscallScript(["fchown": [.fails(.notPermitted)]])
        let refused = SyscallScript.$current.withValue(script) {
            WholeFileWriter.replace(path, with: [9], mode: 0o640, owner: (0, 0))
        }
        #expect(refused.failure == WholeFileWriter.Failure(call: "fchown", errno: .notPermitted))
        #expect(FileManager.default.contents(atPath: path) == Data([1, 2, 3]), "the old file stays")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["users.json"])
    }

    @Test("a full disk mid-write fails with ENOSPC and leaves the old file as it was, no temporary file")
    func diskFull() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/out.csv"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        let script = SyscallScript(["write": [.returns(10), .fails(.noSpace)]])
        let result = SyscallScript.$current.withValue(script) {
            WholeFileWriter.replace(path, with: Array(repeating: 7, count: 100))
        }
        guard case .failure(let failure) = result else {
            Issue.record("a failed write reported success")
            return
        }
        #expect(failure == WholeFileWriter.Failure(call: "write", errno: .noSpace))
        #expect(failure.isDiskFull)
        #expect(FileManager.default.contents(atPath: path) == Data("old\n".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["out.csv"])
    }

    @Test("a failing fsync is reported too; a file that cannot be created is not a write error")
    func fsyncAndOpen() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = SyscallScript(["fsync": [.fails(.ioError)]])
        let result = SyscallScript.$current.withValue(script) {
            WholeFileWriter.replace(directory + "/a", with: [1, 2, 3])
        }
        #expect(result.failure == WholeFileWriter.Failure(call: "fsync", errno: .ioError))
        #expect(!FileManager.default.fileExists(atPath: directory + "/a"))
        let missing = WholeFileWriter.replace(directory + "/no/such/dir/a", with: [1])
        #expect(missing.failure?.call == "open")
        #expect(missing.failure?.isWriteError == false)
    }

    @Test("a device is written in place: /dev/full is a full disk, /dev/null takes everything")
    func devices() {
        #expect(WholeFileWriter.replace("/dev/full", with: [1, 2, 3]).failure?.isDiskFull == true)
        #expect(WholeFileWriter.replace("/dev/null", with: [1, 2, 3]).failure == nil)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
