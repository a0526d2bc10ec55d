// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// Where the control socket is: `--socket`, else `SPORTSENSOR_SOCKET`, else
/// `$RUNTIME_DIRECTORY/control.sock` (systemd's `RuntimeDirectory=`), else
/// `/run/sportsensord/control.sock` when that directory is writable, else
/// `$XDG_RUNTIME_DIR/sportsensord.sock`, else `/tmp/sportsensord-UID.sock`.
public enum ControlSocketPath {
    /// The environment variable that overrides the default.
    public static let environmentVariable = "SPORTSENSOR_SOCKET"
    /// The system-wide runtime directory.
    public static let systemDirectory = "/run/sportsensord"

    /// Applies the rules in order; `environment` and `isWritableDirectory` are injectable for tests.
    public static func resolve(
        commandLine: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        isWritableDirectory: (String) -> Bool = ControlSocketPath.isWritableDirectory,
        userID: UInt32 = UInt32(getuid())
    ) -> String {
        if let commandLine, !commandLine.isEmpty { return commandLine }
        if let value = environment[environmentVariable], !value.isEmpty { return value }
        if let runtime = environment["RUNTIME_DIRECTORY"], !runtime.isEmpty {
            // systemd may list several directories separated by colons: the first is ours.
            let first = runtime.split(separator: ":").first.map(String.init) ?? runtime
            return first + "/control.sock"
        }
        if isWritableDirectory(systemDirectory) { return systemDirectory + "/control.sock" }
        if let xdg = environment["XDG_RUNTIME_DIR"], xdg.hasPrefix("/") { return xdg + "/sportsensord.sock" }
        return "/tmp/sportsensord-\(userID).sock"
    }

    /// True when `path` is an existing directory this process may write into.
    public static func isWritableDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return false
        }
        return FileManager.default.isWritableFile(atPath: path)
    }
}
