// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

// Sessions on the wire: the start request, a session's information and its live counters
// (Docs/API.md; conventions in ControlModels.swift).

/// `POST /v1/sessions`: start a session on a paired sensor.
public struct StartSessionRequest: Codable, Hashable, Sendable {
    /// The sensor's alias or address.
    public var sensor: String
    /// `table-tennis`, `jump`, `throw` or `steps`; nil uses the configured default.
    public var profile: String?
    /// The athlete; nil uses the sensor's bound athlete.
    public var athlete: String?

    /// Creates a start request.
    public init(sensor: String, profile: String? = nil, athlete: String? = nil) {
        self.sensor = sensor
        self.profile = profile
        self.athlete = athlete
    }
}

/// A session, live or stored (`GET /v1/sessions`, `GET /v1/sessions/{id}`).
public struct SessionInfo: Codable, Hashable, Sendable {
    /// The session UUID.
    public var id: String
    /// The sensor's address.
    public var sensor: String
    /// The sensor's alias.
    public var alias: String?
    /// The athlete.
    public var athlete: String?
    /// The profile.
    public var profile: String
    /// When it started.
    public var startedAt: Date
    /// When it ended; nil while live.
    public var endedAt: Date?
    /// `stopped`, `shutdown`, `interrupted`, `idle`, ...; nil while live.
    public var endReason: String?
    /// True while recording.
    public var isLive: Bool
    /// Events per type (`hit`, `jump`, `throw`, `step`).
    public var eventCounts: [String: Int]
    /// Samples stored.
    public var samples: Int
    /// Samples the counter says were lost.
    public var lostSamples: Int
    /// Malformed notifications dropped.
    public var malformedNotifications: Int
    /// The recovered sample rate in Hz.
    public var sampleRate: Double?
    /// Live sessions: true while the store cannot take the session's rows (disk full, I/O error;
    /// they wait in memory and are retried). Absent for stored sessions.
    public var storeDegraded: Bool?
    /// Samples received that the store could not keep: dropped because the recorder's buffer was
    /// full, or neither saved nor spilled on a full disk (Docs/OPERATIONS.md, "Full disk").
    public var unsavedSamples: Int

    /// Creates session information.
    public init(
        id: String, sensor: String, alias: String?, athlete: String?, profile: String, startedAt: Date,
        endedAt: Date?, endReason: String?, isLive: Bool, eventCounts: [String: Int], samples: Int,
        lostSamples: Int, malformedNotifications: Int, sampleRate: Double?, storeDegraded: Bool? = nil,
        unsavedSamples: Int = 0
    ) {
        self.storeDegraded = storeDegraded
        self.unsavedSamples = unsavedSamples
        self.id = id
        self.sensor = sensor
        self.alias = alias
        self.athlete = athlete
        self.profile = profile
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.isLive = isLive
        self.eventCounts = eventCounts
        self.samples = samples
        self.lostSamples = lostSamples
        self.malformedNotifications = malformedNotifications
        self.sampleRate = sampleRate
    }
}

/// A live session's numbers, published once a second (`counters` in the event stream): what
/// `sportsensorctl tail` shows.
public struct SessionCounters: Codable, Hashable, Sendable {
    /// The session UUID.
    public var sessionId: String
    /// The sensor's alias, or its address.
    public var sensor: String
    /// The athlete.
    public var athlete: String?
    /// The profile.
    public var profile: String
    /// Events so far (hits, jumps, throws or steps, per the profile).
    public var count: Int
    /// Peak g of the last hit.
    public var lastPeakG: Double?
    /// Largest peak g.
    public var maxPeakG: Double?
    /// Events per minute over the session.
    public var ratePerMinute: Double
    /// Best jump or throw height in metres.
    public var bestHeightM: Double?
    /// Steps per minute, for the steps profile.
    public var cadence: Double?
    /// The sensor's link state (see `SensorInfo.linkState`).
    public var linkState: LinkStateName
    /// Seconds since the session started.
    public var elapsedSeconds: Double
    /// The session summary so far (Docs/METRICS.md), the same object `GET /v1/sessions/{id}/summary`
    /// gives once the session ended.
    public var summary: SessionSummary?
    /// The session's first target (by metric name) and how far it is, %; nil without targets.
    public var target: Double?
    public var targetMetric: String?
    public var targetPct: Double?
    /// Every target of the session and its progress.
    public var targets: [TargetProgress]?
    /// Samples received in this session (data completeness, with `expectedSamples`).
    public var receivedSamples: Int?
    /// Samples the sensor's counter says it sent in this session: received plus lost.
    public var expectedSamples: Int?
    /// True while the store cannot take the session's rows (disk full, I/O error: they wait in
    /// memory, are retried, and past the recorder's bound are dropped), as `SessionInfo.storeDegraded`.
    public var storeDegraded: Bool?

    /// Creates counters.
    public init(
        sessionId: String, sensor: String, athlete: String?, profile: String, count: Int, lastPeakG: Double?,
        maxPeakG: Double?, ratePerMinute: Double, bestHeightM: Double?, cadence: Double?, linkState: LinkStateName,
        elapsedSeconds: Double, summary: SessionSummary? = nil, targets: [TargetProgress]? = nil,
        receivedSamples: Int? = nil, expectedSamples: Int? = nil, storeDegraded: Bool? = nil
    ) {
        self.storeDegraded = storeDegraded
        self.receivedSamples = receivedSamples
        self.expectedSamples = expectedSamples
        self.summary = summary
        self.targets = targets
        self.target = targets?.first?.target
        self.targetMetric = targets?.first?.metric
        self.targetPct = targets?.first?.targetPct
        self.sessionId = sessionId
        self.sensor = sensor
        self.athlete = athlete
        self.profile = profile
        self.count = count
        self.lastPeakG = lastPeakG
        self.maxPeakG = maxPeakG
        self.ratePerMinute = ratePerMinute
        self.bestHeightM = bestHeightM
        self.cadence = cadence
        self.linkState = linkState
        self.elapsedSeconds = elapsedSeconds
    }
}
