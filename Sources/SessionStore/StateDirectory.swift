// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The directory sportsensord keeps its state in (the session database). Which directory that is
/// follows `ControlProtocol.GatewayPaths`, the rules the daemon and its clients share; the store
/// only needs the path.
public struct StateDirectory: Hashable, Sendable, CustomStringConvertible {
    /// The database's file name inside the directory.
    public static let databaseFileName = "sportsensord.sqlite"

    /// The directory, absolute or as given.
    public var path: String

    /// The directory at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The session database inside the directory.
    public var databasePath: String {
        (path.hasSuffix("/") ? String(path.dropLast()) : path) + "/" + Self.databaseFileName
    }

    /// Creates the directory (and its parents) when missing, mode 0750: the sessions are the
    /// athletes' data, readable by the owner's group (`sportsensor`) and nobody else.
    public func create() throws(StoreError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        } catch {
            throw StoreError(
                .permission,
                "cannot create the state directory \(path): create it with write permission for this user, or "
                    + "choose another with --state-dir or SPORTSENSOR_STATE_DIR",
                path: path, cause: error)
        }
    }

    /// What `secure()` found.
    public enum Securing: Hashable, Sendable {
        /// Nobody but the owner can write in it.
        case isPrivate
        /// It was writable by its group or others, with this mode; it is 0750 now.
        case tightened(from: Int)
    }

    /// Makes sure only its owner can change the store: a directory the group or others can write
    /// (0777, 0775) that this user owns is set to 0750; one that is shared (sticky, such as /tmp's
    /// 1777) or owned by another user is refused, since anyone who can write there can swap the
    /// database or the spill files.
    public func secure() throws(StoreError) -> Securing {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw StoreError(
                .permission, "cannot read the state directory \(path): create it, or choose another with --state-dir",
                path: path)
        }
        let mode = Int(status.st_mode & 0o7777)
        guard mode & 0o022 != 0 else { return .isPrivate }
        let octal = String(mode, radix: 8)
        guard mode & 0o1000 == 0, status.st_uid == geteuid() else {
            throw StoreError(
                .permission,
                "the state directory \(path) is writable by other users (mode \(octal)) and shared or not ours: give "
                    + "sportsensord a directory of its own with --state-dir (e.g. /var/lib/sportsensord), or "
                    + "chmod 0750 this one as its owner",
                path: path)
        }
        guard chmod(path, 0o750) == 0 else {
            throw StoreError(
                .permission,
                "the state directory \(path) is writable by other users (mode \(octal)) and cannot be tightened: "
                    + "chmod 0750 it, or choose another with --state-dir",
                path: path)
        }
        return .tightened(from: mode)
    }

    /// The path.
    public var description: String { path }
}
