// SPDX-License-Identifier: GPL-2.0-or-later
import SystemCalls
import SystemPackage
import Testing

@testable import SessionStore

@Suite("store lock: flock through the syscall wrapper")
struct StoreLockTests {
    @Test("an interrupted flock is retried and then takes the lock")
    func interruptedFlockRetried() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lock = try StoreLock(path: directory.path + "/store.lock")
        let script = SyscallScript(["flock": [.fails(.interrupted)]])
        let exclusive = SyscallScript.$current.withValue(script) { lock.tryExclusive() }
        #expect(exclusive)
        #expect(script.calls == ["flock", "flock"])
    }

    @Test("a lock another open file holds (EWOULDBLOCK) is not taken, and not retried")
    func heldLockReported() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/store.lock"
        // flock belongs to the open file description, so a second open in this process competes
        // with the first exactly as another process would.
        let holder = try StoreLock(path: path)
        holder.holdShared()
        let other = try StoreLock(path: path)
        let script = SyscallScript([:])
        let exclusive = SyscallScript.$current.withValue(script) { other.tryExclusive() }
        #expect(!exclusive)
        #expect(script.calls == ["flock"])
        let scripted = SyscallScript(["flock": [.fails(.wouldBlock)]])
        #expect(!SyscallScript.$current.withValue(scripted) { holder.tryExclusive() })
    }

    @Test("a lock file that cannot be created is a permission error carrying the errno")
    func openFailure() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/store.lock"
        let script = SyscallScript(["open": [.fails(.interrupted), .fails(.permissionDenied)]])
        let error = #expect(throws: StoreError.self) {
            try SyscallScript.$current.withValue(script) { try StoreLock(path: path) }
        }
        #expect(error?.code == .permission)
        #expect(error?.path == path)
        #expect(error?.cause as? Errno == .permissionDenied)
        #expect(error?.message.contains(path) == true)
        #expect(script.calls == ["open", "open"])
    }
}
