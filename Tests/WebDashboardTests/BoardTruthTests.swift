// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Testing

@testable import WebDashboard

/// What the board and the history pages say about strokes' sides, flags and the start form.
@Suite("Web dashboard: sides, flags and the start form")
struct BoardTruthTests {
    @Test("the flags a live event shows: never clipped on a hit; those that keep an event from a best")
    func trustFlags() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(DashboardPages.trustFlags.utf8)) as? [String: [String]])
        #expect(object["hit"] == ["rate_too_low", "sample_gap", "side_unsure"])
        #expect(object["jump"] == ["low_floor_margin", "rate_too_low", "sample_gap"])
        #expect(object["throw"] == ["low_floor_margin", "rate_too_low", "sample_gap"])
        #expect(object["step"] == ["rate_too_low", "sample_gap"])
        #expect(object.values.allSatisfy { !$0.contains("clipped") && !$0.contains("edge_fallback") })
    }

    @Test("the board page carries the flag table for its script; the start form can hide while a session runs")
    func boardPage() async throws {
        let control = FakeGatewayControl()
        let usersFile = try WebDashboardRouterTests.usersFile()
        try await WebDashboardRouterTests.app(control.services, usersFile: usersFile).test(.router) { client in
            let (cookie, _) = try await WebDashboardRouterTests.login(client, "coach", "coach-pass")
            let html = String(buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]).body)
            #expect(html.contains(#"data-trust-flags="{&quot;hit&quot;:[&quot;rate_too_low&quot;"#))
            #expect(html.contains(#"<div data-optional="sides" hidden><dt>Forehand / backhand</dt>"#))
            #expect(html.components(separatedBy: "<label data-starts>").count - 1 == 2)
            let script = String(
                buffer: try await client.execute(uri: "/assets/board.js", method: .get, headers: [.cookie: cookie]).body
            )
            #expect(script.contains("starter.hidden = Boolean(session)"))
            #expect(script.contains(#"typeof summary?.forehand_hits === "number""#))
            let css = String(
                buffer: try await client.execute(uri: "/assets/dashboard.css", method: .get, headers: [.cookie: cookie])
                    .body)
            #expect(css.contains(".controls [hidden] { display: none; }"))
        }
    }

    @Test("a live session the store cannot save: its tile says so (the counters' or the session's store_degraded)")
    func degradedStore() async throws {
        let control = FakeGatewayControl()
        let usersFile = try WebDashboardRouterTests.usersFile()
        try await WebDashboardRouterTests.app(control.services, usersFile: usersFile).test(.router) { client in
            let (cookie, _) = try await WebDashboardRouterTests.login(client, "tv", "viewer-pass")
            let html = String(buffer: try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]).body)
            #expect(html.contains(#"<p class="store-note" data-field="store" hidden>Not saving: the gateway's disk"#))
            let script = String(
                buffer: try await client.execute(uri: "/assets/board.js", method: .get, headers: [.cookie: cookie]).body
            )
            #expect(
                script.contains(
                    #"const degraded = Boolean(session) && (counters?.store_degraded ?? session?.store_degraded) === true;"#
                ))
            #expect(script.contains(#"field(tile, "store").hidden = !degraded;"#))
        }
        // The counters carry it under the name the script reads.
        var counters = SessionCounters(
            sessionId: "s", sensor: "virtual-1", athlete: nil, profile: "jump", count: 0, lastPeakG: nil, maxPeakG: nil,
            ratePerMinute: 0, bestHeightM: nil, cadence: nil, linkState: .connected, elapsedSeconds: 1)
        counters.storeDegraded = true
        let json = String(decoding: try JSONEncoder.controlAPI.encode(counters), as: UTF8.self)
        #expect(json.contains(#""store_degraded":true"#))
    }

    @Test("the athlete page names the racket hand")
    func athleteHand() async throws {
        let control = FakeGatewayControl()
        let usersFile = try WebDashboardRouterTests.usersFile()
        try await WebDashboardRouterTests.app(control.services, usersFile: usersFile).test(.router) { client in
            let (cookie, _) = try await WebDashboardRouterTests.login(client, "tv", "viewer-pass")
            let page = try await client.execute(uri: "/athletes/anna", method: .get, headers: [.cookie: cookie])
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains(#"<p class="note" id="athlete-hand">Racket hand: right</p>"#))
            let other = try await client.execute(uri: "/athletes/ben", method: .get, headers: [.cookie: cookie])
            #expect(String(buffer: other.body).contains("Racket hand: not set"))
        }
    }

    @Test("a session page shows strokes and the hardest stroke per side; the events CSV has each hit's side")
    func sessionSides() {
        var summary = SessionSummary(profile: "table-tennis")
        summary.hits = 40
        summary.forehandHits = 23
        summary.backhandHits = 17
        summary.forehandMaxIntensityG = 3.14
        let figures = SummaryRows.values(summary)["summaryFigures"] as? [[String: String]] ?? []
        #expect(figures.contains(["label": "Forehand / backhand", "value": "23 / 17"]))
        #expect(figures.contains(["label": "Hardest forehand / backhand", "value": "3.1 g / –"]))
        let noSides =
            SummaryRows.values(SessionSummary(profile: "table-tennis"))["summaryFigures"] as? [[String: String]]
        #expect(noSides?.contains { $0["label"] == "Forehand / backhand" } == false)
        let lines = [
            EventRecord(type: "hit", t: 1, peakG: 1.5, intensityG: 1.5, side: "backhand"),
            EventRecord(type: "hit", t: 2, peakG: 1.25, intensityG: 1.25),
        ].map(HistoryRows.eventCSVLine)
        #expect(HistoryRows.eventsCSVHeader == "type,t,peak_g,intensity_g,flight_s,height_m,cadence_spm,side")
        #expect(lines == ["hit,1.0000,1.5000,1.5000,,,,backhand", "hit,2.0000,1.2500,1.2500,,,,"])
    }
}
