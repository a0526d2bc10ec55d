// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Logging
import Synchronization
import SystemCalls
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Disk space held back for spilling: `<database>-tail/spill.reserve`, allocated (not just sized)
/// while the disk has room. When the disk fills, a recorder that cannot close its session in the
/// database releases it and writes what it still holds into its tail segment (Docs/FORMATS.md,
/// "Tail segments"), so a full disk does not also take the last seconds of every session.
final class SpillReserve: Sendable {
    /// The reserve file.
    let path: String
    /// Bytes to hold.
    let bytes: Int
    private let logger: Logger
    private let held = Mutex(false)

    init(directory: TailDirectory, bytes: Int, logger: Logger) {
        path = directory.path + "/spill.reserve"
        self.bytes = bytes
        self.logger = logger
    }

    /// True while the space is held.
    var isHeld: Bool { held.withLock { $0 } }

    /// Allocates the reserve when it is not held; logs (once per call) when the disk has no room
    /// for it. Returns whether it is held now.
    @discardableResult
    func renew() -> Bool {
        guard bytes > 0 else { return false }
        return held.withLock { held -> Bool in
            if held { return true }
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
            _ = syscall("mkdir") { mkdir(directory, 0o750) }
            let descriptor: Int32
            switch syscall("open", { open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o640) }) {
            case .success(let opened): descriptor = opened
            case .failure(let errno):
                logger.warning(
                    "cannot reserve space for spilling unsaved samples (\(errno))", metadata: ["store.path": "\(path)"])
                return false
            }
            defer { _ = syscall("close", retryingOnEINTR: false) { close(descriptor) } }
            // posix_fallocate returns the error instead of setting errno.
            let result = posix_fallocate(descriptor, 0, off_t(bytes))
            guard result == 0 else {
                _ = syscall("unlink") { unlink(path) }
                logger.warning(
                    "cannot reserve \(bytes) bytes for spilling unsaved samples (\(Errno(rawValue: result)))",
                    metadata: ["store.path": "\(path)"])
                return false
            }
            held = true
            return true
        }
    }

    /// Gives the space back to the file system, for a spill. Returns whether there was any.
    @discardableResult
    func release() -> Bool {
        held.withLock { held -> Bool in
            guard held else { return false }
            _ = syscall("unlink") { unlink(path) }
            held = false
            logger.warning(
                "released the space reserved for spilling: the disk is full", metadata: ["store.path": "\(path)"])
            return true
        }
    }
}
