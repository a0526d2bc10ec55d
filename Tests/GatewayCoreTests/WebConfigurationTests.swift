// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayConfig
import Testing

@Suite("[web] configuration")
struct WebConfigurationTests {
    static func error(_ text: String) throws -> ConfigurationError {
        try #require(throws: ConfigurationError.self) { try GatewayConfiguration.parse(text, file: "c.toml") }
    }

    @Test("absent: no dashboard; listen, TLS pair, session hours and users file read")
    func reads() throws {
        #expect(try GatewayConfiguration.parse("", file: "c").web == nil)
        let web = try #require(
            try GatewayConfiguration.parse(
                """
                [web]
                listen = "0.0.0.0:8080"
                tls_cert = "/etc/sportsensord/web.pem"
                tls_key = "/etc/sportsensord/web.key"
                session_hours = 8
                users_file = "/etc/sportsensord/users.json"
                """, file: "c"
            ).web)
        #expect(web.listen == TCPListenAddress(host: "0.0.0.0", port: 8080))
        #expect(web.tlsCertificate == "/etc/sportsensord/web.pem")
        #expect(web.tlsKey == "/etc/sportsensord/web.key")
        #expect(web.sessionHours == 8)
        #expect(web.usersFile == "/etc/sportsensord/users.json")
        #expect(try GatewayConfiguration.parse("[web]\nlisten = \"127.0.0.1:0\"\n", file: "c").web?.listen.port == 0)
        #expect(try GatewayConfiguration.parse("[web]\nlisten = \"127.0.0.1:9\"\n", file: "c").web?.sessionHours == 12)
    }

    @Test("mistakes name the key and the fix")
    func mistakes() throws {
        #expect(try Self.error("[web]\nsession_hours = 2\n").fix?.contains("0.0.0.0:8080") == true)
        #expect(try Self.error("[web]\nlisten = \"8080\"\n").key == "web.listen")
        let half = try Self.error("[web]\nlisten = \"0.0.0.0:8080\"\ntls_cert = \"/a.pem\"\n")
        #expect(half.message.contains("both tls_cert and tls_key"))
        #expect(try Self.error("[web]\nlisten = \"0.0.0.0:8080\"\nsession_hours = 0\n").key == "web.session_hours")
        #expect(
            try Self.error("[web]\nlisten = \"0.0.0.0:8080\"\ntls_key = \"key.pem\"\n").message.contains("absolute"))
        #expect(try Self.error("[web]\nlisten = \"0.0.0.0:8080\"\nport = 1\n").key == "web.port")
    }

    @Test("trusted_proxies: none by default; addresses and CIDR blocks read; a host name refused naming the entry")
    func trustedProxies() throws {
        #expect(
            try GatewayConfiguration.parse("[web]\nlisten = \"127.0.0.1:9\"\n", file: "c").web?.trustedProxies == [])
        let web = try #require(
            try GatewayConfiguration.parse(
                "[web]\nlisten = \"127.0.0.1:9\"\ntrusted_proxies = [\"127.0.0.1\", \"::1\", \"10.0.0.0/8\"]\n",
                file: "c"
            ).web)
        #expect(web.trustedProxies.map(\.description) == ["127.0.0.1/32", "::1/128", "10.0.0.0/8"])
        let error = try Self.error(
            "[web]\nlisten = \"127.0.0.1:9\"\ntrusted_proxies = [\"127.0.0.1\", \"proxy.hall.example\"]\n")
        #expect(error.key == "web.trusted_proxies")
        #expect(error.message.contains("'proxy.hall.example' is not an IP address or CIDR block"))
        #expect(error.fix?.contains("no host names") == true)
        #expect(
            try Self.error("[web]\nlisten = \"127.0.0.1:9\"\ntrusted_proxies = \"127.0.0.1\"\n").key
                == "web.trusted_proxies")
    }
}
