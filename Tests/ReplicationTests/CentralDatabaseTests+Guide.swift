// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import Replication
import SDUSensor
import SessionStore
import Testing

/// The SQL of Docs/REPLICATION.md, read from the document itself (so the guide and this test
/// cannot drift), run against a database a gateway replicated into.
extension CentralDatabaseTests {
    /// One ```sql block of the guide: its statements, and the heading it is under.
    struct GuideBlock {
        var section: String
        var statements: [String]
    }

    static let guidePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Docs/REPLICATION.md").standardized.path

    /// Every ```sql block, split into statements at a `;` ending a line; `--` comments dropped.
    static func guideBlocks(_ markdown: String) -> [GuideBlock] {
        var blocks: [GuideBlock] = []
        var section = ""
        var current: [String]?
        var inOtherFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, !inOtherFence, trimmed.hasPrefix("#") { section = trimmed }
            if current == nil, trimmed.hasPrefix("```") {
                if trimmed == "```sql" { current = [] } else { inOtherFence.toggle() }
            } else if trimmed.hasPrefix("```"), let lines = current {
                let text = lines.filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
                    .joined(separator: "\n")
                let statements = text.components(separatedBy: ";\n").map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines)
                }.map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }.filter { !$0.isEmpty }
                blocks.append(GuideBlock(section: section, statements: statements))
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test("every query of Docs/REPLICATION.md runs and finds the replicated rows; the Citus list covers every table")
    func guideQueries() async throws {
        let blocks = Self.guideBlocks(try String(contentsOfFile: Self.guidePath, encoding: .utf8))
        let citus = blocks.filter { $0.section.contains("Citus") }
        let walkThrough = blocks.filter { !$0.section.contains("Citus") }
        #expect(citus.count == 1)
        #expect(walkThrough.flatMap(\.statements).count >= 8, "the guide's queries were found")
        try await Self.withDatabase { cluster, url in
            try await Self.withStore { store in
                let identity = try await store.enableReplication(gatewayID: "hall-a", samples: true)
                let ada = try await store.addAthlete(name: "Ada")
                _ = try await store.updateAthlete(id: ada.id, AthleteChange(massKg: 61.5, birthYear: 2001))
                let team = try await store.addTeam(name: "U18")
                _ = try await store.updateTeam(id: team.id, name: nil, athleteIDs: [ada.id])
                for profile in [DetectionProfile.tableTennis, .jump] {
                    let events =
                        profile == .jump
                        ? (0..<3).map { EventRecord(type: "jump", t: Double($0) * 2, heightM: 0.3 + Double($0) / 10) }
                        : Self.events(4)
                    let session = try await store.importSession(
                        NewSession(athleteID: ada.id, settings: DetectionSettings(profile: profile)),
                        samples: Self.samples(600), events: events, endedAt: Date(), chunkLength: 256)
                    var summary = SessionSummary(profile: profile.rawValue)
                    summary.playerload = 40
                    summary.playerloadPerMin = 4
                    try await store.saveSummary(summary, of: session.id)
                }
                let connection = try await CentralConnection.open(
                    url, gatewayID: "hall-a", instanceID: identity.instanceID, logger: Self.logger)
                defer { Task { try? await connection.close() } }
                try await Self.drain(store, CentralWriter(gatewayID: "hall-a"), connection)

                for block in walkThrough {
                    for statement in block.statements {
                        let rows = try await cluster.psql(statement, database: "club")
                        // A query finds what was replicated; the admin's DELETE answers nothing.
                        if statement.uppercased().hasPrefix("SELECT") {
                            #expect(
                                !rows.isEmpty, "no rows from the guide's query under \(block.section):\n\(statement)")
                        }
                    }
                }
            }
            // The Citus block names every table of the schema, each once.
            let named = citus.flatMap(\.statements).compactMap { statement -> String? in
                guard let range = statement.range(of: "'sportsensor\\.[a-z_]+'", options: .regularExpression)
                else { return nil }
                return String(statement[range].dropFirst("'sportsensor.".count).dropLast())
            }
            let tables = try await cluster.psql(
                """
                SELECT table_name FROM information_schema.tables
                WHERE table_schema = 'sportsensor' AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'
                ORDER BY 1
                """, database: "club")
            #expect(named.sorted() == tables, "distribute or replicate every table on Citus")
        }
    }
}
