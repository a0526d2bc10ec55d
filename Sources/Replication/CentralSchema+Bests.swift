// SPDX-License-Identifier: GPL-2.0-or-later
import Detection

extension CentralSchema {
    /// The club-wide leaderboard's bests leave out events the gateway's bests leave out
    /// (`SummaryMetric.excludingFlags`, Docs/METRICS.md "Flagged events and bests"); counts keep
    /// them. The flag lists come from that rule when the migration is built: a later change of the
    /// rule needs a new migration that replaces the view again.
    static let version5 = """
        -- As in version 1, but a best height or peak leaves out events whose quality flags can make
        -- a non-event or an inflated value; the counts still take every event.
        CREATE OR REPLACE VIEW sportsensor.leaderboard AS
        SELECT e.type, a.name AS athlete, count(*) AS events,
               max(e.height_m) FILTER (WHERE \(trustedHeight)) AS best_height_m,
               max(e.peak_g) FILTER (WHERE \(trustedPeak)) AS best_peak_g,
               rank() OVER (PARTITION BY e.type ORDER BY count(*) DESC) AS rank_by_count,
               rank() OVER (
                   PARTITION BY e.type ORDER BY max(e.height_m) FILTER (WHERE \(trustedHeight)) DESC NULLS LAST
               ) AS rank_by_height
        FROM sportsensor.events e
        JOIN sportsensor.sessions s ON s.gateway_id = e.gateway_id AND s.id = e.session_id
        JOIN sportsensor.athletes a ON a.gateway_id = s.gateway_id AND a.id = s.athlete_id
        GROUP BY e.type, a.name;
        """

    /// A jump's or a throw's height may be a best.
    static var trustedHeight: String {
        "NOT ((\(isKind(.jump)) AND \(flagged(.bestHeightM))) OR (\(isKind(.throw)) AND \(flagged(.bestThrowHeightM))))"
    }

    /// A hit's peak may be a best.
    static var trustedPeak: String { "NOT (\(isKind(.hit)) AND \(flagged(.maxPeakG)))" }

    static func isKind(_ kind: EventKind) -> String { "e.type = '\(kind.rawValue)'" }

    /// The event carries a flag that keeps it from setting `metric` (the store's `extra` holds the
    /// flags as `"quality":["clipped",…]`; no `extra` is no flag).
    static func flagged(_ metric: SummaryMetric) -> String {
        let flags = metric.excludingFlags.flags.map { "'\($0.rawValue)'" }
        guard !flags.isEmpty else { return "false" }
        return "coalesce(e.extra -> 'quality' ?| array[\(flags.joined(separator: ", "))], false)"
    }
}
