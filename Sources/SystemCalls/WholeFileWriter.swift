// SPDX-License-Identifier: GPL-2.0-or-later
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files whole or not at all, and says why not: every `write` is checked (short writes
/// continue, `ENOSPC` and `EIO` are reported), and a regular file is written under a temporary
/// name in its own directory, flushed with `fsync` and renamed over the target only at the end,
/// so a failed or interrupted write never leaves a partial file that looks complete.
public enum WholeFileWriter {
    /// A failed write: the call that failed and its `errno`.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The system call, as the manual spells it (`open`, `write`, `fsync`, `rename`).
        public var call: String
        public var errno: Errno

        public init(call: String, errno: Errno) {
            self.call = call
            self.errno = errno
        }

        /// The file system (or the user's quota) has no room left.
        public var isDiskFull: Bool { errno == .noSpace || errno == .diskQuotaExceeded }

        /// The data could not be written once the file was open: a full disk or an I/O error,
        /// as opposed to a file that could not be created.
        public var isWriteError: Bool { isDiskFull || call == "write" || call == "fsync" || errno == .ioError }

        public var description: String { "\(call): \(errno.description)" }
    }

    /// Writes all of `bytes` to `descriptor`, continuing after short writes.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Result<Void, Failure> {
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            switch syscall("write", { write(descriptor, rest.baseAddress, rest.count) }) {
            case .success(let written):
                // write(2) returns 0 only for a zero-length request; never spin on it.
                guard written > 0 else { return .failure(Failure(call: "write", errno: .noSpace)) }
                offset += written
            case .failure(let error): return .failure(Failure(call: "write", errno: error))
            }
        }
        return .success(())
    }

    /// Writes all of `bytes` to `descriptor`.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Result<Void, Failure> {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// Replaces `path` with `bytes`. A regular (or not yet existing) file is written as
    /// `.NAME.tmp-PID` beside it, `fsync`ed and renamed over it, and the directory is `fsync`ed so
    /// the rename survives a crash; on any failure the temporary file is removed and `path` is as
    /// it was. A path that is not a regular file (a device such as `/dev/stdout`, a FIFO) is
    /// written in place. New files get `mode` less the umask, and `owner` (user and group ids)
    /// before the rename when given, so no reader ever sees the file with another owner.
    public static func replace(
        _ path: String, with bytes: [UInt8], mode: mode_t = 0o666, owner: (user: uid_t, group: gid_t)? = nil
    ) -> Result<Void, Failure> {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o170000 != 0o100000 {  // S_IFMT, S_IFREG
            return writeInPlace(path, bytes)
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = (directory == "/" ? "" : directory) + "/." + name + ".tmp-\(getpid())"
        let descriptor: Int32
        switch syscall("open", { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }) {
        case .success(let opened): descriptor = opened
        case .failure(let error): return .failure(Failure(call: "open", errno: error))
        }
        var result = writeAll(bytes, to: descriptor)
        if case .success = result, let owner,
            case .failure(let error) = syscall("fchown", { fchown(descriptor, owner.user, owner.group) })
        {
            result = .failure(Failure(call: "fchown", errno: error))
        }
        if case .success = result, case .failure(let error) = syscall("fsync", { fsync(descriptor) }) {
            result = .failure(Failure(call: "fsync", errno: error))
        }
        if case .failure(let error) = syscall("close", retryingOnEINTR: false, { close(descriptor) }),
            case .success = result
        {
            result = .failure(Failure(call: "close", errno: error))
        }
        if case .success = result, case .failure(let error) = syscall("rename", { rename(temporary, path) }) {
            result = .failure(Failure(call: "rename", errno: error))
        }
        guard case .success = result else {
            unlink(temporary)
            return result
        }
        if case .success(let directoryDescriptor) = syscall("open", { open(directory, O_RDONLY | O_DIRECTORY) }) {
            _ = syscall("fsync", { fsync(directoryDescriptor) })
            close(directoryDescriptor)
        }
        return .success(())
    }

    private static func writeInPlace(_ path: String, _ bytes: [UInt8]) -> Result<Void, Failure> {
        let descriptor: Int32
        switch syscall("open", { open(path, O_WRONLY | O_CLOEXEC) }) {
        case .success(let opened): descriptor = opened
        case .failure(let error): return .failure(Failure(call: "open", errno: error))
        }
        defer { close(descriptor) }
        return writeAll(bytes, to: descriptor)
    }
}
