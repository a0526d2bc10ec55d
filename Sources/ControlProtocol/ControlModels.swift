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
