// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// Where `sportsensord` listens: its Unix socket (the default) or a TCP address with a bearer
/// token.
enum ControlEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The control socket at this path.
    case unixSocket(path: String)
    /// `http://host:port`, with the token the daemon's config requires on TCP.
    case tcp(baseURL: String, token: String?)

    /// The path or URL, for messages.
    var description: String {
        switch self {
        case .unixSocket(let path): path
        case .tcp(let baseURL, _): baseURL
        }
    }

    /// The URL of `uri` (a path with its query) on this endpoint.
    func url(for uri: String) -> URL? {
        switch self {
        case .unixSocket(let path): return URL(httpURLWithSocketPath: path, uri: uri)
        case .tcp(let baseURL, _):
            let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            return URL(string: base + uri)
        }
    }
}

/// The control socket's path, resolved as the daemon resolves it (Docs/API.md).
enum ControlSocketPath {
    /// The environment variable that overrides the default.
    static let environmentVariable = "SPORTSENSOR_SOCKET"
    /// Where the systemd unit's daemon listens (its `RuntimeDirectory=`).
    static let systemPath = "/run/sportsensord/control.sock"
    /// The socket's name in `$XDG_RUNTIME_DIR` when the daemon runs as a user.
    static let userSocketName = "sportsensord.sock"

    /// `--socket`, else `$SPORTSENSOR_SOCKET`, else the system socket when its directory exists
    /// (the service is installed), else `$XDG_RUNTIME_DIR/sportsensord.sock` (an absolute
    /// `XDG_RUNTIME_DIR` only, as the XDG spec requires), else the system socket.
    static func resolve(
        option: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        directoryExists: (String) -> Bool = ControlSocketPath.directoryExists
    ) -> String {
        if let option, !option.isEmpty { return option }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty { return fromEnvironment }
        let systemDirectory = String(systemPath[..<systemPath.lastIndex(of: "/")!])
        if directoryExists(systemDirectory) { return systemPath }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/" + userSocketName
        }
        return systemPath
    }

    /// True when `path` is a directory.
    static func directoryExists(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
