// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import SDUSensor
import SessionStore

/// What `report` prints: one row per session, the totals, a row per week, the personal bests.
struct TrainingReport {
    /// One session with its athlete and summary.
    struct Session {
        var id: String
        var athlete: String
        var startedAt: Date
        var summary: SessionSummary
    }

    /// Sums over a set of sessions.
    struct Totals {
        var sessions = 0
        var durationS = 0.0
        var activeS = 0.0
        var playerload = 0.0
        /// Nil once a session without kcal is in the sum (an athlete without a body mass).
        var kcal: Double? = 0
        var hits = 0
        var jumps = 0
        var throwCount = 0
        var steps = 0
        var bestHeightM: Double?
        var maxPeakG: Double?

        mutating func add(_ summary: SessionSummary) {
            sessions += 1
            durationS += summary.durationS
            activeS += summary.activeS
            playerload += summary.playerload
            kcal = kcal.flatMap { total in summary.kcal.map { total + $0 } }
            hits += summary.hits ?? 0
            jumps += summary.jumps ?? 0
            throwCount += summary.throws ?? 0
            steps += summary.steps ?? 0
            if let height = summary.bestHeightM { bestHeightM = max(bestHeightM ?? height, height) }
            if let peak = summary.maxPeakG { maxPeakG = max(maxPeakG ?? peak, peak) }
        }
    }

    var from: Date
    var athletes: [String]
    var sessions: [Session]
    var totals: Totals
    /// Monday 00:00 UTC of each week with sessions, oldest first, and its totals.
    var weeks: [(start: Date, totals: Totals)]
    var bests: [(athlete: String, metric: SummaryMetric, entry: LeaderboardEntry)]

    /// Gathers the report of `athletes` over sessions started from `from`.
    static func load(athletes: [Athlete], from: Date, store: SessionStore) async throws -> TrainingReport {
        var sessions: [Session] = []
        var bests: [(String, SummaryMetric, LeaderboardEntry)] = []
        for athlete in athletes {
            for record in try await store.sessions(filter: SessionFilter(athleteID: athlete.id, startedFrom: from))
            where !record.isOpen {
                guard let summary = try await summary(of: record, athlete: athlete, store: store) else { continue }
                sessions.append(
                    Session(id: record.idText, athlete: athlete.name, startedAt: record.startedAt, summary: summary))
            }
            for (metric, entry) in try await store.personalBests(athleteID: athlete.id) {
                bests.append((athlete.name, metric, entry))
            }
        }
        sessions.sort { $0.startedAt < $1.startedAt }
        var totals = Totals()
        var weekly: [Date: Totals] = [:]
        for session in sessions {
            totals.add(session.summary)
            weekly[weekStart(session.startedAt), default: Totals()].add(session.summary)
        }
        return TrainingReport(
            from: from, athletes: athletes.map(\.name), sessions: sessions, totals: totals,
            weeks: weekly.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, bests: bests)
    }

    /// A session's stored summary, or one computed now for a session stored before summaries.
    static func summary(of record: SessionRecord, athlete: Athlete, store: SessionStore) async throws -> SessionSummary?
    {
        if let stored = try await store.summary(of: record.id) { return stored }
        guard let profile = DetectionProfile(rawValue: record.profile) else { return nil }
        let samples = try await store.detectionSamples(of: record.id)
        let events = try await store.events(of: record.id).compactMap(\.detectorEvent).sorted { $0.time < $1.time }
        return SessionSummaryAccumulator.summary(profile: profile, samples: samples, events: events)
            .withBodyMass(athlete.massKg)
    }

    /// Monday 00:00 UTC of the week holding `date`.
    static func weekStart(_ date: Date) -> Date {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.dateInterval(of: .weekOfYear, for: date)?.start ?? date
    }

    static func day(_ date: Date) -> String { String(StoreFormat.time(date).prefix(10)) }

    static func number(_ value: Double?, _ decimals: Int, missing: String = "-") -> String {
        value.map { SampleCSV.fixed($0, decimals: decimals) } ?? missing
    }

    /// The numbers of a row, in `columns` order; `missing` for a number not known.
    static func cells(_ totals: Totals, missing: String = "-") -> [String] {
        [
            "\(totals.sessions)", number(totals.durationS, 1), number(totals.activeS, 1), number(totals.playerload, 2),
            number(totals.kcal, 1, missing: missing), "\(totals.hits)", "\(totals.jumps)", "\(totals.throwCount)",
            "\(totals.steps)", number(totals.bestHeightM, 3, missing: missing),
            number(totals.maxPeakG, 3, missing: missing),
        ]
    }

    static let columns = [
        "sessions", "duration_s", "active_s", "playerload", "kcal", "hits", "jumps", "throws", "steps",
        "best_height_m", "max_peak_g",
    ]

    var table: String {
        var text = "report for \(athletes.joined(separator: ", ")) since \(Self.day(from))\n\n"
        var rows: [[String]] = sessions.map { session in
            var single = Totals()
            single.add(session.summary)
            return [
                Self.day(session.startedAt), String(session.id.prefix(8)), session.athlete, session.summary.profile,
            ]
                + Self.cells(single).dropFirst()
        }
        rows.append(["total", "", "", ""] + Self.cells(totals).dropFirst())
        text +=
            StoreFormat.table(
                header: ["DAY", "SESSION", "ATHLETE", "PROFILE"] + Self.columns.dropFirst().map { $0.uppercased() },
                rows: rows, numeric: Swift.Set(4..<14)) + "\n\nweekly\n"
        text +=
            StoreFormat.table(
                header: ["WEEK"] + Self.columns.map { $0.uppercased() },
                rows: weeks.map { [Self.day($0.start)] + Self.cells($0.totals) }, numeric: Swift.Set(1..<12)) + "\n"
        if !bests.isEmpty {
            text += "\npersonal bests\n"
            text +=
                StoreFormat.table(
                    header: ["ATHLETE", "METRIC", "BEST", "SESSION", "DAY"],
                    rows: bests.map {
                        [
                            $0.athlete, $0.metric.rawValue, Self.number($0.entry.value, 3),
                            String($0.entry.sessionID.prefix(8)), Self.day($0.entry.at),
                        ]
                    }, numeric: [2]) + "\n"
        }
        return text
    }

    /// One table: a `section` column tells session, week and total rows apart.
    var csv: String {
        var lines = [(["section", "key", "athlete", "profile"] + Self.columns).joined(separator: ",")]
        for session in sessions {
            var single = Totals()
            single.add(session.summary)
            lines.append(
                (["session", session.id, CSVCell.text(session.athlete), CSVCell.text(session.summary.profile)]
                    + Self.cells(single, missing: ""))
                    .joined(separator: ","))
        }
        for week in weeks {
            lines.append(
                (["week", Self.day(week.start), "", ""] + Self.cells(week.totals, missing: "")).joined(separator: ","))
        }
        lines.append((["total", Self.day(from), "", ""] + Self.cells(totals, missing: "")).joined(separator: ","))
        return lines.joined(separator: "\n") + "\n"
    }

    var json: String {
        func totalsJSON(_ totals: Totals) -> String {
            StoreFormat.object(
                Array(zip(Self.columns, Self.cells(totals, missing: "null"))))
        }
        return StoreFormat.object([
            ("athletes", "[" + athletes.map(StoreFormat.string).joined(separator: ",") + "]"),
            ("since", StoreFormat.string(StoreFormat.time(from))),
            (
                "sessions",
                "["
                    + sessions.map {
                        StoreFormat.object([
                            ("session_id", StoreFormat.string($0.id)), ("athlete", StoreFormat.string($0.athlete)),
                            ("started_at", StoreFormat.string(StoreFormat.time($0.startedAt))),
                            ("summary", $0.summary.jsonLine),
                        ])
                    }.joined(separator: ",") + "]"
            ),
            ("totals", totalsJSON(totals)),
            (
                "weekly",
                "["
                    + weeks.map {
                        StoreFormat.object([
                            ("week", StoreFormat.string(Self.day($0.start))), ("totals", totalsJSON($0.totals)),
                        ])
                    }.joined(separator: ",") + "]"
            ),
            (
                "bests",
                "["
                    + bests.map {
                        StoreFormat.object([
                            ("athlete", StoreFormat.string($0.athlete)),
                            ("metric", StoreFormat.string($0.metric.rawValue)),
                            ("value", StoreFormat.number($0.entry.value, 3)),
                            ("session_id", StoreFormat.string($0.entry.sessionID)),
                            ("at", StoreFormat.string(StoreFormat.time($0.entry.at))),
                        ])
                    }.joined(separator: ",") + "]"
            ),
        ])
    }
}
