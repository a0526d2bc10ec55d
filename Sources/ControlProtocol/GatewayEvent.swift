// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

// The live event stream's items (`GET /v1/events`, SSE; Docs/API.md): detections, link changes,
// sessions, counters, records and targets.

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
