// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import HummingbirdBcrypt
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// The dashboard's accounts on disk: `dashboard-users.json` in the state directory, JSON, mode
/// 0640, owned like the directory (the daemon's user) even when root writes it.
///
/// A file, not a store table: `sportsensorctl users` must work while the daemon runs and holds
/// the store's lock, the accounts are access configuration rather than training data (a restored
/// or pruned store must not bring back a removed coach), and the daemon rereads the file when it
/// changes, so a removed account or a new password ends its sessions at once.
public struct DashboardUsersFile: Sendable {
    /// The file's name inside the state directory.
    public static let fileName = "dashboard-users.json"

    /// The file's path.
    public var path: String

    /// The file at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The users file in `stateDirectory`.
    public init(stateDirectory: String) {
        self.path =
            (stateDirectory.hasSuffix("/") ? String(stateDirectory.dropLast()) : stateDirectory) + "/"
            + Self.fileName
    }

    private struct Contents: Codable {
        var version: Int
        var users: [DashboardUser]
    }

    /// The accounts; none when the file does not exist yet.
    public func load() throws(DashboardUsersError) -> DashboardUserList {
        guard FileManager.default.fileExists(atPath: path) else { return DashboardUserList() }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw DashboardUsersError(
                .unreadable, "cannot read \(path): run as the daemon's user or root (sudo)", cause: error)
        }
        do {
            let contents = try JSONDecoder().decode(Contents.self, from: data)
            return DashboardUserList(users: contents.users)
        } catch {
            throw DashboardUsersError(
                .unreadable,
                "\(path) is not a dashboard users file: restore it from a backup or move it away and add the "
                    + "users again", cause: error)
        }
    }

    /// Writes `list` whole or not at all (`WholeFileWriter`: a temporary file, synced, renamed over
    /// the old one), so a reader sees the old file or the new one and a full disk leaves the old
    /// one in place.
    public func save(_ list: DashboardUserList) throws(DashboardUsersError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let data: Data
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
            data = try encoder.encode(Contents(version: 1, users: list.users))
        } catch {
            throw DashboardUsersError(
                .unwritable, "cannot write \(path): run as the daemon's user or root (sudo)", cause: error)
        }
        // Root writes it for the daemon: the daemon's user (the directory's owner) must read it.
        var owner: (user: uid_t, group: gid_t)?
        var status = stat()
        if geteuid() == 0, stat(directory, &status) == 0 { owner = (status.st_uid, status.st_gid) }
        guard case .failure(let failure) = WholeFileWriter.replace(path, with: Array(data), mode: 0o640, owner: owner)
        else { return }
        if failure.isDiskFull {
            throw DashboardUsersError(
                .diskFull,
                "cannot write \(path): the disk is full (\(failure)): free space on it and run the command again; "
                    + "the file is as it was",
                cause: failure)
        }
        if failure.isWriteError {
            throw DashboardUsersError(
                .diskFull,
                "cannot write \(path) (\(failure)): check the disk and run the command again; the file is as it was",
                cause: failure)
        }
        throw DashboardUsersError(
            .unwritable, "cannot write \(path) (\(failure)): run as the daemon's user or root (sudo)", cause: failure)
    }

    /// Reads, changes and writes the list in one step.
    public func update(
        _ change: (inout DashboardUserList) throws(DashboardUsersError) -> Void
    )
        throws(DashboardUsersError)
    {
        var list = try load()
        try change(&list)
        try save(list)
    }
}

/// Password hashing for dashboard accounts (bcrypt, from hummingbird-auth).
public enum DashboardPassword {
    /// The bcrypt cost new hashes get: 2^11 rounds, about a quarter of a second on a Raspberry Pi 4,
    /// slow for a guesser, quick enough for a coach logging in.
    public static let defaultCost: UInt8 = 11

    /// The bcrypt hash of `password`.
    public static func hash(_ password: String, cost: UInt8 = defaultCost) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// True when `password` matches `hash`.
    public static func verify(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }
}
