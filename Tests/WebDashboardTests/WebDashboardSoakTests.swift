// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayTesting
import Testing

@testable import WebDashboard

/// The dashboard's LAN-facing listener under a flood of idle connections, as the control API's
/// (`ControlAPISoakTests`): bounded by counts, no timing asserted.
@Suite("Web dashboard soak: idle floods past the connection cap", .serialized)
struct WebDashboardSoakTests {
    static let idleConnections = 1000
    static let cap = 32

    /// `GET /login` on a new connection: its status, after checking the body is the login form.
    static func loginPage(_ port: Int) async throws -> Int {
        let client = try RawHTTPClient.connect(loopbackPort: port)
        defer { client.close() }
        let answer = try await client.exchange("GET", "/login")
        if answer.status == 200 { #expect(answer.text.contains(#"action="/login""#)) }
        return answer.status
    }

    @Test("1 000 idle connections past a cap of 32: the idle-longest are closed and the login page answers throughout")
    func idleFlood() async throws {
        try DescriptorLimit.raise(to: 8192)
        // The idle timeout is far away: only the cap can close the first connections.
        let configuration = WebServerConfiguration(
            host: "127.0.0.1", port: 0, usersFile: try WebDashboardRouterTests.usersFile(),
            idleTimeout: .seconds(600), maxConnections: Self.cap)
        try await WebServerHarness.with(FakeGatewayControl().services, configuration: configuration) { port in
            var idle: [RawHTTPClient] = []
            defer { for client in idle { client.close() } }
            for index in 0..<Self.idleConnections {
                idle.append(try RawHTTPClient.connect(loopbackPort: port))
                if index % 250 == 249 {
                    #expect(try await Self.loginPage(port) == 200, "after \(index + 1) idle connections")
                }
            }
            // A half-sent request head counts as idle too.
            try await idle[Self.idleConnections - 1].send("GET /login HTTP/1.1\r\nHo")
            #expect(try await Self.loginPage(port) == 200)
            // The oldest were closed by the server (end of stream, no answer), not left open: without
            // the cap they stayed open until an idle timeout (30 s), past this read's 20-s safety limit.
            for client in idle.prefix(200) {
                #expect(
                    try await client.readToEnd(timeout: .seconds(20)).isEmpty,
                    "closed by the cap, before the old 30-s idle timeout")
            }
        }
    }
}
