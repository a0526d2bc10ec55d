// SPDX-License-Identifier: GPL-2.0-or-later
import ControlAPI
import ControlProtocol
import Detection
import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import WebDashboard

/// The dashboard's downloads are written a piece at a time from what the gateway gives a page at a
/// time: the whole file never exists in memory, and what arrives is every row once.
@Suite("Web dashboard: downloads stream")
struct DashboardDownloadTests {
    @Test("a 5 000-event CSV is read a page at a time (never the whole list) and arrives whole, in pieces")
    func eventsInPages() async throws {
        let control = FakeGatewayControl()
        let events = (0..<5_000).map { EventRecord(type: "step", t: Double($0) / 4, cadenceSpm: 160) }
        control.answers.sessionEvents = events
        let session = FakeGatewayControl.Fixtures.session
        let response = try await Self.viewerGet("/sessions/\(session.id)/events.csv", from: control)
        #expect(response.status == .ok)
        let text = String(buffer: response.body)
        // More than one 64 kB piece.
        #expect(text.utf8.count > PagedDownload.pieceBytes)
        let lines = events.map { HistoryRows.eventCSVLine($0) + "\n" }.joined()
        #expect(text == HistoryRows.eventsCSVHeader + "\n" + lines)
        #expect(control.calls.contains(.sessionEventPages(id: session.id)))
    }

    @Test("events.json of 5 000 events, read a page at a time, is the whole list's JSON, more than a piece")
    func eventsJSONInPages() async throws {
        let control = FakeGatewayControl()
        let events = (0..<5_000).map { EventRecord(type: "jump", t: Double($0) / 4, flightS: 0.4, heightM: 0.2) }
        control.answers.sessionEvents = events
        let session = FakeGatewayControl.Fixtures.session
        let response = try await Self.viewerGet("/sessions/\(session.id)/events.json", from: control)
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/json")
        #expect(response.headers[.contentDisposition]?.contains("-events.json") == true)
        #expect(response.body.readableBytes > PagedDownload.pieceBytes)
        #expect(Data(String(buffer: response.body).utf8) == (try JSONEncoder.controlAPI.encode(events)))
        #expect(
            control.calls.filter { if case .sessionEventPages = $0 { true } else { false } } == [
                .sessionEventPages(id: session.id)
            ])
    }

    @Test("leaderboard.csv: a line per ranked athlete under the metric's header, names made safe")
    func leaderboardCSV() async throws {
        let control = FakeGatewayControl()
        let response = try await Self.viewerGet("/leaderboard.csv?metric=best_height_m&period=all", from: control)
        #expect(response.status == .ok)
        #expect(response.headers[.contentDisposition]?.contains("leaderboard.csv") == true)
        let rows = RosterFixtures.leaderboard
        let lines = rows.map {
            "\($0.rank),\(CSVCell.text($0.athlete)),\(HistoryRows.number($0.value)),\($0.sessionId),"
                + "\(HistoryRows.day($0.at))\n"
        }
        #expect(String(buffer: response.body) == "rank,athlete,best_height_m,session_id,date\n" + lines.joined())
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
        let response = try await Self.viewerGet("/sessions.csv", from: control)
        let text = String(buffer: response.body)
        #expect(text.utf8.count > PagedDownload.pieceBytes)
        #expect(
            text == HistoryRows.sessionsCSVHeader + "\n"
                + sessions.map { HistoryRows.sessionCSVLine($0) + "\n" }.joined())
    }

    /// A viewer's GET of `uri` from a dashboard over `control`, logged in first.
    static func viewerGet(_ uri: String, from control: FakeGatewayControl) async throws -> TestResponse {
        let app = try WebDashboardRouterTests.app(control.services, usersFile: try WebDashboardRouterTests.usersFile())
        return try await app.test(.router) { client in
            let (cookie, _) = try await WebDashboardRouterTests.login(client, "tv", "viewer-pass")
            return try await client.execute(uri: uri, method: .get, headers: [.cookie: cookie])
        }
    }
}
