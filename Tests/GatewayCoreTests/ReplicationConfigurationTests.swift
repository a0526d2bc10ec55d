// SPDX-License-Identifier: GPL-2.0-or-later
import GatewayConfig
import Testing

@Suite("[replication] configuration")
struct ReplicationConfigurationTests {
    static func parse(_ text: String) throws -> GatewayConfiguration {
        try GatewayConfiguration.parse(text, file: "/etc/sportsensord/config.toml")
    }

    @Test("the section maps onto ReplicationConfiguration, with defaults")
    func section() throws {
        let configuration = try Self.parse(
            """
            [replication]
            postgres_url = "postgres://u:pw@db:5432/club"
            gateway_id = "hall-a"
            """)
        #expect(
            configuration.replication
                == ReplicationConfiguration(postgresURL: "postgres://u:pw@db:5432/club", gatewayID: "hall-a"))
        #expect(configuration.replication?.samples == false)
        #expect(configuration.replication?.maxOutboxItems == ReplicationConfiguration.defaultMaxOutboxItems)
        let full = try Self.parse(
            """
            [replication]
            postgres_url = "postgresql://u@db/club"
            gateway_id = "hall-b.2"
            samples = true
            max_outbox_items = 20000
            """)
        #expect(full.replication?.samples == true)
        #expect(full.replication?.maxOutboxItems == 20_000)
        #expect(try Self.parse("").replication == nil)
    }

    @Test(
        "mistakes are refused naming the key and the fix, never echoing the URL",
        arguments: [
            ("gateway_id = \"a\"", "replication.postgres_url", "has no postgres_url"),
            (
                "postgres_url = \"mysql://u:hunter22@h/d\"\ngateway_id = \"a\"", "replication.postgres_url",
                "not a postgres"
            ),
            ("postgres_url = \"postgres://u@h/d\"", "replication.gateway_id", "has no gateway_id"),
            (
                "postgres_url = \"postgres://u@h/d\"\ngateway_id = \"hall a\"", "replication.gateway_id",
                "not a gateway id"
            ),
            (
                "postgres_url = \"postgres://u@h/d\"\ngateway_id = \"a\"\nmax_outbox_items = 5",
                "replication.max_outbox_items",
                "out of range"
            ),
        ])
    func mistakes(body: String, key: String, problem: String) throws {
        do {
            _ = try Self.parse("[replication]\n" + body)
            Issue.record("accepted: \(body)")
        } catch {
            let text = "\(error)"
            #expect(text.contains(key), "\(text)")
            #expect(text.contains(problem), "\(text)")
            #expect(!text.contains("hunter22"), "\(text)")
        }
    }

    @Test("gateway ids: letters, digits, . _ -, starting with a letter or digit, at most 63")
    func gatewayIDs() {
        #expect(ReplicationConfiguration.isGatewayID("hall-a"))
        #expect(ReplicationConfiguration.isGatewayID("Club_7.hall2"))
        #expect(!ReplicationConfiguration.isGatewayID(""))
        #expect(!ReplicationConfiguration.isGatewayID("-x"))
        #expect(!ReplicationConfiguration.isGatewayID("hall a"))
        #expect(!ReplicationConfiguration.isGatewayID("hällé"))
        #expect(!ReplicationConfiguration.isGatewayID(String(repeating: "a", count: 64)))
    }
}
