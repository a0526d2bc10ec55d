// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import WebDashboard

/// The session page tells the coach when the gateway received samples its store could not keep
/// (a full disk), and says nothing of it when none were lost.
@Suite("Web dashboard: a session's unsaved samples")
struct SessionPageLossTests {
    static func page(unsaved: Int) async throws -> String {
        let control = FakeGatewayControl()
        var ended = FakeGatewayControl.Fixtures.session
        ended.isLive = false
        ended.endedAt = ended.startedAt.addingTimeInterval(24)
        ended.endReason = "stopped"
        ended.unsavedSamples = unsaved
        control.answers.sessions = [ended]
        let id = ended.id
        let users = try WebDashboardRouterTests.usersFile()
        return try await WebDashboardRouterTests.app(control.services, usersFile: users).test(.router) { client in
            let (cookie, _) = try await WebDashboardRouterTests.login(client, "tv", "viewer-pass")
            let response = try await client.execute(uri: "/sessions/\(id)", method: .get, headers: [.cookie: cookie])
            #expect(response.status == .ok)
            return String(buffer: response.body)
        }
    }

    @Test("7 842 unsaved samples are shown on the session page; none shows no such line")
    func shown() async throws {
        let lost = try await Self.page(unsaved: 7842)
        #expect(lost.contains(#"id="session-unsaved""#), "\(lost)")
        #expect(lost.contains("7842 samples the gateway received could not be saved"))
        let whole = try await Self.page(unsaved: 0)
        #expect(whole.contains(#"id="session-summary""#))
        #expect(!whole.contains("session-unsaved"))
    }
}
