// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection

/// What `sportsensorctl tail` prints for each event of the live stream, as a pure struct: feed it
/// events, write what it returns.
///
/// - `.live` (stdout is a terminal): one line per session, redrawn in place with ANSI cursor-up
///   and clear-line whenever its counters or its sensor's link change.
/// - `.plain` (stdout is a pipe or file): one line per counters update, and one when a session
///   ends.
/// - `.events`: one line per detection, link change and session start or end.
struct TailRenderer: Sendable {
    /// How to print.
    enum Mode: Sendable {
        case live
        case plain
        case events
    }

    /// ESC [ 2 K: clear the whole line.
    static let clearLine = "\u{1B}[2K"

    /// How to print.
    let mode: Mode
    /// The latest counters per session, in the order the sessions appeared.
    private(set) var counters: [SessionCounters] = []
    /// Sessions that ended, with their end reason.
    private(set) var ended: [String: String] = [:]
    /// The latest link state per sensor (alias or address), from link events.
    private(set) var linkStates: [String: String] = [:]
    /// Lines of the live block now on screen.
    private var linesOnScreen = 0

    /// A renderer printing in `mode`.
    init(mode: Mode) { self.mode = mode }

    /// What to print when the stream opens.
    mutating func start() -> String {
        switch mode {
        case .live: redraw()
        case .plain, .events: ""
        }
    }

    /// What to print for `event` (possibly nothing).
    mutating func apply(_ event: GatewayEvent) -> String {
        switch event {
        case .counters(let update):
            ended[update.sessionId] = nil
            if let index = counters.firstIndex(where: { $0.sessionId == update.sessionId }) {
                counters[index] = update
            } else {
                counters.append(update)
            }
            linkStates[update.sensor] = update.linkState
            switch mode {
            case .live: return redraw()
            case .plain: return Self.line(update, linkState: update.linkState, ended: nil) + "\n"
            case .events: return ""
            }
        case .link(let link):
            linkStates[link.sensor] = link.state
            switch mode {
            case .live: return counters.contains { $0.sensor == link.sensor } ? redraw() : ""
            case .plain: return ""
            case .events: return Self.line(link) + "\n"
            }
        case .session(let session):
            if session.isLive {
                return mode == .events ? Self.started(session) + "\n" : ""
            }
            let reason = session.endReason ?? "ended"
            ended[session.id] = reason
            switch mode {
            case .live: return counters.contains { $0.sessionId == session.id } ? redraw() : ""
            case .plain:
                guard let last = counters.first(where: { $0.sessionId == session.id }) else { return "" }
                return Self.line(last, linkState: linkStates[last.sensor] ?? last.linkState, ended: reason) + "\n"
            case .events: return Self.stopped(session) + "\n"
            }
        case .detection(let detection):
            return mode == .events ? Self.line(detection) + "\n" : ""
        case .record(let record):
            return announce(Self.line(record))
        case .target(let target):
            return announce(Self.line(target))
        }
    }

    /// A line every mode shows; the live block is redrawn below it.
    private mutating func announce(_ line: String) -> String {
        guard mode == .live else { return line + "\n" }
        let up = linesOnScreen > 0 ? "\r\u{1B}[\(linesOnScreen)A" : ""
        linesOnScreen = 0
        return up + Self.clearLine + line + "\n" + redraw()
    }

    /// The live block: cursor back to its first line, every line cleared and rewritten.
    private mutating func redraw() -> String {
        var lines = counters.map { update in
            Self.line(update, linkState: linkStates[update.sensor] ?? update.linkState, ended: ended[update.sessionId])
        }
        if lines.isEmpty { lines = ["waiting for a live session (start one with `sportsensorctl start`)…"] }
        var output = linesOnScreen > 0 ? "\r\u{1B}[\(linesOnScreen)A" : ""
        for line in lines { output += Self.clearLine + line + "\n" }
        linesOnScreen = lines.count
        return output
    }

    // MARK: Lines

    /// One session's line: sensor, athlete, profile, count, peaks or height or cadence, rate,
    /// link state, elapsed time.
    static func line(_ update: SessionCounters, linkState: String, ended: String?) -> String {
        var parts = [update.sensor, update.athlete ?? "-", update.profile, "count \(update.count)"]
        if update.lastPeakG != nil || update.maxPeakG != nil {
            parts.append(
                "last \(GatewayFormatting.fixed(update.lastPeakG, decimals: 2)) g"
                    + " max \(GatewayFormatting.fixed(update.maxPeakG, decimals: 2)) g")
        }
        if let height = update.bestHeightM { parts.append("best \(GatewayFormatting.fixed(height, decimals: 2)) m") }
        if let cadence = update.cadence { parts.append("cadence \(GatewayFormatting.fixed(cadence, decimals: 0))/min") }
        parts.append("\(GatewayFormatting.fixed(update.ratePerMinute, decimals: 1))/min")
        if let metric = update.targetMetric, let pct = update.targetPct {
            parts.append("\(metric) \(GatewayFormatting.fixed(pct, decimals: 0))% of target")
        }
        parts.append(ended.map { "ended (\($0))" } ?? linkState)
        parts.append(GatewayFormatting.duration(update.elapsedSeconds))
        return TerminalText.escaped(parts.joined(separator: "  "))
    }

    /// One detection: sensor, time into the session, type and its figures.
    static func line(_ detection: DetectionPayload) -> String {
        let event = detection.event
        var parts = [detection.sensor, "+" + GatewayFormatting.fixed(event.t, decimals: 2) + " s", event.type]
        if let peak = event.peakG {
            parts.append(
                "peak \(GatewayFormatting.fixed(peak, decimals: 2)) g" + (event.saturated == true ? " (clipped)" : ""))
        }
        if let flight = event.flightS { parts.append("flight \(GatewayFormatting.fixed(flight, decimals: 3)) s") }
        if let height = event.heightM { parts.append("height \(GatewayFormatting.fixed(height, decimals: 2)) m") }
        return TerminalText.escaped(parts.joined(separator: "  "))
    }

    /// A personal best beaten.
    static func line(_ record: RecordPayload) -> String {
        TerminalText.escaped(
            "\(record.sensor)  RECORD \(record.athlete) \(record.metric) \(GatewayFormatting.fixed(record.value, decimals: 3))"
                + " (best was \(GatewayFormatting.fixed(record.previous, decimals: 3)))")
    }

    /// A target reached.
    static func line(_ target: TargetPayload) -> String {
        TerminalText.escaped(
            "\(target.sensor)  TARGET \(target.athlete ?? "-") \(target.metric) \(GatewayFormatting.fixed(target.value, decimals: 3))"
                + " reached (target \(GatewayFormatting.fixed(target.target, decimals: 3)))")
    }

    /// A link change.
    static func line(_ link: LinkPayload) -> String {
        TerminalText.escaped(
            "\(link.sensor)  link \(link.state)" + (link.detail.map { " (\($0))" } ?? ""))
    }

    /// A session start.
    static func started(_ session: SessionInfo) -> String {
        TerminalText.escaped(
            "\(session.alias ?? session.sensor)  session \(GatewayFormatting.shortID(session.id)) started"
                + " (\(session.profile)\(session.athlete.map { ", " + $0 } ?? ""))")
    }

    /// A session end.
    static func stopped(_ session: SessionInfo) -> String {
        TerminalText.escaped(
            "\(session.alias ?? session.sensor)  session \(GatewayFormatting.shortID(session.id)) ended"
                + " (\(session.endReason ?? "ended"))")
    }
}
