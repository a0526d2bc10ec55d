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
