// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

// The store writes a client asks the running daemon to make, so the daemon stays the only
// writer of its store (a CLI in the daemon's group may only read the files).

/// `POST /v1/sessions/{id}/reanalyze`: detection again over the stored samples, the result saved.
public struct ReanalyzeRequest: Codable, Hashable, Sendable {
    /// Another profile (default: the session's).
    public var profile: String?
    /// `standard` or `baseline` (default: the session's).
    public var rules: String?
    /// `key=value` overrides of detector parameters, named as in the configuration file.
    public var set: [String]

    /// Creates a request.
    public init(profile: String? = nil, rules: String? = nil, set: [String] = []) {
        self.profile = profile
        self.rules = rules
        self.set = set
    }

    /// Every field may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        profile = try container.decodeIfPresent(String.self, forKey: .profile)
        rules = try container.decodeIfPresent(String.self, forKey: .rules)
        set = try container.decodeIfPresent([String].self, forKey: .set) ?? []
    }
}

/// The answer to `POST /v1/sessions/{id}/reanalyze`.
public struct ReanalyzeResult: Codable, Hashable, Sendable {
    /// The session as stored now.
    public var session: SessionInfo
    /// The events detection found, now stored, in time order.
    public var events: [EventRecord]
    /// How many events the session had before.
    public var previousCount: Int

    /// Creates a result.
    public init(session: SessionInfo, events: [EventRecord], previousCount: Int) {
        self.session = session
        self.events = events
        self.previousCount = previousCount
    }
}

/// `POST /v1/prune`: delete finished sessions that entered the store before a time, or only
/// their samples; or, as a dry run, say what would go.
public struct PruneRequest: Codable, Hashable, Sendable {
    /// Sessions stored before this are pruned.
    public var storedBefore: Date
    /// Keep the sessions and their events; delete only the samples.
    public var samplesOnly: Bool
    /// Rewrite the database afterwards to give the space back to the file system.
    public var vacuum: Bool
    /// Only report what would go.
    public var dryRun: Bool
    /// Delete even more than the share of the store one prune may take.
    public var force: Bool

    /// Creates a request.
    public init(
        storedBefore: Date, samplesOnly: Bool = false, vacuum: Bool = false, dryRun: Bool = false, force: Bool = false
    ) {
        self.storedBefore = storedBefore
        self.samplesOnly = samplesOnly
        self.vacuum = vacuum
        self.dryRun = dryRun
        self.force = force
    }

    /// Every flag may be left out (false).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storedBefore = try container.decode(Date.self, forKey: .storedBefore)
        samplesOnly = try container.decodeIfPresent(Bool.self, forKey: .samplesOnly) ?? false
        vacuum = try container.decodeIfPresent(Bool.self, forKey: .vacuum) ?? false
        dryRun = try container.decodeIfPresent(Bool.self, forKey: .dryRun) ?? false
        force = try container.decodeIfPresent(Bool.self, forKey: .force) ?? false
    }
}

/// What `POST /v1/prune` removed, or would remove.
public struct PruneReport: Codable, Hashable, Sendable {
    /// Sessions deleted (0 with `samples_only`).
    public var sessionsDeleted: Int
    /// Sessions whose samples were deleted.
    public var sessionsAffected: Int
    /// Sample chunks deleted.
    public var chunksDeleted: Int
    /// Samples in those chunks.
    public var samplesDeleted: Int64
    /// Events deleted.
    public var eventsDeleted: Int
    /// The sessions deleted or emptied, oldest first.
    public var sessionIds: [String]
    /// The encoded size of the samples deleted, in bytes.
    public var sampleBytes: Int64
    /// The finished sessions in the store before the prune.
    public var finishedSessions: Int
    /// True when nothing was deleted: the report says what would go.
    public var dryRun: Bool

    /// Creates a report.
    public init(
        sessionsDeleted: Int, sessionsAffected: Int, chunksDeleted: Int, samplesDeleted: Int64, eventsDeleted: Int,
        sessionIds: [String] = [], sampleBytes: Int64 = 0, finishedSessions: Int = 0, dryRun: Bool = false
    ) {
        self.sessionsDeleted = sessionsDeleted
        self.sessionsAffected = sessionsAffected
        self.chunksDeleted = chunksDeleted
        self.samplesDeleted = samplesDeleted
        self.eventsDeleted = eventsDeleted
        self.sessionIds = sessionIds
        self.sampleBytes = sampleBytes
        self.finishedSessions = finishedSessions
        self.dryRun = dryRun
    }
}

/// `POST /v1/sessions/import`: a recording the client decoded (from a sample CSV or a btsnoop
/// capture) stored as a finished session, with the events its settings detect.
public struct ImportRequest: Codable, Hashable, Sendable {
    /// The profile to detect with.
    public var profile: String
    /// `standard` or `baseline`.
    public var rules: String
    /// Detector parameters that differ from the defaults, `key=value` as in the configuration file.
    public var set: [String]
    /// The athlete's name (added when new).
    public var athlete: String?
    /// The sensor's address.
    public var sensor: String?
    /// `public` or `random` (default `public`).
    public var sensorAddressType: String?
    /// The session's wall-clock start (default: the capture's first record, else now).
    public var startedAt: Date?
    /// When the capture's first record was taken, if it says.
    public var captureStart: Date?
    /// Samples the sensor's counter says never arrived.
    public var lostSamples: Int64
    /// Notifications of a length other than 2 + 6k.
    public var malformedNotifications: Int64
    /// The recovered sample rate.
    public var sampleRate: Double?
    /// The samples, each `[index, t, x, y, z]` on the wire: the unwrapped index, seconds from the
    /// start to the microsecond, raw counts (16384 per g).
    public var samples: ImportSamples

    /// Creates a request.
    public init(
        profile: String, rules: String, set: [String], athlete: String?, sensor: String?,
        sensorAddressType: String? = nil, startedAt: Date?, captureStart: Date?, lostSamples: Int64,
        malformedNotifications: Int64, sampleRate: Double?, samples: ImportSamples
    ) {
        self.profile = profile
        self.rules = rules
        self.set = set
        self.athlete = athlete
        self.sensor = sensor
        self.sensorAddressType = sensorAddressType
        self.startedAt = startedAt
        self.captureStart = captureStart
        self.lostSamples = lostSamples
        self.malformedNotifications = malformedNotifications
        self.sampleRate = sampleRate
        self.samples = samples
    }
}

/// The answer to `POST /v1/sessions/import`.
public struct ImportResult: Codable, Hashable, Sendable {
    /// The new session.
    public var session: SessionInfo
    /// True when the athlete was added.
    public var addedAthlete: Bool

    /// Creates a result.
    public init(session: SessionInfo, addedAthlete: Bool) {
        self.session = session
        self.addedAthlete = addedAthlete
    }
}

extension ImportRequest {
    /// The first field out of its ``StoredRanges`` range, said with the field's name and range; nil
    /// when every number may enter the store. Samples are checked row by row: `samples[3].t`.
    public var rangeProblem: String? {
        let fields = [
            StoredRanges.lostSamples.problem(with: lostSamples),
            StoredRanges.malformedNotifications.problem(with: malformedNotifications),
            StoredRanges.sampleCount.problem(with: Int64(samples.count), label: "the number of samples"),
            sampleRate.flatMap { StoredRanges.sampleRate.problem(with: $0) },
            startedAt.flatMap { StoredRanges.wallClock.problem(with: $0) },
            captureStart.flatMap { StoredRanges.named(StoredRanges.wallClock, "capture_start").problem(with: $0) },
        ]
        if let problem = fields.lazy.compactMap({ $0 }).first { return problem }
        for (position, sample) in samples.enumerated() {
            if let problem = StoredRanges.time.problem(with: sample.t, label: "samples[\(position)].t") {
                return problem
            }
            if let problem = StoredRanges.sampleIndex.problem(with: sample.index, label: "samples[\(position)].index") {
                return problem
            }
        }
        return nil
    }
}
