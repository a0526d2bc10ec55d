// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

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

    /// The path.
    public var description: String { path }
}
