// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

/// One row of a leaderboard (`GET /v1/leaderboards/{metric}`): an athlete's best and where it
/// came from.
public struct LeaderboardRow: Codable, Hashable, Sendable {
    /// 1 for the best; equal values share a rank.
    public var rank: Int
    /// The athlete's name.
    public var athlete: String
    /// The value of the metric.
    public var value: Double
    /// The session it came from.
    public var sessionId: String
    /// When that session started.
    public var at: Date

    /// Creates a row.
    public init(rank: Int, athlete: String, value: Double, sessionId: String, at: Date) {
        self.rank = rank
        self.athlete = athlete
        self.value = value
        self.sessionId = sessionId
        self.at = at
    }
}

/// One personal best (`GET /v1/athletes/{athlete}/bests`).
public struct PersonalBest: Codable, Hashable, Sendable {
    /// The metric (a `SummaryMetric` name).
    public var metric: String
    /// The best value.
    public var value: Double
    /// The session it came from.
    public var sessionId: String
    /// When that session started.
    public var at: Date

    /// Creates a best.
    public init(metric: String, value: Double, sessionId: String, at: Date) {
        self.metric = metric
        self.value = value
        self.sessionId = sessionId
        self.at = at
    }
}

/// A target (`GET /v1/targets`): a goal for one metric, of an athlete or of one session.
public struct TargetInfo: Codable, Hashable, Sendable {
    /// The row id.
    public var id: Int64
    /// The athlete, for an athlete's target (every session of theirs counts towards it).
    public var athlete: String?
    /// The session, for a session's target (it replaces the athlete's for that metric).
    public var sessionId: String?
    /// The metric (a `SummaryMetric` name).
    public var metric: String
    /// The value to reach.
    public var value: Double

    /// Creates target information.
    public init(id: Int64, athlete: String?, sessionId: String?, metric: String, value: Double) {
        self.id = id
        self.athlete = athlete
        self.sessionId = sessionId
        self.metric = metric
        self.value = value
    }
}

/// `POST /v1/targets`: set a target; exactly one of `athlete` and `session_id`.
public struct TargetRequest: Codable, Hashable, Sendable {
    /// The athlete's name.
    public var athlete: String?
    /// The session (UUID or unique prefix).
    public var sessionId: String?
    /// The metric.
    public var metric: String
    /// The value to reach (> 0).
    public var value: Double

    /// Creates a request.
    public init(athlete: String? = nil, sessionId: String? = nil, metric: String, value: Double) {
        self.athlete = athlete
        self.sessionId = sessionId
        self.metric = metric
        self.value = value
    }
}

/// A live session beat the athlete's personal best (`record` in the event stream), sent as soon
/// as the event that beat it is detected (or, for load metrics, at the next once-a-second tick).
public struct RecordPayload: Codable, Hashable, Sendable {
    /// The session UUID.
    public var sessionId: String
    /// The sensor's alias, or its address.
    public var sensor: String
    /// The athlete.
    public var athlete: String
    /// The metric.
    public var metric: String
    /// The new value.
    public var value: Double
    /// The best it beat and the session that held it.
    public var previous: Double
    public var previousSessionId: String

    /// Creates a payload.
    public init(
        sessionId: String, sensor: String, athlete: String, metric: String, value: Double, previous: Double,
        previousSessionId: String
    ) {
        self.sessionId = sessionId
        self.sensor = sensor
        self.athlete = athlete
        self.metric = metric
        self.value = value
        self.previous = previous
        self.previousSessionId = previousSessionId
    }
}

/// A live session reached one of its targets (`target` in the event stream).
public struct TargetPayload: Codable, Hashable, Sendable {
    /// The session UUID.
    public var sessionId: String
    /// The sensor's alias, or its address.
    public var sensor: String
    /// The athlete.
    public var athlete: String?
    /// The metric.
    public var metric: String
    /// The target.
    public var target: Double
    /// The value that reached it.
    public var value: Double

    /// Creates a payload.
    public init(sessionId: String, sensor: String, athlete: String?, metric: String, target: Double, value: Double) {
        self.sessionId = sessionId
        self.sensor = sensor
        self.athlete = athlete
        self.metric = metric
        self.target = target
        self.value = value
    }
}

/// Progress towards one target, in the live counters.
public struct TargetProgress: Codable, Hashable, Sendable {
    /// The metric.
    public var metric: String
    /// The target.
    public var target: Double
    /// The value so far.
    public var value: Double
    /// value / target × 100 (above 100 once passed).
    public var targetPct: Double

    /// Creates progress.
    public init(metric: String, target: Double, value: Double) {
        self.metric = metric
        self.target = target
        self.value = value
        targetPct = target > 0 ? value / target * 100 : 0
    }
}
