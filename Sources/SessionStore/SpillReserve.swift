// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import Logging
import NIOConcurrencyHelpers
import SystemCalls
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Disk space held back for spilling: `<database>-tail/spill.reserve.N`, a few files allocated
/// (not just sized) while the disk has room. When the disk fills, a recorder that cannot close its
/// session in the database releases one of them and writes what it still holds into its tail
/// segment (Docs/FORMATS.md, "Tail segments"), so a full disk does not also take the last seconds
/// of every session. One slot per spill: whatever else grabs the freed space (the database, other
/// sessions' retries) leaves the other slots for the sessions that end later.
///
/// Beside the slots, `loss-note.reserve` (64 kB) is never taken by a spill: when even a spill
/// fails, it is given back so that the recorder can write the few bytes that count the loss and
/// keep the session's end (`SessionRecorder.noteLoss`).
final class SpillReserve: Sendable {
    /// The slot files.
    let paths: [String]
    /// Bytes per slot.
    let slotBytes: Int
    /// The file held for notes of losses.
    let notePath: String
    /// Bytes held for notes: a block per session is plenty for a note of a few dozen bytes.
    static let noteBytes = 64 << 10
    private let logger: Logger
    private let held: NIOLockedValueBox<[Bool]>
    private let noteHeld = NIOLockedValueBox(false)

    /// `bytes` in all, in `slots` files.
    init(directory: TailDirectory, bytes: Int, slots: Int = 4, logger: Logger) {
        let slots = max(1, slots)
        paths = (0..<slots).map { directory.path + "/spill.reserve.\($0)" }
        notePath = directory.path + "/loss-note.reserve"
        slotBytes = max(0, bytes) / slots
        self.logger = logger
        held = NIOLockedValueBox(Array(repeating: false, count: slots))
    }

    /// True while the space for notes is held.
    var isNoteSpaceHeld: Bool { noteHeld.withLockedValue { $0 } }

    /// Gives the space held for notes back to the file system, for the note of a loss. Returns
    /// whether it was held.
    @discardableResult
    func releaseNoteSpace() -> Bool {
        noteHeld.withLockedValue { held -> Bool in
            guard held else { return false }
            _ = syscall("unlink") { unlink(notePath) }
            held = false
            logger.warning(
                "released the space reserved for noting a loss: the disk is full",
                metadata: ["store.path": "\(notePath)"])
            return true
        }
    }

    /// Holds the space for notes again after a note: as much of ``noteBytes`` as the disk still has
    /// (whole 4 kB blocks), so a disk that is still full keeps what the note did not use.
    func reholdNoteSpace() {
        noteHeld.withLockedValue { held in
            guard !held else { return }
            let directory = String(notePath[..<(notePath.lastIndex(of: "/") ?? notePath.endIndex)])
            var info = statvfs()
            guard case .success = syscall("statvfs", { statvfs(directory, &info) }) else { return }
            let available = Int(info.f_bavail) * Int(info.f_frsize)
            let bytes = min(Self.noteBytes, available) / 4096 * 4096
            if bytes > 0 { held = allocate(notePath, bytes: bytes) }
        }
    }

    /// Slots held now.
    var heldSlots: Int { held.withLockedValue { $0.filter { $0 }.count } }
    /// True while any space is held.
    var isHeld: Bool { heldSlots > 0 }

    /// Allocates every slot not held; logs when the disk has no room for one. Returns whether all
    /// are held now.
    @discardableResult
    func renew() -> Bool {
        guard slotBytes > 0 else { return false }
        let note = noteHeld.withLockedValue { held -> Bool in
            if !held { held = allocate(notePath, bytes: Self.noteBytes) }
            return held
        }
        return held.withLockedValue { held -> Bool in
            for index in held.indices where !held[index] { held[index] = allocate(paths[index], bytes: slotBytes) }
            return held.allSatisfy { $0 }
        } && note
    }

    private func allocate(_ path: String, bytes: Int) -> Bool {
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
        return true
    }

    /// Gives one slot's space back to the file system, for a spill. Returns whether there was one.
    @discardableResult
    func release() -> Bool {
        held.withLockedValue { held -> Bool in
            guard let index = held.lastIndex(of: true) else { return false }
            _ = syscall("unlink") { unlink(paths[index]) }
            held[index] = false
            logger.warning(
                "released space reserved for spilling: the disk is full",
                metadata: ["store.path": "\(paths[index])", "store.reserve_slots_left": "\(held.filter { $0 }.count)"])
            return true
        }
    }
}
