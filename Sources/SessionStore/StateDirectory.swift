// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// Where sportsensord keeps its state (the session database): `--state-dir`, else
/// `SPORTSENSOR_STATE_DIR`, else `/var/lib/sportsensord` when that exists and is writable, else
/// `$XDG_DATA_HOME/sportsensord` (XDG's default `~/.local/share`).
public struct StateDirectory: Hashable, Sendable, CustomStringConvertible {
    /// Which rule chose the directory.
    public enum Source: String, Hashable, Sendable {
        /// `--state-dir` on the command line.
        case commandLine
        /// The `SPORTSENSOR_STATE_DIR` environment variable.
        case environment
        /// The system directory `/var/lib/sportsensord`.
        case system
        /// The user's XDG data directory.
        case xdgData
    }

    /// The environment variable that overrides the default.
    public static let environmentVariable = "SPORTSENSOR_STATE_DIR"
    /// The system-wide directory, used when it exists and is writable.
    public static let systemPath = "/var/lib/sportsensord"
    /// The database's file name inside the directory.
    public static let databaseFileName = "sportsensord.sqlite"

    /// The directory, absolute or as given.
    public var path: String
    /// Which rule chose it.
    public var source: Source

    /// A directory chosen explicitly.
    public init(path: String, source: Source = .commandLine) {
        self.path = path
        self.source = source
    }

    /// Applies the rules in order. `environment` and `isWritableDirectory` are injectable for tests.
    public static func resolve(
        commandLine: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isWritableDirectory: (String) -> Bool = StateDirectory.isWritableDirectory
    ) -> StateDirectory {
        if let commandLine, !commandLine.isEmpty { return StateDirectory(path: commandLine, source: .commandLine) }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            return StateDirectory(path: fromEnvironment, source: .environment)
        }
        if isWritableDirectory(systemPath) { return StateDirectory(path: systemPath, source: .system) }
        // XDG Base Directory: a relative XDG_DATA_HOME is invalid and must be ignored.
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.local/share"
        }
        return StateDirectory(path: dataHome + "/sportsensord", source: .xdgData)
    }

    /// The session database inside the directory.
    public var databasePath: String {
        (path.hasSuffix("/") ? String(path.dropLast()) : path) + "/" + Self.databaseFileName
    }

    /// Creates the directory (and its parents) when missing.
    public func create() throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw StoreError(
                .permission,
                "cannot create the state directory \(path): create it with write permission for this user, or "
                    + "choose another with --state-dir or \(Self.environmentVariable)",
                path: path, cause: error)
        }
    }

    /// True when `path` is an existing directory this process may write into.
    public static func isWritableDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return false
        }
        return FileManager.default.isWritableFile(atPath: path)
    }

    /// `path (source)`.
    public var description: String { "\(path) (\(source.rawValue))" }
}
