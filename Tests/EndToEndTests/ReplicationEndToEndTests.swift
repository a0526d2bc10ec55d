// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GRDB
import GatewayTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three halls replicate into one PostgreSQL (a cluster this test makes): the server goes away
/// and comes back, one gateway is killed mid-backlog and restarted, and at the end PostgreSQL
/// holds exactly what the three stores hold. Every wait is for a condition, bounded.
@Suite("End to end: three gateways replicating into one PostgreSQL", .serialized, .timeLimit(.minutes(10)))
struct ReplicationEndToEndTests {
    static let password = "s3cret-never-logged"

    static func config(_ url: String, gateway: String) -> String {
        """
        [virtual]
        sensors = 2
        scripts = ["table-tennis", "jump"]
        rate = 400

        [replication]
        postgres_url = "\(url)"
        gateway_id = "\(gateway)"
        samples = true

        """
    }

    /// What a store holds, per session: "id|ended|events|samples".
    static func localSummary(_ gateway: RunningGateway) throws -> Set<String> {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(
            path: gateway.stateDirectory + "/sportsensord.sqlite", configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT s.id || '|' || (s.ended_at IS NOT NULL) || '|'
                            || (SELECT count(*) FROM events e WHERE e.session_id = s.id) || '|'
                            || (SELECT coalesce(sum(sample_count), 0) FROM sample_chunks c WHERE c.session_id = s.id)
                        FROM sessions s
                        """))
        }
    }

    /// Rows of a store's table, and its outbox length.
    static func count(_ gateway: RunningGateway, _ sql: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(
            path: gateway.stateDirectory + "/sportsensord.sqlite", configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    /// A query's text values from a store.
    static func strings(_ gateway: RunningGateway, _ sql: String) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(
            path: gateway.stateDirectory + "/sportsensord.sqlite", configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in try String.fetchAll(db, sql: sql) }
    }

    /// What PostgreSQL holds for `gatewayID`, in the same form.
    static func centralSummary(_ cluster: PostgresCluster, _ gatewayID: String) async throws -> Set<String> {
        Set(
            try await cluster.psql(
                """
                SELECT s.id || '|' || (CASE WHEN s.ended_at IS NULL THEN 0 ELSE 1 END) || '|'
                    || (SELECT count(*) FROM sportsensor.events e WHERE e.gateway_id = s.gateway_id AND e.session_id = s.id)
                    || '|'
                    || (SELECT count(*) FROM sportsensor.samples x WHERE x.gateway_id = s.gateway_id AND x.session_id = s.id)
                FROM sportsensor.sessions s WHERE s.gateway_id = '\(gatewayID)'
                """, database: "club"))
    }

    static func waitUntil(
        _ what: String, timeout: Duration = .seconds(120), _ condition: () async throws -> Bool
    )
        async throws
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        // Asked once more at the deadline (as `RunningGateway.waitUntil`): a sleep held past it by a
        // busy pool must not fail the test without looking.
        if try await condition() { return }
        throw ProcessHarnessError("timed out waiting until \(what)")
    }

    @Test("outage, SIGKILL mid-backlog and restart: PostgreSQL ends with exactly the union of the stores")
    func threeHalls() async throws {
        let cluster = try await PostgresCluster()
        _ = try await cluster.psql("CREATE DATABASE club")
        let url = cluster.url(database: "club", password: Self.password)
        let ids = ["hall-a", "hall-b", "hall-c"]
        var gateways: [RunningGateway] = []
        do {
            for id in ids { gateways.append(try await RunningGateway.start(config: Self.config(url, gateway: id))) }
            // Each hall records a short first session on virtual-1 and stops it: a stop stores the
            // session's last chunk at once, so samples reach PostgreSQL without waiting for a live
            // chunk to fill (32 768 samples, 82 s at 400 Hz, longer on a loaded machine).
            for gateway in gateways {
                let first =
                    try await gateway.controlJSON(["start", "--sensor", "virtual-1", "--json"]) as? [String: Any]
                let id = try #require(first?["id"] as? String)
                #expect(
                    try await gateway.waitForSamples(of: id, atLeast: 400, timeout: .seconds(300)) >= 400,
                    "\(gateway.log)")
                let stopped = try await gateway.control(["stop", "--sensor", "virtual-1"])
                #expect(stopped.status == 0, "\(stopped)")
            }
            for gateway in gateways {
                for sensor in ["virtual-1", "virtual-2"] {
                    let started = try await gateway.control(["start", "--sensor", sensor, "--json"])
                    #expect(started.status == 0, "\(started)")
                }
            }
            // A target per hall, set twice: the replaced one (a new id) must not stay centrally.
            for gateway in gateways {
                let added = try await gateway.control(["athletes", "add", "ada"])
                #expect(added.status == 0, "\(added)")
                for value in ["50", "60"] {
                    let set = try await gateway.control(["targets", "set", "hits", value, "--athlete", "ada"])
                    #expect(set.status == 0, "\(set)")
                }
            }
            // Every hall's sessions and first sessions' samples arrive. The bounds below are generous
            // limits on conditions that always come, not times.
            try await Self.waitUntil("PostgreSQL has samples of every hall", timeout: .seconds(600)) {
                let halls = try await cluster.psql(
                    "SELECT count(DISTINCT gateway_id) FROM sportsensor.samples", database: "club")
                return halls == ["3"]
            }

            // The server goes away: batches fail, recording goes on, the outboxes grow. Each hall ends
            // one session meanwhile, which stores its last chunk at once; the other stays live
            // through the outage and hall-b's restart.
            try await cluster.stop()
            let chunksAtStop = try gateways.map { try Self.count($0, "SELECT count(*) FROM sample_chunks") }
            for gateway in gateways {
                let stopped = try await gateway.control(["stop", "--sensor", "virtual-1"])
                #expect(stopped.status == 0, "\(stopped)")
            }
            try await Self.waitUntil(
                "every gateway failed a batch and stored new chunks meanwhile", timeout: .seconds(600)
            ) {
                try gateways.enumerated().allSatisfy { index, gateway in
                    let chunks = try Self.count(gateway, "SELECT count(*) FROM sample_chunks")
                    let queued = try Self.count(gateway, "SELECT count(*) FROM replication_outbox")
                    return gateway.log.contains("cannot reach PostgreSQL") && chunks > chunksAtStop[index] && queued > 0
                }
            }
            try await cluster.start()

            // hall-b is killed while its backlog is going out, and restarted on the same store.
            let killed = gateways[1]
            try await Self.waitUntil("hall-b is connected again") {
                killed.log.contains("connected to the central database again")
            }
            killed.daemon.send(SIGKILL)
            #expect(await killed.daemon.waitForExit(timeout: .seconds(10)) == 128 + SIGKILL)
            gateways[1] = try await RunningGateway.start(
                config: Self.config(url, gateway: ids[1]), in: killed.directory)

            // The other halls end their live sessions (hall-b's was closed as interrupted at restart).
            for gateway in [gateways[0], gateways[2]] {
                let stopped = try await gateway.control(["stop", "--sensor", "virtual-2"])
                #expect(stopped.status == 0, "\(stopped)")
            }
            try await Self.waitUntil("every outbox has drained", timeout: .seconds(600)) {
                try gateways.allSatisfy { try Self.count($0, "SELECT count(*) FROM replication_outbox") == 0 }
            }

            var total = 0
            var summaryTotal = 0
            for (id, gateway) in zip(ids, gateways) {
                let local = try Self.localSummary(gateway)
                let central = try await Self.centralSummary(cluster, id)
                #expect(!local.isEmpty)
                #expect(central == local, "\(id): central \(central.sorted()) vs local \(local.sorted())")
                total += local.count
                // Each stored summary arrives once, under its session.
                let summaries = try Self.strings(gateway, "SELECT session_id FROM session_summaries")
                let centralSummaries = try await cluster.psql(
                    "SELECT session_id FROM sportsensor.session_summaries WHERE gateway_id = '\(id)'", database: "club")
                summaryTotal += summaries.count
                #expect(centralSummaries.sorted() == summaries.sorted(), "\(id)'s summaries")
                // Targets: the same rows, the replaced one gone.
                let targets = try Self.strings(
                    gateway, "SELECT id || '|' || metric || '|' || CAST(round(value * 1000) AS INTEGER) FROM targets")
                let centralTargets = try await cluster.psql(
                    """
                    SELECT id || '|' || metric || '|' || round(value * 1000)::bigint FROM sportsensor.targets
                    WHERE gateway_id = '\(id)'
                    """, database: "club")
                #expect(targets.count == 1)
                #expect(centralTargets.sorted() == targets.sorted(), "\(id)'s targets")
                #expect(!gateway.log.contains(Self.password), "\(id)'s log shows the password")
            }
            let centralSessions = try await cluster.psql("SELECT count(*) FROM sportsensor.sessions", database: "club")
            #expect(centralSessions == ["\(total)"])
            #expect(summaryTotal > 0, "the halls that stopped their sessions stored summaries")
            let views = try await cluster.psql(
                "SELECT count(*) FROM sportsensor.sessions_overview WHERE events > 0", database: "club")
            #expect(Int(views.first ?? "") ?? 0 > 0)

            // A fourth box configured with hall-a's id is refused, with the fix, and keeps recording.
            let impostor = try await RunningGateway.start(config: Self.config(url, gateway: ids[0]))
            gateways.append(impostor)
            try await Self.waitUntil("the clash is reported") {
                impostor.log.contains("gateway id 'hall-a' is already replicated by another box")
            }
            let owners = try await cluster.psql(
                "SELECT count(*) FROM sportsensor.gateways", database: "club")
            #expect(owners == ["3"])
        } catch {
            for gateway in gateways { print(gateway.log.suffix(3000)) }
            for gateway in gateways { await gateway.remove() }
            await cluster.remove()
            throw error
        }
        for gateway in gateways { await gateway.remove() }
        await cluster.remove()
    }
}
