// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// Where the daemon listens and keeps its data, resolved by one set of rules that `sportsensord`
/// and `sportsensorctl` share, so a client always looks where the daemon is.
///
/// The control socket: `--socket`, else `$SPORTSENSOR_SOCKET`, else `$RUNTIME_DIRECTORY/control.sock`
/// (systemd's `RuntimeDirectory=`), else `/run/sportsensord/control.sock` when that directory exists
/// (the service is installed), else `$XDG_RUNTIME_DIR/sportsensord.sock`, else
/// `/tmp/sportsensord-UID.sock`.
///
/// The state directory: `--state-dir`, else `$SPORTSENSOR_STATE_DIR`, else `$STATE_DIRECTORY`
/// (systemd's `StateDirectory=`), else `/var/lib/sportsensord` when it exists, else
/// `$XDG_DATA_HOME/sportsensord`, else `~/.local/share/sportsensord`.
///
/// The system directories count when they exist, writable or not: a member of the daemon's
/// group reads the daemon's store instead of a new empty one of its own, and a process that may
/// not write there gets an error naming the directory rather than a silent second store.
public struct GatewayPaths: Sendable {
    /// Which rule chose a path.
    public enum Rule: String, Hashable, Sendable {
        /// `--socket` or `--state-dir`.
        case commandLine = "command line"
        /// `SPORTSENSOR_SOCKET` or `SPORTSENSOR_STATE_DIR`.
        case environment
        /// systemd's `RUNTIME_DIRECTORY` or `STATE_DIRECTORY`.
        case systemd
        /// The installed service's directory under `/run` or `/var/lib`.
        case system
        /// The user's XDG runtime or data directory.
        case user
        /// `/tmp`, when nothing else applies.
        case temporary
    }

    /// A path and the rule that chose it.
    public struct Resolved: Hashable, Sendable, CustomStringConvertible {
        /// The path.
        public var path: String
        /// The rule that chose it.
        public var rule: Rule

        /// Creates a resolved path.
        public init(path: String, rule: Rule) {
            self.path = path
            self.rule = rule
        }

        /// `path (rule)`.
        public var description: String { "\(path) (\(rule.rawValue))" }
    }

    /// Overrides the control socket.
    public static let socketVariable = "SPORTSENSOR_SOCKET"
    /// Overrides the state directory.
    public static let stateDirectoryVariable = "SPORTSENSOR_STATE_DIR"
    /// The installed service's runtime directory (`RuntimeDirectory=sportsensord`).
    public static let systemRuntimeDirectory = "/run/sportsensord"
    /// The installed service's state directory (`StateDirectory=sportsensord`).
    public static let systemStateDirectory = "/var/lib/sportsensord"
    /// The socket's name in a runtime directory systemd made for the daemon.
    public static let socketFileName = "control.sock"
    /// The socket's name in a user's `XDG_RUNTIME_DIR`.
    public static let userSocketFileName = "sportsensord.sock"

    /// The environment the rules read.
    public var environment: [String: String]
    /// The user whose `/tmp` socket is the last resort.
    public var userID: UInt32
    /// Whether a path is an existing directory; injectable for tests.
    public var isDirectory: @Sendable (String) -> Bool

    /// The rules over this process's environment and file system.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        userID: UInt32 = UInt32(getuid()),
        isDirectory: @escaping @Sendable (String) -> Bool = GatewayPaths.directoryExists
    ) {
        self.environment = environment
        self.userID = userID
        self.isDirectory = isDirectory
    }

    /// The control socket.
    public func controlSocket(option: String? = nil) -> Resolved {
        if let option, !option.isEmpty { return Resolved(path: option, rule: .commandLine) }
        if let path = value(Self.socketVariable) { return Resolved(path: path, rule: .environment) }
        if let directory = firstSystemdDirectory("RUNTIME_DIRECTORY") {
            return Resolved(path: Self.join(directory, Self.socketFileName), rule: .systemd)
        }
        if isDirectory(Self.systemRuntimeDirectory) {
            return Resolved(path: Self.join(Self.systemRuntimeDirectory, Self.socketFileName), rule: .system)
        }
        if let runtime = absolute("XDG_RUNTIME_DIR") {
            return Resolved(path: Self.join(runtime, Self.userSocketFileName), rule: .user)
        }
        return Resolved(path: "/tmp/sportsensord-\(userID).sock", rule: .temporary)
    }

    /// The state directory (the session database lives in it).
    public func stateDirectory(option: String? = nil) -> Resolved {
        if let option, !option.isEmpty { return Resolved(path: option, rule: .commandLine) }
        if let path = value(Self.stateDirectoryVariable) { return Resolved(path: path, rule: .environment) }
        if let directory = firstSystemdDirectory("STATE_DIRECTORY") { return Resolved(path: directory, rule: .systemd) }
        if isDirectory(Self.systemStateDirectory) { return Resolved(path: Self.systemStateDirectory, rule: .system) }
        // XDG Base Directory: a relative XDG_DATA_HOME is invalid and must be ignored.
        let dataHome =
            absolute("XDG_DATA_HOME")
            ?? Self.join(value("HOME") ?? NSHomeDirectory(), ".local/share")
        return Resolved(path: Self.join(dataHome, "sportsensord"), rule: .user)
    }

    /// True when `path` is an existing directory.
    public static func directoryExists(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private func value(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    private func absolute(_ name: String) -> String? {
        value(name).flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    /// systemd lists several directories separated by colons when a unit asks for several: the
    /// first is the daemon's.
    private func firstSystemdDirectory(_ name: String) -> String? {
        value(name)?.split(separator: ":").first.map(String.init)
    }

    private static func join(_ directory: String, _ name: String) -> String {
        (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/" + name
    }
}
