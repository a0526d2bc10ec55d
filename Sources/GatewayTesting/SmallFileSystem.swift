// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted on a directory: a real file system that a test can fill, so that every
/// write fails with ENOSPC as on a full SD card. Mounting needs root (as CI and the build machine
/// run the tests); `mount` says so otherwise.
public struct SmallFileSystem: Sendable {
    /// Where it is mounted.
    public let path: String

    /// Mounts a tmpfs of `megabytes` on `path`, creating the directory; `mode` is its root's mode.
    public static func mount(at path: String, megabytes: Int, mode: String = "0750") async throws -> SmallFileSystem {
        guard geteuid() == 0 else {
            throw ProcessHarnessError(
                "this test mounts a small tmpfs to fill a real file system: run the tests as root (make test does in CI)"
            )
        }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try await runCommand(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=\(mode)", "tmpfs", path])
        guard mounted.status == 0 else { throw ProcessHarnessError("mount -t tmpfs on \(path): \(mounted)") }
        return SmallFileSystem(path: path)
    }

    /// Unmounts it (lazily: a file a crashed child left open does not keep it mounted).
    public func unmount() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        process.arguments = ["-l", path]
        try? process.run()
        process.waitUntilExit()
    }

    /// Writes the file `name` (relative to the mount) until the file system has no byte left,
    /// then gives `leaving` bytes back by truncating it. Returns the bytes it holds.
    @discardableResult
    public func fill(_ name: String, leaving: Int = 0) throws -> Int {
        try Self.fill(path + "/" + name, leaving: leaving)
    }

    /// Writes `file` until its file system has no byte left, then gives `leaving` bytes back.
    /// Returns the bytes it holds.
    @discardableResult
    public static func fill(_ file: String, leaving: Int = 0) throws -> Int {
        guard FileManager.default.createFile(atPath: file, contents: nil),
            let handle = FileHandle(forWritingAtPath: file)
        else { throw ProcessHarnessError("cannot create \(file) to fill its file system") }
        defer { try? handle.close() }
        var written = 0
        for size in [1 << 20, 4096, 1] {
            let block = Data(repeating: 0xA5, count: size)
            while (try? handle.write(contentsOf: block)) != nil { written += size }
        }
        if leaving > 0 {
            written = max(0, written - leaving)
            try handle.truncate(atOffset: UInt64(written))
        }
        return written
    }
}
