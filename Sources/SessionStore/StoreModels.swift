// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Detection
import Foundation
import StoreFormats

/// An athlete whose sessions are kept.
public struct Athlete: Hashable, Sendable {
    /// The row id.
    public var id: Int64
    /// The name as entered (unique).
    public var name: String
    /// When the athlete was added.
    public var created: Date
    /// Body mass, kg, for energy estimates; nil when unknown.
    public var massKg: Double?
    /// Year of birth; nil when unknown.
    public var birthYear: Int?
    /// The hand holding the racket; nil when unknown.
    public var racketHand: RacketHand?

    /// Creates a value (as read from the store).
    public init(
        id: Int64, name: String, created: Date, massKg: Double? = nil, birthYear: Int? = nil,
        racketHand: RacketHand? = nil
    ) {
        self.id = id
        self.name = name
        self.created = created
        self.massKg = massKg
        self.birthYear = birthYear
        self.racketHand = racketHand
    }
}

/// A sensor the gateway has seen or been told about.
public struct SensorRecord: Hashable, Sendable {
    /// The sensor's address and its type.
    public var address: BluetoothAddress
    /// The name it advertised last (`BC05…`, `BandCizer…`).
    public var advertisedName: String?
    /// A user-chosen name, unique among sensors.
    public var alias: String?
    /// The athlete the sensor is bound to; new sessions from it are theirs.
    public var athleteID: Int64?
    /// When it was last seen advertising or connected.
    public var lastSeen: Date?
    /// True while the gateway keeps a link to it; false for a sensor only known from its sessions
    /// (or unpaired since).
    public var paired: Bool

    /// Creates a value.
    public init(
        address: BluetoothAddress, advertisedName: String? = nil, alias: String? = nil, athleteID: Int64? = nil,
        lastSeen: Date? = nil, paired: Bool = true
    ) {
        self.address = address
        self.advertisedName = advertisedName
        self.alias = alias
        self.athleteID = athleteID
        self.lastSeen = lastSeen
        self.paired = paired
    }
}

/// What `createSession` needs.
public struct NewSession: Sendable {
    /// The session's id.
    public var id: UUID
    /// The sensor recorded from, if any (an import from a CSV has none).
    public var sensor: BluetoothAddress?
    /// The athlete, if known.
    public var athleteID: Int64?
    /// The profile, rules and parameters detection runs with, kept so `reanalyze` repeats them.
    public var settings: DetectionSettings
    /// Wall-clock start. Sample and event times are seconds after this instant.
    public var startedAt: Date

    /// Creates a description of a new session.
    public init(
        id: UUID = UUID(), sensor: BluetoothAddress? = nil, athleteID: Int64? = nil, settings: DetectionSettings,
        startedAt: Date = Date()
    ) {
        self.id = id
        self.sensor = sensor
        self.athleteID = athleteID
        self.settings = settings
        self.startedAt = startedAt
    }
}

/// A session as stored.
public struct SessionRecord: Hashable, Sendable {
    /// The session's id.
    public var id: UUID
    /// The sensor's address, if the session came from one.
    public var sensor: BluetoothAddress?
    /// The athlete, if known.
    public var athleteID: Int64?
    /// The detection profile's name as stored (a newer version may store one this build lacks).
    public var profile: String
    /// The settings detection ran with; nil when this build does not know the profile. Sessions
    /// stored before the settings were kept whole read with defaults for what they lack.
    public var settings: DetectionSettings?
    /// Wall-clock start; sample and event times are seconds after it.
    public var startedAt: Date
    /// Wall-clock end, nil while recording.
    public var endedAt: Date?
    /// Why it ended, nil while recording.
    public var endReason: SessionEndReason?
    /// Stream counters and the recovered sample rate.
    public var counts: SessionCounts
    /// Samples received that the store could not keep: dropped because the recorder's buffer was
    /// full, or neither saved nor spilled on a full disk. Counted when the loss happens.
    public var unsavedSamples: Int64 = 0

    /// True while the session has no end.
    public var isOpen: Bool { endedAt == nil }

    /// The id as stored: lower-case UUID text.
    public var idText: String { id.uuidString.lowercased() }
}

/// Which sessions `sessions(filter:)` returns; every set field must match.
public struct SessionFilter: Hashable, Sendable {
    /// Only this athlete's sessions.
    public var athleteID: Int64?
    /// Only sessions from this sensor.
    public var sensor: BluetoothAddress?
    /// Only this profile.
    public var profile: String?
    /// Only sessions started at or after this instant.
    public var startedFrom: Date?
    /// Only sessions started before this instant.
    public var startedBefore: Date?
    /// At most this many (the newest).
    public var limit: Int?

    /// A filter; no arguments matches everything.
    public init(
        athleteID: Int64? = nil, sensor: BluetoothAddress? = nil, profile: String? = nil, startedFrom: Date? = nil,
        startedBefore: Date? = nil, limit: Int? = nil
    ) {
        self.athleteID = athleteID
        self.sensor = sensor
        self.profile = profile
        self.startedFrom = startedFrom
        self.startedBefore = startedBefore
        self.limit = limit
    }
}

/// What `prune` removed.
public struct PruneResult: Hashable, Sendable {
    /// Sessions deleted (0 with `samplesOnly`).
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
    public var sessionIDs: [UUID] = []
    /// The encoded size of the samples deleted, in bytes.
    public var sampleBytes: Int64 = 0
    /// The finished sessions in the store before the prune.
    public var finishedSessions = 0

    /// A result with these counts.
    public init(
        sessionsDeleted: Int = 0, sessionsAffected: Int = 0, chunksDeleted: Int = 0, samplesDeleted: Int64 = 0,
        eventsDeleted: Int = 0
    ) {
        self.sessionsDeleted = sessionsDeleted
        self.sessionsAffected = sessionsAffected
        self.chunksDeleted = chunksDeleted
        self.samplesDeleted = samplesDeleted
        self.eventsDeleted = eventsDeleted
    }
}
