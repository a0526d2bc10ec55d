// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

// The control plane's wire types: what `sportsensord` serves over HTTP (Docs/API.md) and what
// `sportsensorctl` decodes. JSON uses snake_case keys (`JSONEncoder.controlAPI`), ISO 8601 dates
// and seconds for durations. Adding a field is compatible; renaming or removing one needs /v2.

/// `GET /v1/status`.
public struct GatewayStatus: Codable, Hashable, Sendable {
    /// The daemon's version.
    public var version: String
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    /// The state directory holding the store.
    public var stateDirectory: String
    /// True when the store opened and its last write succeeded.
    public var storeHealthy: Bool
    /// Bluetooth adapters the daemon uses (empty with virtual sensors only).
    public var adapters: [AdapterInfo]
    /// Paired sensors.
    public var sensorsPaired: Int
    /// Paired sensors with a live link.
    public var sensorsConnected: Int
    /// Sessions recording now.
    public var liveSessions: Int
    /// Paired sensors waiting for a free adapter slot (link state `no-slot`).
    public var sensorsWaitingForSlot: Int
    /// Live sessions whose rows the store cannot take now (`store_degraded`); `store_healthy` is
    /// false while there are any.
    public var storeDegradedSessions: Int

    /// Creates a status.
    public init(
        version: String, uptimeSeconds: Double, stateDirectory: String, storeHealthy: Bool, adapters: [AdapterInfo],
        sensorsPaired: Int, sensorsConnected: Int, liveSessions: Int, sensorsWaitingForSlot: Int = 0,
        storeDegradedSessions: Int = 0
    ) {
        self.storeDegradedSessions = storeDegradedSessions
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.stateDirectory = stateDirectory
        self.storeHealthy = storeHealthy
        self.adapters = adapters
        self.sensorsPaired = sensorsPaired
        self.sensorsConnected = sensorsConnected
        self.liveSessions = liveSessions
        self.sensorsWaitingForSlot = sensorsWaitingForSlot
    }

    private enum CodingKeys: String, CodingKey {
        case version, uptimeSeconds, stateDirectory, storeHealthy, adapters, sensorsPaired, sensorsConnected
        case liveSessions, sensorsWaitingForSlot
        case storeDegradedSessions
    }

    /// Decodes; a daemon from before link budgets sends no `sensors_waiting_for_slot`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(String.self, forKey: .version)
        uptimeSeconds = try container.decode(Double.self, forKey: .uptimeSeconds)
        stateDirectory = try container.decode(String.self, forKey: .stateDirectory)
        storeHealthy = try container.decode(Bool.self, forKey: .storeHealthy)
        adapters = try container.decode([AdapterInfo].self, forKey: .adapters)
        sensorsPaired = try container.decode(Int.self, forKey: .sensorsPaired)
        sensorsConnected = try container.decode(Int.self, forKey: .sensorsConnected)
        liveSessions = try container.decode(Int.self, forKey: .liveSessions)
        sensorsWaitingForSlot = try container.decodeIfPresent(Int.self, forKey: .sensorsWaitingForSlot) ?? 0
        storeDegradedSessions = try container.decodeIfPresent(Int.self, forKey: .storeDegradedSessions) ?? 0
    }
}

/// One Bluetooth adapter (`GET /v1/adapters`).
public struct AdapterInfo: Codable, Hashable, Sendable {
    /// `hci0`.
    public var name: String
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// True when the adapter is powered up.
    public var up: Bool
    /// How many sensor links the gateway puts on this adapter at most (`[bluetooth] link_budget`).
    public var linkBudget: Int
    /// The sensors holding one of its slots (connected, or connecting through it), by address.
    public var sensors: [String]

    /// Slots in use.
    public var links: Int { sensors.count }

    /// Creates adapter information.
    public init(name: String, address: String, up: Bool, linkBudget: Int = 0, sensors: [String] = []) {
        self.name = name
        self.address = address
        self.up = up
        self.linkBudget = linkBudget
        self.sensors = sensors
    }

    private enum CodingKeys: String, CodingKey {
        case name, address, up, linkBudget, sensors
    }

    /// Decodes; a daemon from before link budgets sends neither `link_budget` nor `sensors`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        address = try container.decode(String.self, forKey: .address)
        up = try container.decode(Bool.self, forKey: .up)
        linkBudget = try container.decodeIfPresent(Int.self, forKey: .linkBudget) ?? 0
        sensors = try container.decodeIfPresent([String].self, forKey: .sensors) ?? []
    }
}

/// One advertiser seen by a scan (`POST /v1/scan`).
public struct DiscoveryInfo: Codable, Hashable, Sendable {
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// `public` or `random`.
    public var addressType: String
    /// The advertised name, when seen.
    public var name: String?
    /// Signal strength in dBm, when reported.
    public var rssi: Int?
    /// True for an SDU sensor (by name or service UUID).
    public var isSduSensor: Bool
    /// The adapter that heard it (`hci0`); nil for virtual sensors.
    public var adapter: String?

    /// Creates a discovery.
    public init(
        address: String, addressType: String, name: String?, rssi: Int?, isSduSensor: Bool, adapter: String? = nil
    ) {
        self.address = address
        self.addressType = addressType
        self.name = name
        self.rssi = rssi
        self.isSduSensor = isSduSensor
        self.adapter = adapter
    }
}

/// A paired sensor (`GET /v1/sensors`).
public struct SensorInfo: Codable, Hashable, Sendable {
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// `public` or `random`.
    public var addressType: String
    /// The name the coach gave it (`virtual-1`, `anna-left`), unique.
    public var alias: String?
    /// The advertised name.
    public var name: String?
    /// The athlete it is bound to.
    public var athlete: String?
    /// The link's state (`connected`, `connecting`, `no-slot`: every adapter's link budget is in
    /// use, `retrying`, `lost`, `gave-up`, `stopped`).
    public var linkState: LinkStateName
    /// The adapter whose slot the link holds (`hci0`); nil for virtual sensors and while waiting.
    public var adapter: String?
    /// What the controller gave the connected link; nil when unknown (virtual sensors, or the
    /// daemon cannot read the adapter's HCI events).
    public var linkParameters: LinkParametersInfo?
    /// When the link was last up or the sensor last advertised.
    public var lastSeen: Date?
    /// True for an in-process virtual sensor.
    public var isVirtual: Bool
    /// The live session on this sensor, if any.
    public var liveSessionId: String?

    /// Creates sensor information.
    public init(
        address: String, addressType: String, alias: String?, name: String?, athlete: String?, linkState: LinkStateName,
        lastSeen: Date?, isVirtual: Bool, liveSessionId: String?, adapter: String? = nil,
        linkParameters: LinkParametersInfo? = nil
    ) {
        self.address = address
        self.addressType = addressType
        self.alias = alias
        self.name = name
        self.athlete = athlete
        self.linkState = linkState
        self.lastSeen = lastSeen
        self.isVirtual = isVirtual
        self.liveSessionId = liveSessionId
        self.adapter = adapter
        self.linkParameters = linkParameters
    }
}

/// The parameters of one LE link as the controller set them (Docs/OPERATIONS.md says what an SDU
/// sensor at 100 Hz needs).
public struct LinkParametersInfo: Codable, Hashable, Sendable {
    /// The connection interval in milliseconds.
    public var intervalMs: Double
    /// Connection events the peripheral may skip.
    public var peripheralLatency: Int
    /// The supervision timeout in milliseconds.
    public var supervisionTimeoutMs: Double

    /// Creates link parameters.
    public init(intervalMs: Double, peripheralLatency: Int, supervisionTimeoutMs: Double) {
        self.intervalMs = intervalMs
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeoutMs = supervisionTimeoutMs
    }
}

/// `POST /v1/sensors`: pair a sensor.
public struct PairRequest: Codable, Hashable, Sendable {
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// `public` or `random`; nil lets the daemon find out from a scan (default `random`, which
    /// SDU sensors use).
    public var addressType: String?
    /// A unique alias.
    public var alias: String?
    /// The athlete to bind.
    public var athlete: String?

    /// Creates a pair request.
    public init(address: String, addressType: String? = nil, alias: String? = nil, athlete: String? = nil) {
        self.address = address
        self.addressType = addressType
        self.alias = alias
        self.athlete = athlete
    }
}

/// `PATCH /v1/sensors/{sensor}`: rename or (un)bind; absent fields stay, an empty string clears.
public struct SensorUpdate: Codable, Hashable, Sendable {
    /// The new alias.
    public var alias: String?
    /// The athlete to bind.
    public var athlete: String?

    /// Creates an update.
    public init(alias: String? = nil, athlete: String? = nil) {
        self.alias = alias
        self.athlete = athlete
    }
}

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

/// A detected event as the event stream carries it: the session, the sensor and the event's
/// `EventRecord` (the `analyze` schema, Docs/FORMATS.md) under `event`.
public struct DetectionPayload: Codable, Hashable, Sendable {
    /// The session UUID.
    public var sessionId: String
    /// The sensor's alias, or its address.
    public var sensor: String
    /// The event; times are seconds since the session started.
    public var event: EventRecord

    /// Creates a payload.
    public init(sessionId: String, sensor: String, event: EventRecord) {
        self.sessionId = sessionId
        self.sensor = sensor
        self.event = event
    }
}

/// A sensor's link state change as the event stream carries it.
public struct LinkPayload: Codable, Hashable, Sendable {
    /// The sensor's alias, or its address.
    public var sensor: String
    /// The sensor's address.
    public var address: String
    /// `connected`, `lost`, `retrying`, `gave-up`, `stopped`, `no-slot`.
    public var state: LinkStateName
    /// Why, for `lost`, `retrying` (`in 4 s, attempt 3`) and `gave-up`.
    public var detail: String?

    /// Creates a payload.
    public init(sensor: String, address: String, state: LinkStateName, detail: String?) {
        self.sensor = sensor
        self.address = address
        self.state = state
        self.detail = detail
    }
}

/// One item of `GET /v1/events`, a Server-Sent Events stream: the SSE `event:` field is `kind`
/// and `data:` is the payload as one line of JSON.
public enum GatewayEvent: Hashable, Sendable {
    /// An event was detected.
    case detection(DetectionPayload)
    /// A sensor's link changed state.
    case link(LinkPayload)
    /// A live session's counters (once a second).
    case counters(SessionCounters)
    /// A session started or ended (`isLive` tells which).
    case session(SessionInfo)
    /// A live session beat its athlete's personal best.
    case record(RecordPayload)
    /// A live session reached a target.
    case target(TargetPayload)

    /// The SSE event name: `detection`, `link`, `counters`, `session`, `record` or `target`.
    public var kind: String {
        switch self {
        case .detection: "detection"
        case .link: "link"
        case .counters: "counters"
        case .session: "session"
        case .record: "record"
        case .target: "target"
        }
    }

    /// The payload as JSON (one line, for the SSE `data:` field).
    public func payloadJSON() throws -> Data {
        let encoder = JSONEncoder.controlAPI
        switch self {
        case .detection(let payload): return try encoder.encode(payload)
        case .link(let payload): return try encoder.encode(payload)
        case .counters(let payload): return try encoder.encode(payload)
        case .session(let payload): return try encoder.encode(payload)
        case .record(let payload): return try encoder.encode(payload)
        case .target(let payload): return try encoder.encode(payload)
        }
    }

    /// Decodes an SSE item; nil for a kind this version does not know (newer daemons may add
    /// kinds, which clients skip).
    public init?(kind: String, payloadJSON data: Data) throws {
        let decoder = JSONDecoder.controlAPI
        switch kind {
        case "detection": self = .detection(try decoder.decode(DetectionPayload.self, from: data))
        case "link": self = .link(try decoder.decode(LinkPayload.self, from: data))
        case "counters": self = .counters(try decoder.decode(SessionCounters.self, from: data))
        case "session": self = .session(try decoder.decode(SessionInfo.self, from: data))
        case "record": self = .record(try decoder.decode(RecordPayload.self, from: data))
        case "target": self = .target(try decoder.decode(TargetPayload.self, from: data))
        default: return nil
        }
    }
}

/// The JSON body of every error response.
public struct ControlErrorBody: Codable, Hashable, Sendable {
    /// A stable code (`not-found`, `conflict`, `invalid-request`, `unavailable`, `forbidden`, `internal`).
    public var code: String
    /// What went wrong.
    public var error: String
    /// What to do about it, when there is something to do.
    public var fix: String?

    /// Creates an error body.
    public init(code: String, error: String, fix: String?) {
        self.code = code
        self.error = error
        self.fix = fix
    }
}

extension JSONEncoder {
    /// The control API's encoder: snake_case keys, ISO 8601 dates, sorted keys.
    public static var controlAPI: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    /// The control API's decoder, matching `JSONEncoder.controlAPI`.
    public static var controlAPI: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
