// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

/// `[replication] postgres_url`, parsed: `postgres://user:password@host:port/database?sslmode=…`
/// (`postgresql://` too). A Unix socket directory goes in `host=/run/postgresql` among the query
/// parameters, as libpq takes it. The password is kept out of every description (`redacted`).
public struct PostgresURL: Hashable, Sendable, CustomStringConvertible {
    /// libpq's `sslmode` values this client honours (Docs/REPLICATION.md).
    public enum SSLMode: String, CaseIterable, Hashable, Sendable {
        /// Plain TCP only.
        case disable
        /// TLS when the server offers it, without verifying the certificate (libpq's default).
        case prefer
        /// TLS always, without verifying the certificate.
        case require
        /// TLS always; the certificate must chain to `sslrootcert` (or the system's roots).
        case verifyCA = "verify-ca"
        /// As verify-ca, and the certificate must name the host.
        case verifyFull = "verify-full"
    }

    /// Host name or address; nil with a socket directory.
    public var host: String?
    /// The Unix socket directory (`host=/dir` in the query).
    public var socketDirectory: String?
    /// TCP port, also naming the socket file (`.s.PGSQL.<port>`).
    public var port: Int
    /// The role.
    public var user: String
    /// The password; never printed.
    public var password: String?
    /// The database.
    public var database: String
    /// TLS policy.
    public var sslMode: SSLMode
    /// CA certificates (PEM) for verify-ca / verify-full; nil uses the system's.
    public var sslRootCertificate: String?

    /// The socket file when a socket directory is given.
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// Parses `text`; the error says which part is wrong (never echoing the password).
    public init(parsing text: String) throws(ReplicationError) {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw ReplicationError(
                .badConfiguration, "postgres_url is not a postgres:// URL",
                fix: "write it as postgres://user:password@host:5432/database?sslmode=verify-full")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let allowed: Set<String> = ["sslmode", "sslrootcert", "host", "port", "user", "password", "dbname"]
        if let unknown = query.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ReplicationError(
                .badConfiguration, "postgres_url has the unsupported parameter '\(unknown)'",
                fix: "use only \(allowed.sorted().joined(separator: ", "))")
        }
        let hostText = query["host"] ?? components.percentEncodedHost.flatMap { $0.removingPercentEncoding }
        if let hostText, hostText.hasPrefix("/") {
            socketDirectory = hostText
            host = nil
        } else {
            host = (hostText?.isEmpty ?? true) ? "localhost" : hostText
        }
        let portValue = query["port"].flatMap { Int($0) } ?? components.port ?? 5432
        guard (1...65_535).contains(portValue) else {
            throw ReplicationError(
                .badConfiguration, "postgres_url's port \(portValue) is out of range", fix: "give 1–65535")
        }
        port = portValue
        user = query["user"] ?? components.user ?? ""
        guard !user.isEmpty else {
            throw ReplicationError(
                .badConfiguration, "postgres_url names no user", fix: "write postgres://USER:password@host/database")
        }
        password = query["password"] ?? components.password
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        database = query["dbname"] ?? (path.isEmpty ? user : path)
        let mode = query["sslmode"] ?? "prefer"
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw ReplicationError(
                .badConfiguration, "sslmode '\(mode)' is not supported",
                fix: "use \(SSLMode.allCases.map(\.rawValue).joined(separator: ", ")) (allow is not: it would "
                    + "fall back to plain text silently)")
        }
        self.sslMode = sslMode
        sslRootCertificate = query["sslrootcert"]
    }

    /// The URL with the password replaced by `***`: what logs, errors and status show.
    public var redacted: String {
        var text = "postgres://\(user)\(password == nil ? "" : ":***")@"
        if let host { text += host.contains(":") ? "[\(host)]" : host }
        text += ":\(port)/\(database)"
        var parameters: [String] = []
        if let socketDirectory { parameters.append("host=\(socketDirectory)") }
        parameters.append("sslmode=\(sslMode.rawValue)")
        if let sslRootCertificate { parameters.append("sslrootcert=\(sslRootCertificate)") }
        return text + "?" + parameters.joined(separator: "&")
    }

    /// Same as `redacted`.
    public var description: String { redacted }
}
