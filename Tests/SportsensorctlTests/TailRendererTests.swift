import ControlProtocol
// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import Testing

@testable import sportsensorctl

@Suite("tail renderer")
struct TailRendererTests {
    static func counters(
        _ id: String, sensor: String, count: Int, last: Double?, link: String = "connected"
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

    @Test("a session's line: sensor, athlete, profile, count, last/max peak, rate, link state, elapsed")
    func line() {
        let line = TailRenderer.line(
            Self.counters("a", sensor: "anna-left", count: 3, last: 1.234), linkState: "connected", ended: nil)
        #expect(line == "anna-left  Anna  table-tennis  count 3  last 1.23 g max 1.90 g  6.0/min  connected  1m 30s")
        var jump = Self.counters("b", sensor: "bob", count: 2, last: nil)
        jump.profile = "jump"
        jump.bestHeightM = 0.4123
        #expect(
            TailRenderer.line(jump, linkState: "lost", ended: nil)
                == "bob  Anna  jump  count 2  best 0.41 m  4.0/min  lost  1m 00s")
        #expect(TailRenderer.line(jump, linkState: "lost", ended: "stopped").contains("ended (stopped)"))
    }

    @Test("on a terminal: one line per session, redrawn in place with cursor-up and clear-line")
    func liveRedraw() {
        var renderer = TailRenderer(mode: .live)
        let clear = TailRenderer.clearLine
        let waiting = "waiting for a live session (start one with `sportsensorctl start`)…"
        #expect(renderer.start() == clear + waiting + "\n")
        let a1 = Self.counters("a", sensor: "anna", count: 1, last: 1.2)
        let lineA1 = TailRenderer.line(a1, linkState: "connected", ended: nil)
        #expect(renderer.apply(.counters(a1)) == "\r\u{1B}[1A" + clear + lineA1 + "\n")
        let b1 = Self.counters("b", sensor: "bob", count: 5, last: 1.5)
        let lineB1 = TailRenderer.line(b1, linkState: "connected", ended: nil)
        #expect(renderer.apply(.counters(b1)) == "\r\u{1B}[1A" + clear + lineA1 + "\n" + clear + lineB1 + "\n")
        let a2 = Self.counters("a", sensor: "anna", count: 2, last: 1.8)
        let lineA2 = TailRenderer.line(a2, linkState: "connected", ended: nil)
        #expect(renderer.apply(.counters(a2)) == "\r\u{1B}[2A" + clear + lineA2 + "\n" + clear + lineB1 + "\n")
        // A link event changes the sensor's line at once; one for an unknown sensor draws nothing.
        let lost = LinkPayload(sensor: "bob", address: "FC:97:8B:75:10:AB", state: "retrying", detail: "in 2 s")
        let lineB1Lost = TailRenderer.line(b1, linkState: "retrying", ended: nil)
        #expect(renderer.apply(.link(lost)) == "\r\u{1B}[2A" + clear + lineA2 + "\n" + clear + lineB1Lost + "\n")
        #expect(renderer.apply(.link(LinkPayload(sensor: "eve", address: "x", state: "lost", detail: nil))) == "")
        // Detections do not draw on the live block; a session end marks its line.
        #expect(
            renderer.apply(
                .detection(DetectionPayload(sessionId: "a", sensor: "anna", event: EventRecord(type: "hit", t: 1))))
                == "")
        let ended = renderer.apply(.session(Self.session("a", sensor: "anna", live: false, reason: "stopped")))
        #expect(ended.hasPrefix("\r\u{1B}[2A" + clear))
        #expect(ended.contains("anna  Anna  table-tennis  count 2") && ended.contains("ended (stopped)"))
        #expect(renderer.counters.map(\.sessionId) == ["a", "b"])
    }

    @Test("not a terminal: one plain line per counters update, one when a session ends, no escape codes")
    func plain() {
        var renderer = TailRenderer(mode: .plain)
        #expect(renderer.start() == "")
        let a1 = Self.counters("a", sensor: "anna", count: 1, last: 1.2)
        #expect(renderer.apply(.counters(a1)) == TailRenderer.line(a1, linkState: "connected", ended: nil) + "\n")
        #expect(renderer.apply(.link(LinkPayload(sensor: "anna", address: "x", state: "lost", detail: nil))) == "")
        #expect(
            renderer.apply(
                .detection(DetectionPayload(sessionId: "a", sensor: "anna", event: EventRecord(type: "hit", t: 1))))
                == "")
        let end = renderer.apply(.session(Self.session("a", sensor: "anna", live: false, reason: "stopped")))
        #expect(end == TailRenderer.line(a1, linkState: "lost", ended: "stopped") + "\n")
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
        let jump = DetectionPayload(
            sessionId: "a", sensor: "anna",
            event: EventRecord(type: "jump", t: 3, takeoff: 3, landing: 3.5, flightS: 0.5, heightM: 0.3066))
        #expect(renderer.apply(.detection(jump)) == "anna  +3.00 s  jump  flight 0.500 s  height 0.31 m\n")
        #expect(
            renderer.apply(
                .link(LinkPayload(sensor: "anna", address: "x", state: "retrying", detail: "in 4 s, attempt 3")))
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
        _ = live.apply(.counters(counters))
        let line = TailRenderer.line(counters, linkState: "connected", ended: nil)
        #expect(live.apply(.record(Self.record)) == "\r\u{1B}[1A" + clear + recordLine + "\n" + clear + line + "\n")
    }

    @Test("a session with a target shows how far it is")
    func targetProgress() {
        var counters = TailRendererTests.counters("a", sensor: "anna-left", count: 30, last: 1.2)
        counters.targets = [TargetProgress(metric: "hits", target: 120, value: 30)]
        counters.targetMetric = "hits"
        counters.targetPct = 25
        #expect(TailRenderer.line(counters, linkState: "connected", ended: nil).contains("hits 25% of target"))
    }

    @Test("a name holding ESC or BEL from the daemon is shown escaped; tail's own cursor moves stay raw")
    func escapedNames() {
        let link = LinkPayload(sensor: "\u{1B}[2Jx\u{07}", address: "FC:97:8B:75:10:AB", state: "lost", detail: nil)
        #expect(TailRenderer.line(link) == "\\u{1B}[2Jx\\u{7}  link lost")
        let counters = TailRendererTests.counters("a", sensor: "\u{1B}]0;x", count: 3, last: 1.2)
        let line = TailRenderer.line(counters, linkState: "connected", ended: nil)
        #expect(line.hasPrefix("\\u{1B}]0;x  "))
        var live = TailRenderer(mode: .live)
        let drawn = live.apply(.counters(counters))
        #expect(drawn.contains("\u{1B}[2K\\u{1B}]0;x"), "the clear-line escape is the renderer's, the name's is shown")
    }
}
