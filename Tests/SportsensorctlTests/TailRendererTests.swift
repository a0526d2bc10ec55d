import ControlProtocol
// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import Testing

@testable import sportsensorctl

@Suite("tail renderer")
struct TailRendererTests {
    static func counters(
        _ id: String, sensor: String, count: Int, last: Double?, link: LinkStateName = .connected
    )
        -> SessionCounters
    {
        SessionCounters(
            sessionId: id, sensor: sensor, athlete: "Anna", profile: "table-tennis", count: count, lastPeakG: last,
            maxPeakG: last.map { max($0, 1.9) }, ratePerMinute: Double(count) * 2, bestHeightM: nil, cadence: nil,
            linkState: link, elapsedSeconds: Double(count) * 30)
    }

    static func session(_ id: String, sensor: String, live: Bool, reason: String? = nil) -> SessionInfo {
        SessionInfo(
            id: id, sensor: "FC:97:8B:75:10:AB", alias: sensor, athlete: "Anna", profile: "table-tennis",
            startedAt: Date(timeIntervalSince1970: 0), endedAt: live ? nil : Date(timeIntervalSince1970: 60),
            endReason: reason, isLive: live, eventCounts: ["hit": 3], samples: 6000, lostSamples: 0,
            malformedNotifications: 0, sampleRate: 100)
    }

    /// Three sessions, one per kind of figure: strokes with sides, jumps, steps with a target.
    static func three() -> (tableTennis: SessionCounters, jump: SessionCounters, steps: SessionCounters) {
        var tableTennis = counters("a", sensor: "anna-left", count: 3, last: 1.234)
        var summary = SessionSummary(profile: "table-tennis")
        summary.forehandHits = 2
        summary.backhandHits = 1
        tableTennis.summary = summary
        var jump = counters("b", sensor: "bob", count: 2, last: nil)
        jump.athlete = "Ben"
        jump.profile = "jump"
        jump.bestHeightM = 0.4123
        var steps = SessionCounters(
            sessionId: "c", sensor: "cleo-wrist", athlete: "Cleo", profile: "steps", count: 120, lastPeakG: nil,
            maxPeakG: nil, ratePerMinute: 110.46, bestHeightM: nil, cadence: 112.3, linkState: .connected,
            elapsedSeconds: 725.9, targets: [TargetProgress(metric: "steps", target: 480, value: 120)])
        steps.targetPct = 25
        return (tableTennis, jump, steps)
    }

    static let header =
        "SENSOR      ATHLETE    PROFILE       COUNT   /MIN    BEST/LAST   FH   BH  TARGET     LINK          TIME"
    static let rows = [
        "anna-left   Anna       table-tennis      3    6.0  1.90/1.23 g    2    1  -          connected   1m 30s",
        "bob         Ben        jump              2    4.0  0.41/0.38 m    -    -  -          lost        1m 00s",
        "cleo-wrist  Cleo       steps           120  110.5      112/min    -    -  25% steps  connected  12m 05s",
    ]

    @Test("on a terminal: a header and aligned columns, one row per session, redrawn in place")
    func liveTable() {
        var renderer = TailRenderer(mode: .live)
        let clear = TailRenderer.clearLine
        let waiting = "waiting for a live session (start one with `sportsensorctl start`)…"
        #expect(renderer.start() == clear + waiting + "\n")
        let (tableTennis, jump, steps) = Self.three()
        _ = renderer.apply(.counters(tableTennis))
        #expect(
            renderer.apply(
                .detection(
                    DetectionPayload(
                        sessionId: "b", sensor: "bob",
                        event: EventRecord(type: "jump", t: 3, takeoff: 3, landing: 3.55, flightS: 0.55, heightM: 0.38)
                    ))) == "")
        _ = renderer.apply(.counters(jump))
        _ = renderer.apply(.link(LinkPayload(sensor: "bob", address: "x", state: .lost, detail: nil)))
        let drawn = renderer.apply(.counters(steps))
        #expect(drawn == "\r\u{1B}[3A" + ([Self.header] + Self.rows).map { clear + $0 + "\n" }.joined())
        // A session's end shows in its row; the block is redrawn over the same lines, wider.
        let ended = renderer.apply(.session(Self.session("a", sensor: "anna-left", live: false, reason: "stopped")))
        let endedTable = [
            "SENSOR      ATHLETE    PROFILE       COUNT   /MIN    BEST/LAST   FH   BH  TARGET     LINK                TIME",
            "anna-left   Anna       table-tennis      3    6.0  1.90/1.23 g    2    1  -          ended (stopped)   1m 30s",
            "bob         Ben        jump              2    4.0  0.41/0.38 m    -    -  -          lost              1m 00s",
            "cleo-wrist  Cleo       steps           120  110.5      112/min    -    -  25% steps  connected        12m 05s",
        ]
        #expect(ended == "\r\u{1B}[4A" + endedTable.map { clear + $0 + "\n" }.joined())
        #expect(renderer.counters.map(\.sessionId) == ["a", "b", "c"])
    }

    @Test("a link change redraws its session's row at once; one for an unknown sensor draws nothing")
    func linkChange() {
        var renderer = TailRenderer(mode: .live)
        _ = renderer.start()
        let (tableTennis, _, _) = Self.three()
        _ = renderer.apply(.counters(tableTennis))
        let redrawn = renderer.apply(
            .link(LinkPayload(sensor: "anna-left", address: "x", state: .retrying, detail: "in 2 s")))
        #expect(
            redrawn == "\r\u{1B}[2A" + TailRenderer.clearLine
                + "SENSOR     ATHLETE    PROFILE       COUNT   /MIN    BEST/LAST   FH   BH  TARGET  LINK          TIME\n"
                + TailRenderer.clearLine
                + "anna-left  Anna       table-tennis      3    6.0  1.90/1.23 g    2    1  -       retrying    1m 30s\n"
        )
        #expect(renderer.apply(.link(LinkPayload(sensor: "eve", address: "x", state: .lost, detail: nil))) == "")
    }

    @Test("not a terminal: the header once, then each update a row in the same columns, no escape codes")
    func plain() {
        var renderer = TailRenderer(mode: .plain)
        #expect(
            renderer.start()
                == "SENSOR     ATHLETE    PROFILE       COUNT   /MIN    BEST/LAST   FH   BH  TARGET  LINK          TIME\n"
        )
        let (tableTennis, jump, _) = Self.three()
        #expect(
            renderer.apply(.counters(tableTennis))
                == "anna-left  Anna       table-tennis      3    6.0  1.90/1.23 g    2    1  -       connected   1m 30s\n"
        )
        #expect(
            renderer.apply(.counters(jump))
                == "bob        Ben        jump              2    4.0     0.41/- m    -    -  -       connected   1m 00s\n"
        )
        #expect(renderer.apply(.link(LinkPayload(sensor: "anna-left", address: "x", state: .lost, detail: nil))) == "")
        let end = renderer.apply(.session(Self.session("a", sensor: "anna-left", live: false, reason: "stopped")))
        #expect(
            end
                == "anna-left  Anna       table-tennis      3    6.0  1.90/1.23 g    2    1  -       ended (stopped)   1m 30s\n"
        )
        #expect(!end.contains("\u{1B}"))
    }

    @Test("--events: one line per detection, link change and session start or end; counters are silent")
    func events() {
        var renderer = TailRenderer(mode: .events)
        #expect(
            renderer.apply(.session(Self.session("5f0c1234-aaaa", sensor: "anna", live: true)))
                == "anna  session 5f0c1234 started (table-tennis, Anna)\n")
        #expect(renderer.apply(.counters(Self.counters("a", sensor: "anna", count: 1, last: 1.2))) == "")
        let hit = DetectionPayload(
            sessionId: "a", sensor: "anna", event: EventRecord(type: "hit", t: 12.345, peakG: 1.99994, saturated: true))
        #expect(renderer.apply(.detection(hit)) == "anna  +12.35 s  hit  peak 2.00 g (clipped)\n")
        let forehand = DetectionPayload(
            sessionId: "a", sensor: "anna", event: EventRecord(type: "hit", t: 13, peakG: 1.5, side: "forehand"))
        #expect(renderer.apply(.detection(forehand)) == "anna  +13.00 s  hit  peak 1.50 g  forehand\n")
        let jump = DetectionPayload(
            sessionId: "a", sensor: "anna",
            event: EventRecord(type: "jump", t: 3, takeoff: 3, landing: 3.5, flightS: 0.5, heightM: 0.3066))
        #expect(renderer.apply(.detection(jump)) == "anna  +3.00 s  jump  flight 0.500 s  height 0.31 m\n")
        #expect(
            renderer.apply(
                .link(LinkPayload(sensor: "anna", address: "x", state: .retrying, detail: "in 4 s, attempt 3")))
                == "anna  link retrying (in 4 s, attempt 3)\n")
        #expect(
            renderer.apply(.session(Self.session("5f0c1234-aaaa", sensor: "anna", live: false, reason: "stopped")))
                == "anna  session 5f0c1234 ended (stopped)\n")
    }

    @Test("--json: each SSE item as one JSON line with its kind and data; non-JSON data is left out")
    func jsonLines() throws {
        let line = try #require(TailCommand.jsonLine(ServerSentEvent(event: "link", data: "{\"state\":\"lost\"}")))
        #expect(line == "{\"data\":{\"state\":\"lost\"},\"event\":\"link\"}")
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["event"] as? String == "link")
        #expect(TailCommand.jsonLine(ServerSentEvent(event: "link", data: "not json")) == nil)
    }
}

@Suite("tail renderer: records and targets")
struct TailRendererMilestoneTests {
    static let record = RecordPayload(
        sessionId: "a", sensor: "anna-left", athlete: "Anna", metric: "best_height_m", value: 0.4512, previous: 0.41,
        previousSessionId: "b")
    static let target = TargetPayload(
        sessionId: "a", sensor: "anna-left", athlete: "Anna", metric: "jumps", target: 40, value: 40)

    @Test("a record and a reached target are a line in every mode; on a terminal the block is redrawn below it")
    func milestones() {
        let recordLine = "anna-left  RECORD Anna best_height_m 0.451 (best was 0.410)"
        let targetLine = "anna-left  TARGET Anna jumps 40.000 reached (target 40.000)"
        for mode in [TailRenderer.Mode.plain, .events] {
            var renderer = TailRenderer(mode: mode)
            #expect(renderer.apply(.record(Self.record)) == recordLine + "\n")
            #expect(renderer.apply(.target(Self.target)) == targetLine + "\n")
        }
        var live = TailRenderer(mode: .live)
        let clear = TailRenderer.clearLine
        _ = live.start()
        let counters = TailRendererTests.counters("a", sensor: "anna-left", count: 3, last: 1.2)
        let table = live.apply(.counters(counters)).replacingOccurrences(of: "\r\u{1B}[1A", with: "")
        #expect(live.apply(.record(Self.record)) == "\r\u{1B}[2A" + clear + recordLine + "\n" + table)
    }

    @Test("a live session the store cannot save says NOT SAVING in its link cell; once it ended, the end reason")
    func degradedStore() {
        var update = TailRendererTests.counters("a", sensor: "anna-left", count: 3, last: 1.234)
        update.storeDegraded = true
        var renderer = TailRenderer(mode: .plain)
        _ = renderer.start()
        let row = renderer.apply(.counters(update))
        #expect(row.contains("connected NOT SAVING"), "\(row)")
        let ended = renderer.apply(
            .session(TailRendererTests.session("a", sensor: "anna-left", live: false, reason: "stopped")))
        #expect(ended.contains("ended (stopped)") && !ended.contains("NOT SAVING"), "\(ended)")
        update.storeDegraded = false
        #expect(!renderer.apply(.counters(update)).contains("NOT SAVING"))
    }

    @Test("a session with a target shows how far it is")
    func targetProgress() {
        var counters = TailRendererTests.counters("a", sensor: "anna-left", count: 30, last: 1.2)
        counters.targets = [TargetProgress(metric: "hits", target: 120, value: 30)]
        counters.targetMetric = "hits"
        counters.targetPct = 25
        let cells = TailRenderer.cells(counters, lastHeightM: nil, linkState: .connected, ended: nil)
        #expect(cells[TailRenderer.headers.firstIndex(of: "TARGET")!] == "25% hits")
    }

    @Test("a name holding ESC or BEL from the daemon is shown escaped; tail's own cursor moves stay raw")
    func escapedNames() {
        let link = LinkPayload(sensor: "\u{1B}[2Jx\u{07}", address: "FC:97:8B:75:10:AB", state: .lost, detail: nil)
        #expect(TailRenderer.line(link) == "\\u{1B}[2Jx\\u{7}  link lost")
        let counters = TailRendererTests.counters("a", sensor: "\u{1B}]0;x", count: 3, last: 1.2)
        var live = TailRenderer(mode: .live)
        let drawn = live.apply(.counters(counters))
        #expect(drawn.contains("\\u{1B}]0;x"), "the name's escape is shown")
        #expect(!drawn.contains("\u{1B}]0;x"), "the name's raw escape never reaches the terminal")
    }
}
