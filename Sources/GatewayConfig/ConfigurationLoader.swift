// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation
import TOMLKit
import VirtualSensor

extension GatewayConfiguration {
    /// Reads and checks a configuration file. A missing file at the default path gives the
    /// defaults (the daemon runs without one); a missing file given explicitly is an error.
    public static func load(path: String, isExplicit: Bool) throws(ConfigurationError) -> GatewayConfiguration {
        guard FileManager.default.fileExists(atPath: path) else {
            if !isExplicit { return GatewayConfiguration() }
            throw ConfigurationError(
                .unreadable, file: path, message: "the configuration file does not exist",
                fix: "check the path given with --config, or copy systemd/config.example.toml there")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(
                .unreadable, file: path, message: "cannot read the configuration file (\(error.localizedDescription))",
                fix: "check its permissions and that it is UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Parses a configuration from TOML text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> GatewayConfiguration {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(
                .syntax, file: file, line: error.source.begin.line,
                message: "not valid TOML: \(error.description) (column \(error.source.begin.column))",
                fix: "correct the syntax (see systemd/config.example.toml)")
        } catch {
            throw ConfigurationError(
                .syntax, file: file, message: "not valid TOML: \(error)",
                fix: "correct the syntax (see systemd/config.example.toml)")
        }
        var reader = ConfigurationReader(file: file, lines: TOMLKeyLines(text: text))
        return try reader.read(table)
    }
}

/// Walks the parsed table with the schema, turning every mistake into a `ConfigurationError`.
struct ConfigurationReader {
    let file: String
    let lines: TOMLKeyLines

    static let sections: [String: [String]] = [
        "gateway": ["state_dir", "socket", "default_profile", "log_level"],
        "bluetooth": ["adapters", "link_budget"],
        "api": ["tcp_listen", "token", "max_connections"],
        "sessions": ["auto_start", "idle_stop_minutes"],
        "detection": DetectionProfile.allCases.map(\.rawValue),
        "retention": ["days", "samples_days", "max_share"],
        "virtual": ["sensors", "scripts", "rate", "out_of_range_every", "out_of_range_for"],
        "web": WebConfiguration.keys,
        "replication": ["postgres_url", "gateway_id", "samples", "max_outbox_items"],
    ]

    mutating func read(_ root: TOMLTable) throws(ConfigurationError) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        try checkKeys(root, allowed: Array(Self.sections.keys), prefix: "", what: "section")
        for (name, allowed) in Self.sections {
            guard let value = root[name] else { continue }
            guard let section = value.table else { throw wrongType(name, expected: "a [\(name)] table", value) }
            if name != "detection" { try checkKeys(section, allowed: allowed, prefix: name + ".", what: "key") }
        }
        if let gateway = root["gateway"]?.table {
            configuration.stateDirectory = try path(gateway, "gateway.state_dir")
            configuration.socketPath = try path(gateway, "gateway.socket")
            if let name = try string(gateway, "gateway.default_profile") {
                guard let profile = DetectionProfile(rawValue: name) else {
                    throw invalid(
                        "gateway.default_profile", "unknown profile '\(name)'",
                        fix: "use one of \(DetectionProfile.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                configuration.defaultProfile = profile
            }
            if let level = try string(gateway, "gateway.log_level") {
                guard GatewayConfiguration.logLevels.contains(level) else {
                    throw invalid(
                        "gateway.log_level", "unknown log level '\(level)'",
                        fix: "use one of \(GatewayConfiguration.logLevels.joined(separator: ", "))")
                }
                configuration.logLevel = level
            }
        }
        if let bluetooth = root["bluetooth"]?.table {
            if let adapters = try strings(bluetooth, "bluetooth.adapters") {
                for adapter in adapters where !GatewayConfiguration.isAdapterName(adapter) {
                    throw invalid(
                        "bluetooth.adapters", "'\(adapter)' is not an adapter name",
                        fix:
                            "name HCI adapters such as \"hci0\" (list them with `hciconfig` or `sportsensorctl adapters`)"
                    )
                }
                configuration.adapters = adapters
            }
            if let budget = try integer(bluetooth, "bluetooth.link_budget") {
                let range = GatewayConfiguration.linkBudgets
                guard range.contains(budget) else {
                    throw invalid(
                        "bluetooth.link_budget", "\(budget) links per adapter is out of range",
                        fix: "give \(range.lowerBound)–\(range.upperBound); 5 suits most USB dongles, "
                            + "7 most Broadcom controllers")
                }
                configuration.linkBudget = budget
            }
        }
        if let api = root["api"]?.table {
            if let listen = try string(api, "api.tcp_listen") {
                guard let address = TCPListenAddress(parsing: listen) else {
                    throw invalid(
                        "api.tcp_listen", "'\(listen)' is not host:port",
                        fix: "write it as \"127.0.0.1:8765\" (port 1–65535), or remove the key to serve the socket only"
                    )
                }
                configuration.tcpListen = address
            }
            if let token = try string(api, "api.token") {
                guard token.count >= 16 else {
                    throw invalid(
                        "api.token", "the token is too short (\(token.count) characters)",
                        fix: "use at least 16 random characters, e.g. from `openssl rand -hex 24`")
                }
                configuration.apiToken = token
            }
            if let limit = try integer(api, "api.max_connections") {
                guard GatewayConfiguration.maxConnectionsRange.contains(limit) else {
                    throw invalid(
                        "api.max_connections", "\(limit) connections per listener is out of range",
                        fix: "use \(GatewayConfiguration.maxConnectionsRange.lowerBound)–"
                            + "\(GatewayConfiguration.maxConnectionsRange.upperBound) (default "
                            + "\(GatewayConfiguration.defaultMaxConnections)), within the unit's LimitNOFILE")
                }
                configuration.maxConnections = limit
            }
            if configuration.tcpListen != nil, configuration.apiToken == nil {
                throw invalid(
                    "api.tcp_listen", "a TCP listener needs a bearer token",
                    fix: "set api.token (e.g. from `openssl rand -hex 24`), or remove api.tcp_listen")
            }
        }
        if let web = root["web"]?.table { configuration.web = try readWeb(web) }
        if let sessions = root["sessions"]?.table {
            if let autoStart = try bool(sessions, "sessions.auto_start") { configuration.autoStart = autoStart }
            if let minutes = try number(sessions, "sessions.idle_stop_minutes") {
                guard minutes.isFinite, minutes >= 0, minutes <= 24 * 60 else {
                    throw invalid(
                        "sessions.idle_stop_minutes", "bad duration \(minutes) minutes",
                        fix: "give minutes between 0 (never stop) and 1440")
                }
                configuration.idleStop = minutes == 0 ? nil : .milliseconds(Int64((minutes * 60_000).rounded()))
            }
        }
        if let detection = root["detection"]?.table {
            try readDetection(detection, into: &configuration.detection)
        }
        if let retention = root["retention"]?.table {
            configuration.retention.days = try days(retention, "retention.days")
            configuration.retention.samplesDays = try days(retention, "retention.samples_days")
            if let share = try number(retention, "retention.max_share") {
                guard share > 0, share <= 1 else {
                    throw invalid(
                        "retention.max_share", "\(share) is not a share of the store",
                        fix: "give a fraction above 0 and at most 1 (0.5: one pass may take half the sessions)")
                }
                configuration.retention.maximumShare = share
            }
        }
        if let virtual = root["virtual"]?.table {
            if let count = try integer(virtual, "virtual.sensors") {
                guard (0...VirtualSensorsConfiguration.maximumCount).contains(count) else {
                    throw invalid(
                        "virtual.sensors", "\(count) virtual sensors is out of range",
                        fix: "give 0 to \(VirtualSensorsConfiguration.maximumCount)")
                }
                configuration.virtualSensors.count = count
            }
            if let names = try strings(virtual, "virtual.scripts") {
                var scripts: [MotionScript] = []
                for name in names {
                    guard let script = MotionScript(rawValue: name) else {
                        throw invalid(
                            "virtual.scripts", "unknown motion script '\(name)'",
                            fix: "use \(MotionScript.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    scripts.append(script)
                }
                guard !scripts.isEmpty else {
                    throw invalid(
                        "virtual.scripts", "no scripts given", fix: "name at least one, e.g. [\"table-tennis\"]")
                }
                configuration.virtualSensors.scripts = scripts
            }
            if let rate = try integer(virtual, "virtual.rate") {
                guard VirtualSensorConfiguration.sampleRates.contains(rate) else {
                    throw invalid(
                        "virtual.rate", "\(rate) Hz is not a rate the sensor supports",
                        fix:
                            "give \(VirtualSensorConfiguration.sampleRates.lowerBound) to \(VirtualSensorConfiguration.sampleRates.upperBound)"
                    )
                }
                configuration.virtualSensors.rate = rate
            }
            let every = try number(virtual, "virtual.out_of_range_every")
            let away = try number(virtual, "virtual.out_of_range_for")
            if let every, every != 0 {
                guard every.isFinite, every >= 1, every <= 86_400 else {
                    throw invalid(
                        "virtual.out_of_range_every", "bad interval \(every) s",
                        fix: "give seconds between 1 and 86400, or 0 to keep the sensors in range")
                }
                var outOfRange = VirtualSensorsConfiguration.OutOfRange(every: .milliseconds(Int64(every * 1000)))
                if let away {
                    guard away.isFinite, away >= 0.1, away <= 3600 else {
                        throw invalid(
                            "virtual.out_of_range_for", "bad duration \(away) s",
                            fix: "give seconds between 0.1 and 3600")
                    }
                    outOfRange.duration = .milliseconds(Int64(away * 1000))
                }
                configuration.virtualSensors.outOfRange = outOfRange
            } else if away != nil {
                throw invalid(
                    "virtual.out_of_range_for", "set without virtual.out_of_range_every",
                    fix: "set virtual.out_of_range_every too (seconds of connection between drops)")
            }
        }
        if let replication = root["replication"]?.table {
            configuration.replication = try readReplication(replication)
        }
        return configuration
    }

    private func readReplication(_ table: TOMLTable) throws(ConfigurationError) -> ReplicationConfiguration {
        guard let url = try string(table, "replication.postgres_url") else {
            throw invalid(
                "replication.postgres_url", "[replication] has no postgres_url",
                fix: "set postgres_url = \"postgres://user:password@host:5432/database\", or remove [replication]")
        }
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            // Never echo the value: it may hold a password.
            throw invalid(
                "replication.postgres_url", "not a postgres:// URL",
                fix: "write it as postgres://user:password@host:5432/database?sslmode=verify-full")
        }
        guard let gatewayID = try string(table, "replication.gateway_id") else {
            throw invalid(
                "replication.gateway_id", "[replication] has no gateway_id",
                fix: "name this box, e.g. gateway_id = \"hall-a\" (unique among the gateways of the database)")
        }
        guard ReplicationConfiguration.isGatewayID(gatewayID) else {
            throw invalid(
                "replication.gateway_id", "'\(gatewayID)' is not a gateway id",
                fix: "use 1–63 letters, digits, '.', '_' or '-', starting with a letter or digit")
        }
        var configuration = ReplicationConfiguration(postgresURL: url, gatewayID: gatewayID)
        if let samples = try bool(table, "replication.samples") { configuration.samples = samples }
        if let bound = try integer(table, "replication.max_outbox_items") {
            let range = ReplicationConfiguration.outboxItemRange
            guard range.contains(bound) else {
                throw invalid(
                    "replication.max_outbox_items", "\(bound) items is out of range",
                    fix: "give \(range.lowerBound) to \(range.upperBound)")
            }
            configuration.maxOutboxItems = bound
        }
        return configuration
    }

    private func readDetection(
        _ detection: TOMLTable, into parameters: inout DetectionParameters
    )
        throws(ConfigurationError)
    {
        for name in detection.keys {
            let key = "detection.\(name)"
            guard let profile = DetectionProfile(rawValue: name) else {
                throw ConfigurationError(
                    .unknownKey, file: file, line: lines.line(of: key), key: key,
                    message: "unknown profile '\(name)' in [detection]",
                    fix:
                        "use [detection.\(DetectionProfile.allCases.map(\.rawValue).joined(separator: "], [detection."))]"
                )
            }
            guard let section = detection[name]?.table else {
                throw wrongType(key, expected: "a [\(key)] table", detection[name])
            }
            let fields = DetectionParameterKeys.fields(for: profile)
            let integers = DetectionParameterKeys.integerFields(for: profile)
            try checkKeys(section, allowed: fields.map(\.key) + integers.map(\.key), prefix: key + ".", what: "key")
            for field in fields {
                let fieldKey = key + "." + field.key
                guard let value = try number(section, fieldKey) else { continue }
                if let problem = field.problem(with: value) {
                    throw invalid(fieldKey, problem.message, fix: problem.fix)
                }
                parameters[keyPath: field.path] = value
            }
            for field in integers {
                let fieldKey = key + "." + field.key
                guard let value = try integer(section, fieldKey) else { continue }
                if let problem = field.problem(with: value) {
                    throw invalid(fieldKey, problem.message, fix: problem.fix)
                }
                parameters[keyPath: field.path] = value
            }
        }
    }

    // MARK: Typed access

    private func checkKeys(
        _ table: TOMLTable, allowed: [String], prefix: String, what: String
    )
        throws(ConfigurationError)
    {
        for key in table.keys where !allowed.contains(key) {
            let full = prefix + key
            let suggestion = allowed.sorted().joined(separator: ", ")
            throw ConfigurationError(
                .unknownKey, file: file, line: lines.line(of: full), key: full,
                message: "unknown \(what) '\(key)'" + (prefix.isEmpty ? "" : " in [\(prefix.dropLast())]"),
                fix: "remove it or use one of: \(suggestion)")
        }
    }

    func leaf(_ key: String) -> String { String(key.split(separator: ".").last ?? Substring(key)) }

    func string(_ table: TOMLTable, _ key: String) throws(ConfigurationError) -> String? {
        guard let value = table[leaf(key)] else { return nil }
        guard let string = value.string else { throw wrongType(key, expected: "a string in quotes", value) }
        return string
    }

    func path(_ table: TOMLTable, _ key: String) throws(ConfigurationError) -> String? {
        guard let value = try string(table, key) else { return nil }
        guard value.hasPrefix("/") else {
            throw invalid(key, "'\(value)' is not an absolute path", fix: "give a path starting with /")
        }
        return value
    }

    private func bool(_ table: TOMLTable, _ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = table[leaf(key)] else { return nil }
        guard let bool = value.bool else { throw wrongType(key, expected: "true or false", value) }
        return bool
    }

    func integer(_ table: TOMLTable, _ key: String) throws(ConfigurationError) -> Int? {
        guard let value = table[leaf(key)] else { return nil }
        guard let int = value.int else { throw wrongType(key, expected: "a whole number", value) }
        return int
    }

    private func number(_ table: TOMLTable, _ key: String) throws(ConfigurationError) -> Double? {
        guard let value = table[leaf(key)] else { return nil }
        if let double = value.double { return double }
        if let int = value.int { return Double(int) }
        throw wrongType(key, expected: "a number", value)
    }

    private func days(_ table: TOMLTable, _ key: String) throws(ConfigurationError) -> Int? {
        guard let days = try integer(table, key) else { return nil }
        guard days >= 1 else {
            throw invalid(
                key, "bad duration \(days) days", fix: "give 1 or more days, or remove the key to keep forever")
        }
        return days
    }

    func strings(_ table: TOMLTable, _ key: String) throws(ConfigurationError) -> [String]? {
        guard let value = table[leaf(key)] else { return nil }
        guard let array = value.array else { throw wrongType(key, expected: "an array of strings", value) }
        var result: [String] = []
        for element in array {
            guard let string = element.string else { throw wrongType(key, expected: "an array of strings", value) }
            result.append(string)
        }
        return result
    }

    private func wrongType(_ key: String, expected: String, _ value: (any TOMLValueConvertible)?) -> ConfigurationError
    {
        let found = value.map { "\($0.type)" } ?? "nothing"
        return ConfigurationError(
            .wrongType, file: file, line: lines.line(of: key), key: key,
            message: "expected \(expected), found \(found)",
            fix: "write the value as \(expected) (see systemd/config.example.toml)")
    }

    func invalid(_ key: String, _ message: String, fix: String) -> ConfigurationError {
        ConfigurationError(.invalidValue, file: file, line: lines.line(of: key), key: key, message: message, fix: fix)
    }
}
