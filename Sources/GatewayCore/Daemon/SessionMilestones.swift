// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import SessionStore

/// The personal bests a live session is measured against and the targets it counts towards: pure,
/// fed the summary so far, it returns the `record` and `target` items now due, each once per
/// metric and session.
public struct SessionMilestones: Sendable {
    /// The athlete's bests over the sessions finished before this one.
    public var bests: [SummaryMetric: LeaderboardEntry]
    /// The session's targets (its own, else its athlete's).
    public var targets: [SummaryMetric: Double]
    private var recordsAnnounced: Set<SummaryMetric> = []
    private var targetsReached: Set<SummaryMetric> = []

    /// Milestones against `bests` and `targets`.
    public init(bests: [SummaryMetric: LeaderboardEntry] = [:], targets: [SummaryMetric: Double] = [:]) {
        self.bests = bests
        self.targets = targets
    }

    /// The items `summary` makes due: a `record` for each best it beats (a session without an
    /// athlete has no bests), a `target` for each target it reaches; never one twice.
    public mutating func due(
        _ summary: SessionSummary, session: String, sensor: String, athlete: String?
    ) -> [GatewayEvent] {
        var items: [GatewayEvent] = []
        if let athlete {
            for (metric, best) in bests.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                guard let value = summary.value(of: metric), value > best.value, !recordsAnnounced.contains(metric)
                else { continue }
                recordsAnnounced.insert(metric)
                items.append(
                    .record(
                        RecordPayload(
                            sessionId: session, sensor: sensor, athlete: athlete, metric: metric.rawValue, value: value,
                            previous: best.value, previousSessionId: best.sessionID)))
            }
        }
        for (metric, target) in targets.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let value = summary.value(of: metric), value >= target, !targetsReached.contains(metric) else {
                continue
            }
            targetsReached.insert(metric)
            items.append(
                .target(
                    TargetPayload(
                        sessionId: session, sensor: sensor, athlete: athlete, metric: metric.rawValue, target: target,
                        value: value)))
        }
        return items
    }

    /// How far `summary` is towards each target, by metric name.
    public func progress(_ summary: SessionSummary) -> [TargetProgress] {
        targets.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            TargetProgress(metric: $0.key.rawValue, target: $0.value, value: summary.value(of: $0.key) ?? 0)
        }
    }
}
