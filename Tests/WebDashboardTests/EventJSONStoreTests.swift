// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayCore
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import SessionStore
import Testing

@testable import WebDashboard

/// A session of several store pages of events, served by a real gateway over a real store: the
/// API's events JSON and the dashboard's events.json are, byte for byte, what the whole list sorted
/// by time and encoded at once gave before they were written a page at a time.
@Suite("Web dashboard: events JSON from a real store", .timeLimit(.minutes(5)))
struct EventJSONStoreTests {
    @Test(
        "2 600 events (three store pages, ties in time): /v1/sessions/{id}/events and events.json equal the whole encoding"
    )
    func multiPageSession() async throws {
        let directory = NSTemporaryDirectory() + "events-json-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SessionStore.open(at: StateDirectory(path: directory))
        defer { try? store.close() }
        // Stored out of time order, pairs sharing a time, some flagged: the order must be time,
        // then recording order.
        let events = (0..<2_600).map { index -> EventRecord in
            var event = EventRecord(
                type: "jump", t: Double((2_599 - index) / 2) / 4, flightS: 0.3 + Double(index % 9) / 100,
                heightM: Double(index % 40) / 100)
            if index % 7 == 0 { event.quality = ["low_floor_margin"] }
            return event
        }
        #expect(events.count > 2 * SessionStore.eventsPerPage)
        let session = try await store.importSession(
            NewSession(settings: DetectionSettings(profile: .jump)), samples: [], events: events)
        try await StoreGatewayHarness.with(store, directory: directory) { gateway in
            // What the route answered when it read the whole list: the store's events sorted by time.
            let whole = try JSONEncoder.controlAPI.encode(try await store.events(of: session.id).sorted { $0.t < $1.t })

            let app = try WebDashboardRouterTests.app(
                gateway.services, usersFile: try WebDashboardRouterTests.usersFile())
            try await app.test(.router) { client in
                let (cookie, _) = try await WebDashboardRouterTests.login(client, "tv", "viewer-pass")
                for uri in ["/v1/sessions/\(session.idText)/events", "/sessions/\(session.idText)/events.json"] {
                    let response = try await client.execute(uri: uri, method: .get, headers: [.cookie: cookie])
                    #expect(response.status == .ok, "\(uri)")
                    #expect(Data(String(buffer: response.body).utf8) == whole, "\(uri)")
                }
            }
        }
    }
}
