// SPDX-License-Identifier: GPL-2.0-or-later
import TOMLKit

/// `[web]`: the coach's dashboard (Docs/DASHBOARD.md), on a listener of its own.
public struct WebConfiguration: Hashable, Sendable {
    /// The keys `[web]` takes.
    static let keys = ["listen", "tls_cert", "tls_key", "session_hours", "users_file", "trusted_proxies"]

    /// `listen`: `host:port`, e.g. `0.0.0.0:8080` for the hall's LAN.
    public var listen: TCPListenAddress
    /// `tls_cert`: a PEM certificate chain; with `tls_key`, the dashboard speaks HTTPS.
    public var tlsCertificate: String?
    /// `tls_key`: the PEM private key of `tls_cert`.
    public var tlsKey: String?
    /// `session_hours`: how long a login lasts (default 12: a training day).
    public var sessionHours: Int
    /// `users_file`: the accounts; nil is `dashboard-users.json` in the state directory.
    public var usersFile: String?
    /// `trusted_proxies`: reverse proxies (addresses or CIDR blocks) whose `X-Forwarded-For` names
    /// the client; empty (the default) never reads the header.
    public var trustedProxies: [IPAddressRange] = []

    /// The accepted `session_hours`.
    public static let sessionHoursRange = 1...168

    /// A dashboard on `listen`.
    public init(
        listen: TCPListenAddress, tlsCertificate: String? = nil, tlsKey: String? = nil, sessionHours: Int = 12,
        usersFile: String? = nil
    ) {
        self.listen = listen
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
        self.sessionHours = sessionHours
        self.usersFile = usersFile
    }
}

extension ConfigurationReader {
    /// Reads `[web]`; `listen` is required once the section exists.
    func readWeb(_ web: TOMLTable) throws(ConfigurationError) -> WebConfiguration {
        guard let text = try string(web, "web.listen") else {
            throw invalid(
                "web.listen", "[web] has no listen address",
                fix: "add listen = \"0.0.0.0:8080\" to serve the dashboard on the LAN, or remove [web]")
        }
        // Port 0 binds a free port, which the daemon logs (tests; never a fixed one).
        let anyPort =
            text.hasSuffix(":0") && text.count > 2 ? TCPListenAddress(host: String(text.dropLast(2)), port: 0) : nil
        guard let listen = TCPListenAddress(parsing: text) ?? anyPort else {
            throw invalid(
                "web.listen", "'\(text)' is not host:port",
                fix: "write it as \"0.0.0.0:8080\" (port 1–65535), or remove [web] to serve no dashboard")
        }
        var configuration = WebConfiguration(listen: listen)
        configuration.tlsCertificate = try path(web, "web.tls_cert")
        configuration.tlsKey = try path(web, "web.tls_key")
        if (configuration.tlsCertificate == nil) != (configuration.tlsKey == nil) {
            throw invalid(
                "web.tls_cert", "TLS needs both tls_cert and tls_key",
                fix: "give both PEM files (certificate chain and its key), or neither for plain HTTP")
        }
        if let hours = try integer(web, "web.session_hours") {
            guard WebConfiguration.sessionHoursRange.contains(hours) else {
                throw invalid(
                    "web.session_hours", "\(hours) hours is out of range",
                    fix: "give 1–168 (a week); 12 covers a training day")
            }
            configuration.sessionHours = hours
        }
        configuration.usersFile = try path(web, "web.users_file")
        for entry in try strings(web, "web.trusted_proxies") ?? [] {
            guard let range = IPAddressRange(parsing: entry) else {
                throw invalid(
                    "web.trusted_proxies", "'\(entry)' is not an IP address or CIDR block",
                    fix: "list your reverse proxies' addresses, e.g. [\"127.0.0.1\", \"::1\", \"10.0.0.0/8\"] "
                        + "(no host names), or remove the key to ignore X-Forwarded-For")
            }
            configuration.trustedProxies.append(range)
        }
        return configuration
    }
}
