// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection

/// What `sportsensorctl tail` prints for each event of the live stream, as a pure struct: feed it
/// events, write what it returns.
///
/// - `.live` (stdout is a terminal): a table, one row per session under a header, redrawn in
///   place with ANSI cursor-up and clear-line whenever its counters or its sensor's link change.
/// - `.plain` (stdout is a pipe or file): the header once, then one row per counters update and
///   one when a session ends, in the same columns.
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
    private(set) var linkStates: [String: LinkStateName] = [:]
    /// The last jump's or throw's height per session, from detections (counters carry the best).
    private(set) var lastHeights: [String: Double] = [:]
    /// Lines of the live block now on screen.
    private var linesOnScreen = 0

    /// A renderer printing in `mode`.
    init(mode: Mode) { self.mode = mode }

    /// What to print when the stream opens.
    mutating func start() -> String {
        switch mode {
        case .live: redraw()
        case .plain: Self.table([]).rendered
        case .events: ""
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
            case .plain: return row(update, linkState: update.linkState, ended: nil)
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
                return row(last, linkState: linkStates[last.sensor] ?? last.linkState, ended: reason)
            case .events: return Self.stopped(session) + "\n"
            }
        case .detection(let detection):
            if let height = detection.event.heightM { lastHeights[detection.sessionId] = height }
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
        var lines: [String]
        if counters.isEmpty {
            lines = ["waiting for a live session (start one with `sportsensorctl start`)…"]
        } else {
            let rows = counters.map { update in
                cells(update, linkState: linkStates[update.sensor] ?? update.linkState, ended: ended[update.sessionId])
            }
            lines = Self.table(rows).rendered.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .map(String.init)
        }
        var output = linesOnScreen > 0 ? "\r\u{1B}[\(linesOnScreen)A" : ""
        for line in lines { output += Self.clearLine + line + "\n" }
        linesOnScreen = lines.count
        return output
    }

    /// One session's row on its own, in the table's columns (piped output).
    private func row(_ update: SessionCounters, linkState: LinkStateName, ended: String?) -> String {
        var table = Self.table([cells(update, linkState: linkState, ended: ended)])
        table.showsHeaders = false
        return table.rendered
    }

    /// One session's cells, with the last height this renderer saw for it.
    private func cells(_ update: SessionCounters, linkState: LinkStateName, ended: String?) -> [String] {
        Self.cells(update, lastHeightM: lastHeights[update.sessionId], linkState: linkState, ended: ended)
    }

    // MARK: The session table

    /// The columns: sensor, athlete, profile, count, events per minute, the profile's best and last
    /// figure, strokes per side, target progress, link state, time since the start.
    static let headers = [
        "SENSOR", "ATHLETE", "PROFILE", "COUNT", "/MIN", "BEST/LAST", "FH", "BH", "TARGET", "LINK", "TIME",
    ]
    /// Least widths, so piped rows line up and a live table does not shift as numbers grow.
    static let minimumWidths = [9, 9, 12, 5, 5, 11, 3, 3, 6, 9, 7]

    /// The session table with these rows.
    static func table(_ rows: [[String]]) -> TextTable {
        var table = TextTable(
            headers,
            alignments: [.left, .left, .left, .right, .right, .right, .right, .right, .left, .left, .right])
        table.minimumWidths = minimumWidths
        table.rows = rows
        return table
    }

    /// One session's cells. BEST/LAST is the profile's figure: table tennis the largest and the
    /// last peak (g), jumps and throws the best and the last height (m), steps the cadence. LINK
    /// ends in "NOT SAVING" while the store cannot take the session's rows (`store_degraded`).
    static func cells(
        _ update: SessionCounters, lastHeightM: Double?, linkState: LinkStateName, ended: String?
    ) -> [String] {
        let fixed = GatewayFormatting.fixed
        let figure: String
        if update.lastPeakG != nil || update.maxPeakG != nil {
            figure = "\(fixed(update.maxPeakG, 2))/\(fixed(update.lastPeakG, 2)) g"
        } else if update.bestHeightM != nil || lastHeightM != nil {
            figure = "\(fixed(update.bestHeightM, 2))/\(fixed(lastHeightM, 2)) m"
        } else if let cadence = update.cadence {
            figure = "\(fixed(cadence, 0))/min"
        } else {
            figure = "-"
        }
        var target = "-"
        if let metric = update.targetMetric, let pct = update.targetPct {
            target = "\(fixed(pct, 0))% \(metric)"
        }
        // A live session whose rows the store cannot take is counted but not kept: the coach
        // should know before relying on the session afterwards (the board's tile says it too).
        var link = ended.map { "ended (\($0))" } ?? linkState.rawValue
        if ended == nil, update.storeDegraded == true { link += " NOT SAVING" }
        return [
            update.sensor, update.athlete ?? "-", update.profile, "\(update.count)", fixed(update.ratePerMinute, 1),
            figure, update.summary?.forehandHits.map { "\($0)" } ?? "-",
            update.summary?.backhandHits.map { "\($0)" } ?? "-", target, link,
            GatewayFormatting.duration(update.elapsedSeconds),
        ]
    }

    // MARK: Lines

    /// One detection: sensor, time into the session, type and its figures.
    static func line(_ detection: DetectionPayload) -> String {
        let event = detection.event
        var parts = [detection.sensor, "+" + GatewayFormatting.fixed(event.t, decimals: 2) + " s", event.type]
        if let peak = event.peakG {
            parts.append(
                "peak \(GatewayFormatting.fixed(peak, decimals: 2)) g" + (event.saturated == true ? " (clipped)" : ""))
        }
        if let side = event.side { parts.append(side) }
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
