// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import WebDashboard

/// The dashboard's CSV downloads are written a piece at a time from what the gateway gives a page
/// at a time: the whole file never exists in memory, and what arrives is every row once.
@Suite("Web dashboard: CSV downloads stream")
struct CSVDownloadTests {
    @Test("a 5 000-event CSV is read a page at a time (never the whole list) and arrives whole, in pieces")
    func eventsInPages() async throws {
        let control = FakeGatewayControl()
        let events = (0..<5_000).map { EventRecord(type: "step", t: Double($0) / 4, cadenceSpm: 160) }
        control.answers.sessionEvents = events
        let session = FakeGatewayControl.Fixtures.session
        let app = try WebDashboardRouterTests.app(control, usersFile: try WebDashboardRouterTests.usersFile())
        try await app.test(.router) { client in
            let (cookie, _) = try await WebDashboardRouterTests.login(client, "tv", "viewer-pass")
            let response = try await client.execute(
                uri: "/sessions/\(session.id)/events.csv", method: .get, headers: [.cookie: cookie])
            #expect(response.status == .ok)
            let text = String(buffer: response.body)
            // More than one 64 kB piece.
            #expect(text.utf8.count > CSVDownload.pieceBytes)
            let lines = events.map { HistoryRows.eventCSVLine($0) + "\n" }.joined()
            #expect(text == HistoryRows.eventsCSVHeader + "\n" + lines)
        }
        #expect(control.calls.contains(.sessionEventPages(id: session.id)))
        #expect(!control.calls.contains(.sessionEvents(id: session.id)))
    }

    @Test("/sessions.csv of 500 sessions, more than a piece, is every line once")
    func sessionsInPieces() async throws {
        let control = FakeGatewayControl()
        let sessions = (0..<HistoryPages.listLimit).map { index in
            var session = FakeGatewayControl.Fixtures.session
            session.id = String(format: "%08x-0000-4000-8000-000000000000", index)
            session.athlete = "athlete \(index) with a rather long name to fill the line"
            return session
        }
        control.answers.sessions = sessions
        let app = try WebDashboardRouterTests.app(control, usersFile: try WebDashboardRouterTests.usersFile())
        try await app.test(.router) { client in
            let (cookie, _) = try await WebDashboardRouterTests.login(client, "tv", "viewer-pass")
            let response = try await client.execute(uri: "/sessions.csv", method: .get, headers: [.cookie: cookie])
            let text = String(buffer: response.body)
            #expect(text.utf8.count > CSVDownload.pieceBytes)
            #expect(
                text == HistoryRows.sessionsCSVHeader + "\n"
                    + sessions.map { HistoryRows.sessionCSVLine($0) + "\n" }.joined())
        }
    }
}
