// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import VirtualSensor

/// Everything `sportsensord` is configured with: the TOML file (`/etc/sportsensord/config.toml`
/// or `--config`), then the environment (`SPORTSENSOR_STATE_DIR`, `SPORTSENSOR_SOCKET`), then
/// the command line, each overriding the one before. `systemd/config.example.toml` documents
/// every key.
public struct GatewayConfiguration: Hashable, Sendable {
    /// The default configuration file.
    public static let defaultPath = "/etc/sportsensord/config.toml"

    /// `[gateway] state_dir`: where the session database lives; nil follows `GatewayPaths`.
    public var stateDirectory: String?
    /// `[gateway] socket`: the control socket; nil follows `GatewayPaths`.
    public var socketPath: String?
    /// `[gateway] default_profile`: the profile of sessions started without one.
    public var defaultProfile: DetectionProfile = .tableTennis
    /// `[gateway] log_level`: `trace` … `critical`.
    public var logLevel: String = "info"
    /// `[bluetooth] adapters`: HCI adapters to use (`hci0`); sensors are spread over them. Empty
    /// means every adapter the kernel has, including those plugged in later.
    public var adapters: [String] = []
    /// `[bluetooth] link_budget`: the most sensor links the gateway puts on one adapter. Five fits
    /// the smallest common controllers (CSR dongles hold 5 LE links, Broadcom 7) with 100 Hz
    /// notifications on each (Docs/OPERATIONS.md has the arithmetic).
    public var linkBudget = GatewayConfiguration.defaultLinkBudget
    /// The default `link_budget`.
    public static let defaultLinkBudget = 5
    /// The `link_budget` values accepted.
    public static let linkBudgets = 1...32
    /// `[api] tcp_listen`: `host:port` for HTTP over TCP, nil for the Unix socket only.
    public var tcpListen: TCPListenAddress?
    /// `[api] token`: the bearer token TCP clients must send.
    public var apiToken: String?
    /// `[api] max_connections`: open connections per listener; past it the one idle longest is
    /// closed (Docs/API.md, "The listeners").
    public var maxConnections = GatewayConfiguration.defaultMaxConnections
    /// The default `max_connections`: with the Unix socket and TCP, 1 024 descriptors at most,
    /// far below the unit's `LimitNOFILE=8192`.
    public static let defaultMaxConnections = 512
    /// The `max_connections` values accepted.
    public static let maxConnectionsRange = 8...4096
    /// `[sessions] auto_start`: start a session when a paired sensor connects and moves.
    public var autoStart = false
    /// `[sessions] idle_stop_minutes`: end a live session after this long without movement; nil never.
    public var idleStop: Duration? = .seconds(600)
    /// `[detection.<profile>]`: detector parameters.
    public var detection = DetectionParameters()
    /// `[retention]`: how long sessions and their samples are kept.
    public var retention = RetentionPolicy()
    /// `[virtual]`: in-process virtual sensors instead of (or beside) Bluetooth ones.
    public var virtualSensors = VirtualSensorsConfiguration()
    /// `[web]`: the coach's dashboard; nil (no `[web] listen`) serves none.
    public var web: WebConfiguration?
    /// `[replication]`: the central PostgreSQL this gateway replicates into; nil: none.
    public var replication: ReplicationConfiguration?

    /// The built-in defaults.
    public init() {}
}

/// `host:port` to listen on.
public struct TCPListenAddress: Hashable, Sendable, CustomStringConvertible {
    /// Host or IP address.
    public var host: String
    /// Port number.
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// True for `localhost`, 127.0.0.0/8 and `::1`: only this machine can connect.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Parses `host:port` or `[v6]:port`; nil when malformed or the port is out of range.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port) else {
            return nil
        }
        self.init(host: host, port: port)
    }

    /// `host:port`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// `[retention]`: finished sessions older than `days` are deleted; samples of sessions older than
/// `samplesDays` are deleted (events and summaries stay). nil keeps them forever.
public struct RetentionPolicy: Hashable, Sendable {
    /// Days sessions are kept.
    public var days: Int?
    /// Days raw samples are kept.
    public var samplesDays: Int?
    /// The largest share of the finished sessions one pass may take (`max_share`, 0.5): a pass
    /// that would take more deletes nothing and waits for `sportsensorctl prune --force`.
    public var maximumShare: Double

    /// Creates a policy; the defaults keep everything.
    public init(days: Int? = nil, samplesDays: Int? = nil, maximumShare: Double = 0.5) {
        self.days = days
        self.samplesDays = samplesDays
        self.maximumShare = maximumShare
    }
}

/// `[virtual]`: how many virtual sensors the daemon pairs, what they do and how fast they sample.
public struct VirtualSensorsConfiguration: Hashable, Sendable {
    /// Number of sensors (`virtual-1` … `virtual-N`).
    public var count = 0
    /// The motion script of each sensor, cycled when there are fewer scripts than sensors.
    public var scripts: [MotionScript] = [.tableTennis, .jumps, .steps]
    /// Samples per second.
    public var rate = 100
    /// Simulated walks out of range; nil: the sensors stay in range.
    public var outOfRange: OutOfRange?

    /// A virtual sensor that leaves the radio's range now and then, as an athlete walking out of
    /// the hall does: after `every` of connection the link drops and the sensor refuses
    /// connections for `duration`, while it keeps sampling (its counter runs on, so the gateway
    /// sees the gap and accounts the samples as lost).
    public struct OutOfRange: Hashable, Sendable {
        /// Connected time before each drop.
        public var every: Duration
        /// How long the sensor stays unreachable.
        public var duration: Duration

        /// Drops after `every` of connection, away for `duration`.
        public init(every: Duration, duration: Duration = .seconds(3)) {
            self.every = every
            self.duration = duration
        }
    }

    /// Creates a configuration; the defaults make none.
    public init(
        count: Int = 0, scripts: [MotionScript] = [.tableTennis, .jumps, .steps], rate: Int = 100,
        outOfRange: OutOfRange? = nil
    ) {
        self.count = count
        self.scripts = scripts
        self.rate = rate
        self.outOfRange = outOfRange
    }
}

/// What the command line and environment say, applied over the file.
public struct GatewayOverrides: Hashable, Sendable {
    /// `--state-dir`.
    public var stateDirectory: String?
    /// `--socket`.
    public var socketPath: String?
    /// `--virtual-sensors N`.
    public var virtualSensors: Int?
    /// `--adapter hciN` (repeatable); empty keeps the file's.
    public var adapters: [String] = []
    /// `--log-level`.
    public var logLevel: String?

    /// Creates overrides; nothing set changes nothing.
    public init(
        stateDirectory: String? = nil, socketPath: String? = nil, virtualSensors: Int? = nil, adapters: [String] = [],
        logLevel: String? = nil
    ) {
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.virtualSensors = virtualSensors
        self.adapters = adapters
        self.logLevel = logLevel
    }
}

extension GatewayConfiguration {
    /// The log levels `log_level` and `--log-level` accept.
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// This configuration with the environment's and then the command line's values on top.
    public func applying(
        _ overrides: GatewayOverrides, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var result = self
        if let value = environment[GatewayPaths.stateDirectoryVariable], !value.isEmpty {
            result.stateDirectory = value
        }
        if let value = environment[GatewayPaths.socketVariable], !value.isEmpty { result.socketPath = value }
        if let value = overrides.stateDirectory { result.stateDirectory = value }
        if let value = overrides.socketPath { result.socketPath = value }
        if let count = overrides.virtualSensors {
            guard (0...VirtualSensorsConfiguration.maximumCount).contains(count) else {
                throw ConfigurationError(
                    .invalidValue, file: "command line", key: "--virtual-sensors",
                    message: "\(count) virtual sensors is out of range",
                    fix: "give 0 to \(VirtualSensorsConfiguration.maximumCount)")
            }
            result.virtualSensors.count = count
        }
        if !overrides.adapters.isEmpty {
            for adapter in overrides.adapters where !Self.isAdapterName(adapter) {
                throw ConfigurationError(
                    .invalidValue, file: "command line", key: "--adapter",
                    message: "'\(adapter)' is not an adapter name",
                    fix: "name an HCI adapter such as hci0 (list them with `sportsensorctl adapters`)")
            }
            result.adapters = overrides.adapters
        }
        if let level = overrides.logLevel {
            guard Self.logLevels.contains(level) else {
                throw ConfigurationError(
                    .invalidValue, file: "command line", key: "--log-level", message: "unknown log level '\(level)'",
                    fix: "use one of \(Self.logLevels.joined(separator: ", "))")
            }
            result.logLevel = level
        }
        return result
    }

    /// `hci` followed by digits.
    static func isAdapterName(_ name: String) -> Bool {
        name.hasPrefix("hci") && name.count > 3 && name.dropFirst(3).allSatisfy(\.isASCII)
            && Int(name.dropFirst(3)) != nil
    }
}

extension VirtualSensorsConfiguration {
    /// The most virtual sensors one daemon runs.
    public static let maximumCount = 128
}

/// `[replication]` (Docs/REPLICATION.md): where and how this gateway replicates its store.
public struct ReplicationConfiguration: Hashable, Sendable {
    /// `postgres_url`: `postgres://user:password@host:5432/database?sslmode=verify-full`.
    public var postgresURL: String
    /// `gateway_id`: this gateway's name in the central database, unique per box.
    public var gatewayID: String
    /// `samples`: replicate raw samples too (default false: sessions, events and the rest only).
    public var samples = false
    /// `max_outbox_items`: the outbox's bound (default 5 000 000 items).
    public var maxOutboxItems = ReplicationConfiguration.defaultMaxOutboxItems
    /// The default bound: a few days of a hall's events, or a long afternoon of samples.
    public static let defaultMaxOutboxItems = 5_000_000
    /// The bounds accepted.
    public static let outboxItemRange = 1000...1_000_000_000

    /// Creates a configuration.
    public init(postgresURL: String, gatewayID: String, samples: Bool = false, maxOutboxItems: Int? = nil) {
        self.postgresURL = postgresURL
        self.gatewayID = gatewayID
        self.samples = samples
        self.maxOutboxItems = maxOutboxItems ?? Self.defaultMaxOutboxItems
    }

    /// True for 1–63 letters, digits, `.`, `_` and `-`, starting with a letter or digit.
    public static func isGatewayID(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 63 else { return false }
        func allowed(_ c: Unicode.Scalar) -> Bool {
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c))
        }
        return allowed(first) && text.unicodeScalars.allSatisfy { allowed($0) || "._-".unicodeScalars.contains($0) }
    }
}
