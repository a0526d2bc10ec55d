// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayConfig
import GatewayCore
import Testing
import VirtualSensor

@Suite("GatewayConfiguration")
struct GatewayConfigurationTests {
    static let examplePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("systemd/config.example.toml")
        .path

    /// Parses `text` and returns the error it must raise.
    static func error(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ConfigurationError {
        do {
            _ = try GatewayConfiguration.parse(text, file: "/etc/sportsensord/config.toml")
        } catch {
            return error
        }
        Issue.record("expected a configuration error", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    @Test("the commented example in systemd/ parses, with its example values")
    func example() throws {
        let configuration = try GatewayConfiguration.load(path: Self.examplePath, isExplicit: true)
        #expect(configuration.defaultProfile == .tableTennis)
        #expect(configuration.adapters == ["hci0"])
        #expect(configuration.autoStart == false)
        #expect(configuration.idleStop == .seconds(600))
        #expect(configuration.retention == RetentionPolicy(), "the example deletes nothing")
        #expect(configuration.linkBudget == 5)
        #expect(
            configuration.virtualSensors
                == VirtualSensorsConfiguration(count: 0, scripts: [.tableTennis, .jumps, .steps], rate: 100))
        #expect(configuration.tcpListen == nil)
        #expect(configuration.detection == DetectionParameters())
    }

    @Test("every section and override maps onto the configuration")
    func fullFile() throws {
        let configuration = try GatewayConfiguration.parse(
            """
            [gateway]
            state_dir = "/srv/sport"
            socket = "/run/x.sock"
            default_profile = "jump"
            [bluetooth]
            adapters = ["hci0", "hci1"]
            [api]
            tcp_listen = "127.0.0.1:8765"
            token = "0123456789abcdef0123"
            [sessions]
            auto_start = true
            idle_stop_minutes = 2.5
            [detection.table-tennis]
            min_peak_g = 1.6
            [detection.jump]
            min_flight = 0.2
            [detection.steps]
            confirm_steps = 4
            [virtual]
            sensors = 3
            scripts = ["throw"]
            rate = 50
            """, file: "f.toml")
        #expect(configuration.stateDirectory == "/srv/sport")
        #expect(configuration.socketPath == "/run/x.sock")
        #expect(configuration.defaultProfile == .jump)
        #expect(configuration.adapters == ["hci0", "hci1"])
        #expect(configuration.tcpListen == TCPListenAddress(host: "127.0.0.1", port: 8765))
        #expect(configuration.apiToken == "0123456789abcdef0123")
        #expect(configuration.autoStart)
        #expect(configuration.idleStop == .seconds(150))
        #expect(configuration.detection.hit.minPeakG == 1.6)
        #expect(configuration.detection.jump.minFlight == 0.2)
        #expect(configuration.detection.jump.maxFlight == JumpDetector.defaultParameters.maxFlight)
        #expect(configuration.detection.step.confirmSteps == 4)
        #expect(configuration.virtualSensors == VirtualSensorsConfiguration(count: 3, scripts: [.throwing], rate: 50))
    }

    @Test("an unknown key names its file, line and key")
    func unknownKey() throws {
        let error = try Self.error("[gateway]\ndefault_profile = \"jump\"\n\n[sessions]\nidle_minutes = 5\n")
        #expect(error.code == .unknownKey)
        #expect(error.file == "/etc/sportsensord/config.toml")
        #expect(error.line == 5)
        #expect(error.key == "sessions.idle_minutes")
        #expect(error.description.hasPrefix("/etc/sportsensord/config.toml:5: sessions.idle_minutes: "))
        #expect(error.fix?.contains("idle_stop_minutes") == true)
    }

    @Test("a quoted key holding ESC and BEL names its own line (4, not its section's 1), printed escaped")
    func escapedKey() throws {
        let error = try Self.error("[gateway]\ndefault_profile = \"jump\"\n\n\"\\u001B[2Jx\\u0007\" = 1\n")
        #expect(error.code == .unknownKey)
        #expect(error.line == 4)
        #expect(error.key == "gateway.\u{1B}[2Jx\u{7}")
        // What sportsensord prints (and sportsensorctl's standard error): the description, escaped.
        let printed = TerminalText.escaped(error.description)
        #expect(printed.hasPrefix("/etc/sportsensord/config.toml:4: gateway.\\u{1B}[2Jx\\u{7}: unknown-key: "))
        #expect(!printed.contains("\u{1B}"))
        let value = try Self.error("[gateway]\n\ndefault_profile = \"\\u001B]0;owned\\u0007\"\n")
        #expect(value.line == 3)
        let printedValue = TerminalText.escaped(value.description)
        #expect(!printedValue.contains("\u{1B}") && !printedValue.contains("\u{7}"), "\(printedValue)")
        #expect(printedValue.contains("\\u{1B}]0;owned\\u{7}"), "\(printedValue)")
    }

    @Test("an unknown section and an unknown detector key are errors too")
    func unknownSectionAndDetectorKey() throws {
        let section = try Self.error("# comment\n[gateways]\nsocket = \"/x\"\n")
        #expect(section.code == .unknownKey)
        #expect(section.line == 2)
        #expect(section.key == "gateways")
        let detector = try Self.error("[detection.jump]\nmin_flight = 0.2\nmin_fligth = 0.3\n")
        #expect(detector.line == 3)
        #expect(detector.key == "detection.jump.min_fligth")
    }

    @Test("a TCP listener without a token is a configuration error (exit 78), before anything listens")
    func tcpWithoutToken() throws {
        let error = try Self.error("[api]\ntcp_listen = \"127.0.0.1:8765\"\n")
        #expect(error.key == "api.tcp_listen")
        #expect(error.message.contains("needs a bearer token"))
        #expect(error.fix?.contains("api.token") == true)
        #expect(TCPListenAddress(parsing: "127.0.0.1:1")?.isLoopback == true)
        #expect(TCPListenAddress(parsing: "[::1]:1")?.isLoopback == true)
        #expect(TCPListenAddress(parsing: "0.0.0.0:1")?.isLoopback == false)
    }

    @Test("retention.max_share: a fraction of the store, 0.5 by default")
    func maximumShare() throws {
        #expect(GatewayConfiguration().retention.maximumShare == 0.5)
        #expect(
            try GatewayConfiguration.parse("[retention]\nmax_share = 0.2\n", file: "c").retention.maximumShare == 0.2)
        for bad in ["0", "1.5", "-0.1"] {
            #expect(try Self.error("[retention]\nmax_share = \(bad)\n").key == "retention.max_share")
        }
    }

    @Test("api.max_connections: 512 by default, 8–4096, anything else refused naming the range")
    func maximumConnections() throws {
        #expect(GatewayConfiguration().maxConnections == 512)
        #expect(try GatewayConfiguration.parse("[api]\nmax_connections = 64\n", file: "c").maxConnections == 64)
        for bad in ["0", "7", "4097", "-1"] {
            let error = try Self.error("[api]\nmax_connections = \(bad)\n")
            #expect(error.key == "api.max_connections")
            #expect(error.fix?.contains("8–4096 (default 512)") == true)
        }
    }

    @Test("virtual sensors: up to 128 (what bench-gateway showed one daemon carries), more refused naming the range")
    func virtualSensorLimit() throws {
        #expect(try GatewayConfiguration.parse("[virtual]\nsensors = 128\n", file: "c").virtualSensors.count == 128)
        let error = try Self.error("[virtual]\nsensors = 129\n")
        #expect(error.key == "virtual.sensors")
        #expect(error.fix?.contains("0 to 128") == true)
        let flag = try GatewayConfiguration().applying(GatewayOverrides(virtualSensors: 128), environment: [:])
        #expect(flag.virtualSensors.count == 128)
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration().applying(GatewayOverrides(virtualSensors: 129), environment: [:])
        }
    }

    @Test("link_budget: 1–32 per adapter, anything else refused with the common values")
    func linkBudget() throws {
        #expect(try GatewayConfiguration.parse("[bluetooth]\nlink_budget = 7\n", file: "c").linkBudget == 7)
        for bad in ["0", "33", "-1"] {
            let error = try Self.error("[bluetooth]\nlink_budget = \(bad)\n")
            #expect(error.key == "bluetooth.link_budget")
            #expect(error.fix?.contains("5 suits most USB dongles") == true)
        }
    }

    @Test("a value of the wrong type names the expected type")
    func wrongType() throws {
        let error = try Self.error("[virtual]\nscripts = [\"steps\"]\nsensors = \"three\"\n")
        #expect(error.code == .wrongType)
        #expect(error.line == 3)
        #expect(error.key == "virtual.sensors")
        #expect(error.message.contains("whole number"))
    }

    @Test("an unknown profile name is refused with the list of profiles")
    func badProfile() throws {
        let error = try Self.error("[gateway]\n\ndefault_profile = \"tennis\"\n")
        #expect(error.code == .invalidValue)
        #expect(error.line == 3)
        #expect(error.key == "gateway.default_profile")
        #expect(error.fix?.contains("table-tennis") == true)
        let section = try Self.error("[detection.tennis]\nmin_peak_g = 1\n")
        #expect(section.key == "detection.tennis")
        #expect(section.line == 1)
    }

    @Test("a bad duration (negative idle minutes, negative detector seconds, zero days) is refused")
    func badDuration() throws {
        let idle = try Self.error("[sessions]\nauto_start = true\nidle_stop_minutes = -5\n")
        #expect(idle.code == .invalidValue)
        #expect(idle.line == 3)
        #expect(idle.key == "sessions.idle_stop_minutes")
        #expect(idle.message.contains("bad duration"))
        let detector = try Self.error("[detection.table-tennis]\nmerge_window = -0.1\n")
        #expect(detector.key == "detection.table-tennis.merge_window")
        #expect(detector.line == 2)
        let retention = try Self.error("[retention]\ndays = 0\n")
        #expect(retention.key == "retention.days")
    }

    @Test("virtual out-of-range: every and for in seconds; 0 keeps the sensors in range; bad values name their key")
    func virtualOutOfRange() throws {
        let parsed = try GatewayConfiguration.parse(
            "[virtual]\nsensors = 1\nout_of_range_every = 20\nout_of_range_for = 2.5\n", file: "c.toml")
        #expect(parsed.virtualSensors.outOfRange == .init(every: .seconds(20), duration: .milliseconds(2500)))
        let defaulted = try GatewayConfiguration.parse("[virtual]\nout_of_range_every = 5\n", file: "c.toml")
        #expect(defaulted.virtualSensors.outOfRange == .init(every: .seconds(5), duration: .seconds(3)))
        let off = try GatewayConfiguration.parse("[virtual]\nout_of_range_every = 0\n", file: "c.toml")
        #expect(off.virtualSensors.outOfRange == nil)
        let tooOften = try Self.error("[virtual]\nout_of_range_every = 0.5\n")
        #expect(tooOften.key == "virtual.out_of_range_every")
        #expect(tooOften.line == 2)
        let alone = try Self.error("[virtual]\nout_of_range_for = 2\n")
        #expect(alone.key == "virtual.out_of_range_for")
        #expect(alone.message.contains("without virtual.out_of_range_every"))
    }

    @Test("the hit detector's envelope and merge-window settings are configurable like the rest")
    func hitMergeSettings() throws {
        let parsed = try GatewayConfiguration.parse(
            "[detection.table-tennis]\nenvelope_time_constant = 0.05\nmerge_window = 0.7\n", file: "c.toml")
        #expect(parsed.detection.hit.envelopeTimeConstant == 0.05)
        #expect(parsed.detection.hit.mergeWindow == 0.7)
        let negative = try Self.error("[detection.table-tennis]\nmerge_window = -1\n")
        #expect(negative.key == "detection.table-tennis.merge_window")
    }

    @Test("a TOML syntax error carries the parser's line")
    func syntaxError() throws {
        let error = try Self.error("[gateway]\ndefault_profile = \"jump\"\nlog_level = = \"info\"\n")
        #expect(error.code == .syntax)
        #expect(error.line == 3)
        #expect(error.file == "/etc/sportsensord/config.toml")
    }

    @Test("a missing default file gives the defaults; a missing explicit file is an error")
    func missingFile() throws {
        let missing = "/nonexistent/sportsensord.toml"
        #expect(try GatewayConfiguration.load(path: missing, isExplicit: false) == GatewayConfiguration())
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration.load(path: missing, isExplicit: true) }
    }

    @Test("the environment overrides the file and flags override both")
    func overrides() throws {
        var file = GatewayConfiguration()
        file.stateDirectory = "/from/file"
        file.socketPath = "/from/file.sock"
        file.adapters = ["hci0"]
        let environment = ["SPORTSENSOR_STATE_DIR": "/from/env", "SPORTSENSOR_SOCKET": "/from/env.sock"]
        let fromEnvironment = try file.applying(GatewayOverrides(), environment: environment)
        #expect(fromEnvironment.stateDirectory == "/from/env")
        #expect(fromEnvironment.socketPath == "/from/env.sock")
        let fromFlags = try file.applying(
            GatewayOverrides(
                stateDirectory: "/from/flag", socketPath: "/from/flag.sock", virtualSensors: 4, adapters: ["hci1"],
                logLevel: "debug"),
            environment: environment)
        #expect(fromFlags.stateDirectory == "/from/flag")
        #expect(fromFlags.socketPath == "/from/flag.sock")
        #expect(fromFlags.virtualSensors.count == 4)
        #expect(fromFlags.adapters == ["hci1"])
        #expect(fromFlags.logLevel == "debug")
        #expect(throws: ConfigurationError.self) {
            try file.applying(GatewayOverrides(adapters: ["bluetooth0"]), environment: [:])
        }
    }
}
