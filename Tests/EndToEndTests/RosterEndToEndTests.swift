// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A roster of four athletes on four virtual jump sensors, through the real processes: sessions
/// with summaries, leaderboards, a `record` and a `target` item, reports, and removal rules.
@Suite("End to end: roster, summaries, leaderboards, records and targets", .serialized, .timeLimit(.minutes(6)))
struct RosterEndToEndTests {
    static let fourJumpSensors = """
        [virtual]
        sensors = 4
        scripts = ["jump"]

        """

    static let athletes = ["anna", "ben", "cleo", "dan"]

    @Test("four athletes: sessions → leaderboards → a record and a target live → report → removal")
    func roster() async throws {
        try await RunningGateway.with(config: Self.fourJumpSensors) { gateway in
            // The roster: a team, four athletes (dan without a body mass), names checked.
            #expect(try await gateway.control(["teams", "add", "juniors"]).status == 0)
            for (index, name) in Self.athletes.enumerated() {
                var arguments = ["athletes", "add", name, "--birth-year", "\(2005 + index)"]
                if name != "dan" { arguments += ["--mass-kg", "\(55 + 5 * index)"] }
                if index < 2 { arguments += ["--team", "juniors"] }
                let added = try await gateway.control(arguments)
                #expect(added.status == 0, "\(added)")
            }
            let bad = try await gateway.control(["athletes", "add", "eve\u{1B}[2J"])
            #expect(bad.status != 0)
            #expect(bad.standardError.contains("control character"), "\(bad)")
            let twice = try await gateway.control(["athletes", "add", "anna"])
            #expect(twice.status != 0 && twice.standardError.contains("already exists"), "\(twice)")
            let listed = try await gateway.controlJSON(["athletes", "list", "--json"]) as? [[String: Any]] ?? []
            #expect(listed.map { $0["name"] as? String } == Self.athletes)
            #expect(listed.first?["teams"] as? [String] == ["juniors"])
            #expect(listed.last?["mass_kg"] == nil || listed.last?["mass_kg"] is NSNull)

            // Round 1: every athlete jumps on their own sensor until each session has a jump.
            for index in 1...4 { #expect(try await gateway.waitForLink("virtual-\(index)"), "\(gateway.log)") }
            let tail = try gateway.tail()
            var sessions: [String: String] = [:]
            for (index, name) in Self.athletes.enumerated() {
                let started =
                    try await gateway.controlJSON([
                        "start", "--sensor", "virtual-\(index + 1)", "--profile", "jump", "--athlete", name, "--json",
                    ]) as? [String: Any]
                sessions[name] = try #require(started?["id"] as? String)
            }
            let jumped = await tail.waitForOutput(timeout: .seconds(90)) { lines in
                sessions.values.allSatisfy { !TailLine.detections(in: lines, session: $0).isEmpty }
            }
            #expect(jumped, "every athlete jumped:\n\(gateway.log)")
            let liveCounters = tail.output.compactMap(TailLine.init).last { $0.event == "counters" }
            let liveSummary = liveCounters?.data["summary"] as? [String: Any]
            #expect(liveSummary?["profile"] as? String == "jump", "counters carry the live summary")
            for id in sessions.values {
                #expect(try await gateway.control(["stop", String(id.prefix(8))]).status == 0)
            }

            // Each stored summary: the same object from show and from analyze over the exported samples.
            let annaID = try #require(sessions["anna"])
            let shown = try await gateway.controlJSON(["show", annaID, "--json"]) as? [String: Any]
            let stored = try #require(shown?["summary"] as? [String: Any])
            #expect((stored["jumps"] as? Int ?? 0) >= 1)
            #expect(stored["kcal"] is Double, "anna has a body mass")
            let csv = gateway.directory + "/anna.csv"
            #expect(try await gateway.control(["export", annaID, "--format", "csv", "--output", csv]).status == 0)
            let analyzed =
                try await gateway.controlJSON([
                    "analyze", csv, "--profile", "jump", "--summary", "--json", "--mass-kg", "55",
                ]) as? [String: Any]
            for key in ["jumps", "best_height_m", "samples", "gaps", "best_rsi"] {
                #expect("\(analyzed?[key] ?? "missing")" == "\(stored[key] ?? "missing")", "\(key)")
            }
            for key in ["playerload", "enmo_mg", "active_s", "kcal"] {
                let offline = analyzed?[key] as? Double ?? -1
                let online = stored[key] as? Double ?? -2
                // Both are written with at most three decimals: their difference in whole thousandths is exact,
                // where the doubles' own difference reads a one-hundredth gap as 0.010000000000000009.
                let thousandths = ((offline - online).magnitude * 1000).rounded()
                #expect(thousandths <= 10 * max(1, abs(online)), "\(key): \(offline) vs \(online)")
            }
            let danShown =
                try await gateway.controlJSON(["show", try #require(sessions["dan"]), "--json"]) as? [String: Any]
            let danSummary = danShown?["summary"] as? [String: Any]
            #expect(danSummary?["kcal"] is NSNull && (danSummary?["kcal_note"] as? String)?.contains("mass") == true)

            // Leaderboards: four athletes, then only the team's two.
            let board = try await gateway.controlJSON(["leaderboard", "jumps", "--json"]) as? [[String: Any]] ?? []
            #expect(Set(board.compactMap { $0["athlete"] as? String }) == Set(Self.athletes))
            #expect(board.first?["rank"] as? Int == 1)
            for row in board {
                #expect(Set(row.keys) == ["rank", "athlete", "value", "session_id", "at"])
                #expect(sessions[row["athlete"] as? String ?? ""] == row["session_id"] as? String)
            }
            let team =
                try await gateway.controlJSON([
                    "leaderboard", "best_height_m", "--period", "day", "--team", "juniors", "--json",
                ]) as? [[String: Any]] ?? []
            #expect(Set(team.compactMap { $0["athlete"] as? String }) == ["anna", "ben"])
            let unknown = try await gateway.control(["leaderboard", "fastest"])
            #expect(unknown.status != 0 && unknown.standardError.contains("best_height_m"), "\(unknown)")

            // Round 2: anna with a target of one jump; a longer session passes her round-1 load.
            let target = try await gateway.control(["targets", "set", "jumps", "1", "--athlete", "anna", "--json"])
            #expect(target.status == 0, "\(target)")
            let second =
                try await gateway.controlJSON([
                    "start", "--sensor", "virtual-1", "--profile", "jump", "--athlete", "anna", "--json",
                ]) as? [String: Any]
            let secondID = try #require(second?["id"] as? String)
            let announced = await tail.waitForOutput(timeout: .seconds(150)) { lines in
                let items = lines.compactMap(TailLine.init).filter { $0.data["session_id"] as? String == secondID }
                // The counters after the target (they come once a second) show it passed.
                return items.contains { $0.event == "record" } && items.contains { $0.event == "target" }
                    && items.contains { $0.event == "counters" && ($0.data["target_pct"] as? Double ?? 0) >= 100 }
            }
            #expect(announced, "a record and a target item for anna:\n\(tail.output.suffix(5))\n\(gateway.log)")
            let items = tail.output.compactMap(TailLine.init).filter { $0.data["session_id"] as? String == secondID }
            let record = items.first { $0.event == "record" }
            #expect(record?.data["athlete"] as? String == "anna")
            #expect(record?.data["previous_session_id"] as? String == annaID)
            #expect((record?.data["value"] as? Double ?? 0) > (record?.data["previous"] as? Double ?? 0))
            let reached = items.first { $0.event == "target" }
            #expect(reached?.data["metric"] as? String == "jumps" && reached?.data["target"] as? Double == 1)
            let counters = items.last { $0.event == "counters" && $0.data["target_pct"] is Double }
            #expect(counters?.data["target"] as? Double == 1 && counters?.data["target_metric"] as? String == "jumps")
            #expect((counters?.data["target_pct"] as? Double ?? 0) >= 100)
            #expect(try await gateway.control(["stop", String(secondID.prefix(8))]).status == 0)
            tail.send(SIGINT)
            _ = await tail.waitForExit(timeout: .seconds(10))

            // The metric the record was for is now anna's best from the second session (a rate such
            // as playerload_per_min can fall again before the session ends, so it is left out).
            let bests =
                try await gateway.controlJSON(["athletes", "bests", "anna", "--json"]) as? [[String: Any]] ?? []
            if let metric = record?.data["metric"] as? String, metric != "playerload_per_min" {
                #expect(bests.contains { $0["metric"] as? String == metric && $0["session_id"] as? String == secondID })
            }

            // Reports: anna's two sessions; the team as CSV.
            let report = try await gateway.controlJSON(["report", "anna", "--format", "json"]) as? [String: Any]
            #expect((report?["sessions"] as? [Any])?.count == 2)
            #expect((report?["totals"] as? [String: Any])?["sessions"] as? Int == 2)
            #expect((report?["weekly"] as? [Any])?.isEmpty == false)
            let teamCSV = try await gateway.control(["report", "--team", "juniors", "--format", "csv"])
            #expect(teamCSV.status == 0, "\(teamCSV)")
            #expect(teamCSV.standardOutput.split(separator: "\n").filter { $0.hasPrefix("session,") }.count == 3)

            // Removal: refused with sessions, then kept; the leaderboard loses ben, not his session.
            let refused = try await gateway.control(["athletes", "remove", "ben"])
            #expect(refused.status != 0 && refused.standardError.contains("--keep-sessions"), "\(refused)")
            #expect(try await gateway.control(["athletes", "remove", "ben", "--keep-sessions"]).status == 0)
            let after = try await gateway.controlJSON(["leaderboard", "jumps", "--json"]) as? [[String: Any]] ?? []
            #expect(!after.contains { $0["athlete"] as? String == "ben" })
            let benID: String = try #require(sessions["ben"])
            let benSession = try await gateway.controlJSON(["show", benID, "--json"]) as? [String: Any]
            #expect(benSession?["summary"] is [String: Any])
        }
    }
}
