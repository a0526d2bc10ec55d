// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import GatewayTesting
import SessionStore
import Testing
import VirtualSensor

@testable import sportsensorctl

/// The one event record, seen through every output that carries it. Each output is read as
/// JSON objects, so the comparison is of what a client parses: the same keys with the same
/// values, whatever encoder wrote them.
@Suite("Event records: analyze, the store and export carry identical objects")
struct EventRecordOutputsTests {
    static var executable: String { BuiltProducts.path(of: "sportsensorctl") ?? "sportsensorctl (not built)" }

    /// Each line of JSON lines text as a JSON object.
    static func objects(lines text: String) throws -> [NSDictionary] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? NSDictionary)
        }
    }

    /// The records as the control API encodes its JSON (snake_case strategy), each as a JSON object.
    static func objects(encoding records: [EventRecord]) throws -> [NSDictionary] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        return try records.map { record in
            try #require(try JSONSerialization.jsonObject(with: encoder.encode(record)) as? NSDictionary)
        }
    }

    func run(_ arguments: [String]) async throws -> CommandResult {
        let result = try await runCommand(Self.executable, arguments)
        #expect(result.status == 0, "sportsensorctl \(arguments.joined(separator: " ")): \(result)")
        return result
    }

    @Test(
        "analyze's lines, the store's records and export --format jsonl are the same objects",
        arguments: [DetectionProfile.tableTennis, .jump, .throw, .steps])
    func sameObjects(profile: DetectionProfile) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable))
        let directory = TemporaryStateDirectory()
        defer { directory.remove() }
        let file = try directory.write(
            "recording.csv", Array(StoreFixtures.simulatedCSV(MotionScript(rawValue: profile.rawValue)!).utf8))
        let state = ["--state-dir", directory.path + "/state"]

        let analyzeText = try await run(["analyze", "--profile", profile.rawValue, file]).standardOutput
        let imported = try await run(["import", "--profile", profile.rawValue, file] + state)
        let id = imported.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let exportText = try await run(["export", id, "--format", "jsonl"] + state).standardOutput
        let store = try SessionStore.open(at: StateDirectory(path: directory.path + "/state"))
        let stored = try await store.events(of: try await store.session(idPrefix: id).id)

        let analyzed = try Self.objects(lines: analyzeText)
        #expect(!analyzed.isEmpty, "the fixture should hold \(profile.rawValue) events")
        #expect(try Self.objects(lines: exportText) == analyzed)
        #expect(try Self.objects(encoding: stored) == analyzed)
        // The JSON lines are one encoder's text: byte for byte the same.
        #expect(exportText == analyzeText)
        #expect(stored.map { $0.jsonLine + "\n" }.joined() == analyzeText)
        let keys = Set(analyzed.flatMap { $0.allKeys.compactMap { $0 as? String } })
        #expect(keys.isSubset(of: Set(EventRecordOutputsTests.documentedKeys)), "undocumented keys: \(keys)")
    }

    /// The keys Docs/FORMATS.md lists for the event record.
    static let documentedKeys = [
        "type", "t", "peak_g", "saturated", "intensity_g", "takeoff", "landing", "release", "catch", "flight_s",
        "height_m", "cadence_spm", "quality",
    ]
}
