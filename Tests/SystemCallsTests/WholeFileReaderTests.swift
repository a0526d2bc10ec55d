// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import SystemCalls
import SystemPackage
import Testing

/// `WholeFileReader.contents(of:)`: the whole file, nil for no file, and a failure naming the call and the
/// errno for a file that cannot be read.
@Suite("WholeFileReader")
struct WholeFileReaderTests {
    @Test("a file of 200 000 bytes (several reads) comes back whole; a missing one is nil; an empty one is empty")
    func wholeMissingEmpty() throws {
        let directory = NSTemporaryDirectory() + "reader-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/big"))
        try Data().write(to: URL(fileURLWithPath: directory + "/empty"))
        #expect(try WholeFileReader.contents(of: directory + "/big").get() == bytes)
        #expect(try WholeFileReader.contents(of: directory + "/missing").get() == nil)
        #expect(try WholeFileReader.contents(of: directory + "/empty").get() == [])
    }

    @Test("a directory in the file's place fails in read with EISDIR; a scripted EIO fails the same way")
    func unreadable() throws {
        let directory = NSTemporaryDirectory() + "reader-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory + "/segment", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: WholeFileReader.Failure(call: "read", errno: .isDirectory)) {
            try WholeFileReader.contents(of: directory + "/segment").get()
        }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: directory + "/file"))
        let script = SyscallScript(["read": [.fails(.ioError)]])
        SyscallScript.$current.withValue(script) {
            #expect(throws: WholeFileReader.Failure(call: "read", errno: .ioError)) {
                try WholeFileReader.contents(of: directory + "/file").get()
            }
        }
    }
}
