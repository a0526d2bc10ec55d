import NIOConcurrencyHelpers
// SPDX-License-Identifier: GPL-2.0-or-later
import SystemCalls
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory `flock` next to the database. Every process holds it shared while the store is
/// open; crash recovery needs it exclusive, so it runs only when no other process has the store
/// open (a process killed with SIGKILL loses its lock with its file descriptors).
///
/// `release()` (from `SessionStore.close()`) lets go at once: a store closed in this process must
/// not look open to the next opener because something still references the closed store.
final class StoreLock: Sendable {
    private let descriptor: NIOLockedValueBox<Int32?>

    init(path: String) throws(StoreError) {
        switch syscall("open", { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640) }) {
        case .success(let opened):
            descriptor = NIOLockedValueBox(opened)
        case .failure(let errno):
            throw StoreError(
                .permission,
                "cannot create the lock file \(path) (\(errno)): check the state directory's permissions",
                path: path, cause: errno)
        }
    }

    /// Takes the lock exclusively if nobody holds it. False when another process holds it
    /// (`EWOULDBLOCK`) and on any other failure: without the exclusive lock recovery is skipped,
    /// which is the safe side.
    func tryExclusive() -> Bool {
        descriptor.withLockedValue { descriptor in
            guard let descriptor else { return false }
            if case .success = syscall("flock", { flock(descriptor, LOCK_EX | LOCK_NB) }) { return true }
            return false
        }
    }

    /// Holds the lock shared (converting an exclusive hold), waiting out a recovery in progress.
    func holdShared() {
        guard let descriptor = descriptor.withLockedValue({ $0 }) else { return }
        _ = syscall("flock") { flock(descriptor, LOCK_SH) }
    }

    /// Lets go of the lock (closing its descriptor); later calls do nothing.
    func release() {
        guard
            let descriptor = descriptor.withLockedValue({ value -> Int32? in
                defer { value = nil }; return value
            })
        else {
            return
        }
        _ = syscall("close", retryingOnEINTR: false) { close(descriptor) }
    }

    deinit {
        release()
    }
}
