// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation

// Adapters, discovered and paired sensors and the requests that change them: the wire types of
// `/v1/adapters`, `/v1/scan` and `/v1/sensors` (Docs/API.md; conventions in ControlModels.swift).

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
