// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayConfig
import GatewayTesting
import Testing

@testable import WebDashboard

/// `[web] trusted_proxies`: `X-Forwarded-For` names the client only when a trusted proxy sent it.
@Suite("Client addresses behind a reverse proxy")
struct ClientAddressTests {
    static func resolver(_ entries: [String]) -> ClientAddressResolver {
        ClientAddressResolver(trustedProxies: entries.compactMap(IPAddressRange.init(parsing:)))
    }

    @Test("the rightmost untrusted hop from a trusted peer; the peer itself otherwise")
    func resolves() {
        let proxies = Self.resolver(["127.0.0.1", "10.0.0.0/8"])
        // Direct: the header is the client's own text and is ignored.
        #expect(proxies.client(peer: "192.168.1.20", forwardedFor: ["203.0.113.9"]) == "192.168.1.20")
        #expect(Self.resolver([]).client(peer: "127.0.0.1", forwardedFor: ["203.0.113.9"]) == "127.0.0.1")
        // Through the proxy: what it appended.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["192.168.1.20"]) == "192.168.1.20")
        // A forged left part is skipped: the proxy appended the real peer on the right.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["1.2.3.4, 192.168.1.20"]) == "192.168.1.20")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["1.2.3.4", "192.168.1.20"]) == "192.168.1.20")
        // A chain of trusted proxies is walked through.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["192.168.1.20, 10.0.0.5"]) == "192.168.1.20")
        // Forged trusted-looking hops cannot reach further left than the first untrusted one.
        #expect(
            proxies.client(peer: "127.0.0.1", forwardedFor: ["6.6.6.6, 10.9.9.9, 192.168.1.20, 10.0.0.5"])
                == "192.168.1.20")
        // No header, or a hop that is not an address: the last trusted hop, never the text.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: []) == "127.0.0.1")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["unknown"]) == "127.0.0.1")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["192.168.1.20:5555, 10.0.0.5"]) == "10.0.0.5")
        // Canonical forms: a mapped peer is its IPv4 address, IPv6 is compressed.
        #expect(proxies.client(peer: "::ffff:127.0.0.1", forwardedFor: ["2001:DB8:0:0::1"]) == "2001:db8::1")
        #expect(proxies.client(peer: "unknown", forwardedFor: ["1.2.3.4"]) == "unknown")
    }

    /// Posts a login with `X-Forwarded-For: forwarded` on a new connection; returns the status.
    static func login(_ port: Int, password: String, forwardedFor forwarded: String) async throws -> Int {
        let client = try RawHTTPClient.connect(loopbackPort: port)
        defer { client.close() }
        let form = "username=coach&password=\(password)"
        try await client.send(
            "POST /login HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Forwarded-For: \(forwarded)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form)"
        )
        return try await client.readHead(timeout: .seconds(30)).status
    }

    /// Five failed logins forwarded for one client, then the right password forwarded for another.
    static func otherClientAfterFailures(trustedProxies: [String]) async throws -> (failures: [Int], other: Int) {
        let configuration = WebServerConfiguration(
            host: "127.0.0.1", port: 0, usersFile: try WebDashboardRouterTests.usersFile(),
            trustedProxies: trustedProxies.compactMap(IPAddressRange.init(parsing:)))
        return try await WebServerHarness.with(FakeGatewayControl().services, configuration: configuration) { port in
            var failures: [Int] = []
            for _ in 0..<5 { failures.append(try await login(port, password: "wrong", forwardedFor: "192.168.1.20")) }
            return (failures, try await login(port, password: "coach-pass", forwardedFor: "192.168.1.21"))
        }
    }

    @Test("behind a trusted proxy the throttle holds the failing client only; without trust it holds the proxy")
    func throttleKeying() async throws {
        let trusted = try await Self.otherClientAfterFailures(trustedProxies: ["127.0.0.1"])
        #expect(trusted.failures == [401, 401, 401, 401, 401])
        #expect(trusted.other == 303, "another client behind the same proxy logs in")
        let untrusted = try await Self.otherClientAfterFailures(trustedProxies: [])
        #expect(untrusted.failures == [401, 401, 401, 401, 401])
        #expect(untrusted.other == 429, "the header is not believed: every request is the peer's")
    }
}
