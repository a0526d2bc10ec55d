// SPDX-License-Identifier: GPL-2.0-or-later
import ControlAPI
import ControlProtocol
import Detection
import GatewayCore
import GatewayTesting
import Hummingbird
import HummingbirdTesting
import Metrics
import Testing

@Suite("GET /metrics")
struct MetricsTests {
    @Test("swift-metrics counters, gauges and timers show in the Prometheus text, gateway series from zero")
    func exposition() async throws {
        ControlAPIMetrics.bootstrap()
        #expect(ControlAPIMetrics.bootstrap() == false)  // a second call changes nothing
        Counter(label: "sportsensord_test_scrapes_total").increment(by: 3)
        Counter(label: "sportsensord_test_scrapes_total").increment()
        Gauge(label: "sportsensord_test_depth").record(17)
        Metrics.Timer(label: "sportsensord_test_write_seconds").recordMilliseconds(7)

        let app = Application(router: ControlRoutes.router(services: FakeGatewayControl().services))
        let text = try await app.test(.router) { client in
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            return String(buffer: response.body)
        }
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains("# TYPE sportsensord_test_scrapes_total counter"))
        #expect(lines.contains("sportsensord_test_scrapes_total 4"))
        #expect(lines.contains("sportsensord_test_depth 17.0"))
        #expect(lines.contains("sportsensord_test_write_seconds_count 1"))
        #expect(lines.contains(#"sportsensord_test_write_seconds_bucket{le="0.01"} 1"#))
        typealias Name = GatewayMetrics.Name
        for name in [
            Name.notifications, Name.samples, Name.lostSamples, Name.malformedNotifications, Name.reconnects,
            Name.eventBusDropped,
        ] {
            #expect(lines.contains("# TYPE \(name) counter"), "\(name)")
        }
        for type in EventKind.allCases {
            #expect(text.contains("\(Name.events){type=\"\(type.rawValue)\"}"), "\(type)")
        }
        for name in [Name.sensorsConnected, Name.liveSessions, Name.storeQueueDepth] {
            #expect(lines.contains("# TYPE \(name) gauge"), "\(name)")
        }
        #expect(lines.contains("# TYPE \(Name.storeWriteSeconds) histogram"))
    }
}
