// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEWire
import ControlProtocol
import Detection
import Foundation

/// `sportsensorctl status`: the daemon's version, uptime, store, adapters, sensors and sessions.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show what the running sportsensord is doing.")

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await runClientCommand(client) { connection in
            let status: GatewayStatus = try await connection.get(ControlRoute.status.request())
            client.output(status, GatewayFormatting.status)
        }
    }
}

/// `sportsensorctl scan`: what advertises nearby, SDU sensors first.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan", abstract: "Scan for Bluetooth LE devices through the daemon, SDU sensors first.")

    @Option(help: "How long to scan, 1–60 seconds.")
    var seconds: Int = 5

    @OptionGroup var client: ClientOptions

    func validate() throws {
        guard (1...60).contains(seconds) else {
            throw ValidationError("--seconds \(seconds): scan for 1 to 60 seconds")
        }
    }

    func run() async throws {
        try await runClientCommand(client) { connection in
            if !client.json { writeStandardError("scanning for \(seconds) s…\n") }
            let found: [DiscoveryInfo] = try await connection.send(
                ControlRoute.scan.request(query: ["seconds": "\(seconds)"]), json: String?.none,
                timeout: Int64(seconds) + 30)
            let sorted = GatewayFormatting.sortedDiscoveries(found)
            client.output(sorted) { found in
                found.isEmpty
                    ? "nothing advertised: is the sensor awake (shake it) and within a few metres? try --seconds 15\n"
                    : GatewayFormatting.discoveries(found)
            }
        }
    }
}

/// `sportsensorctl pair ADDR`: make a sensor known to the daemon, which then keeps a link to it.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair", abstract: "Pair a sensor (the daemon connects to it and keeps it connected).")

    @Argument(help: "The sensor's address, as `scan` shows it (AA:BB:CC:DD:EE:FF).")
    var address: String

    @Option(help: "A unique name for the sensor (e.g. anna-left).")
    var alias: String?

    @Option(help: "The athlete who wears it.")
    var athlete: String?

    @Option(help: "public or random (default: what a scan saw; SDU sensors use random).")
    var addressType: String?

    @OptionGroup var client: ClientOptions

    func validate() throws {
        guard BluetoothAddress(string: address) != nil else {
            throw ValidationError("\(address): expected a Bluetooth address like FC:97:8B:75:10:AB (see `scan`)")
        }
        if let addressType, addressType != "public", addressType != "random" {
            throw ValidationError("--address-type \(addressType): expected public or random")
        }
    }

    func run() async throws {
        try await runClientCommand(client) { connection in
            let request = PairRequest(
                address: address.uppercased(), addressType: addressType, alias: alias, athlete: athlete)
            let sensor: SensorInfo = try await connection.send(ControlRoute.pair.request(), json: request)
            client.output(sensor) { sensor in
                var line = "paired \(sensor.address)"
                if let alias = sensor.alias { line += " as \(alias)" }
                if let athlete = sensor.athlete { line += " for \(athlete)" }
                return line + " (link \(sensor.linkState))\n"
            }
        }
    }
}

/// `sportsensorctl unpair SENSOR`.
struct UnpairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair", abstract: "Forget a sensor (a live session on it ends first).")

    @Argument(help: "The sensor's alias or address.")
    var sensor: String

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await runClientCommand(client) { connection in
            try await connection.send(ControlRoute.unpair.request(sensor))
            writeHumanOutput(client.json ? "{\"unpaired\":\(jsonString(sensor))}\n" : "unpaired \(sensor)\n")
        }
    }
}

/// `sportsensorctl sensors`: paired sensors with their link state.
struct SensorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensors", abstract: "List paired sensors with their link state.")

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await runClientCommand(client) { connection in
            let sensors: [SensorInfo] = try await connection.get(ControlRoute.sensors.request())
            client.output(sensors) { sensors in
                sensors.isEmpty
                    ? "no sensors paired: find one with `sportsensorctl scan`, then `pair ADDRESS`\n"
                    : GatewayFormatting.sensors(sensors, now: Date())
            }
        }
    }
}

/// `sportsensorctl start --sensor S --profile P`: start recording a session.
struct StartCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start", abstract: "Start a session on a paired sensor.")

    @Option(help: "The sensor's alias or address.")
    var sensor: String

    @Option(help: "table-tennis, jump, throw or steps (default: the daemon's configured profile).")
    var profile: DetectionProfile?

    @Option(help: "The athlete (default: the one bound to the sensor).")
    var athlete: String?

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await runClientCommand(client) { connection in
            let request = StartSessionRequest(sensor: sensor, profile: profile?.rawValue, athlete: athlete)
            let session: SessionInfo = try await connection.send(ControlRoute.startSession.request(), json: request)
            client.output(session) { session in
                var line =
                    "started session \(GatewayFormatting.shortID(session.id)) on \(session.alias ?? session.sensor)"
                line += " (\(session.profile)"
                if let athlete = session.athlete { line += ", \(athlete)" }
                return line + "); follow it with `sportsensorctl tail`\n"
            }
        }
    }
}

/// `sportsensorctl stop [ID | --sensor S]`: stop a live session.
struct StopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop", abstract: "Stop a live session (the only one when there is exactly one).")

    @Argument(help: "The session's UUID or a unique prefix.")
    var id: String?

    @Option(help: "Stop the live session on this sensor (alias or address).")
    var sensor: String?

    @OptionGroup var client: ClientOptions

    func validate() throws {
        if id != nil, sensor != nil { throw ValidationError("give a session ID or --sensor, not both") }
    }

    func run() async throws {
        try await runClientCommand(client) { connection in
            let target: String
            if let id {
                target = id
            } else {
                let query: KeyValuePairs<String, String> =
                    if let sensor { ["live": "true", "sensor": sensor] } else { ["live": "true"] }
                let live: [SessionInfo] = try await connection.get(ControlRoute.sessions.request(query: query))
                target = try StopCommand.choose(from: live, sensor: sensor)
            }
            let session: SessionInfo = try await connection.send(
                ControlRoute.stopSession.request(target), json: String?.none)
            client.output(session) { session in
                let events = session.eventCounts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                let summary = events.isEmpty ? "no events" : events.joined(separator: ", ")
                return
                    "stopped session \(GatewayFormatting.shortID(session.id)) on \(session.alias ?? session.sensor): "
                    + "\(summary), \(session.samples) samples\n"
            }
        }
    }

    /// The one live session to stop, or an error saying how to choose.
    static func choose(from live: [SessionInfo], sensor: String?) throws(ClientError) -> String {
        if live.count == 1 { return live[0].id }
        if live.isEmpty {
            throw ClientError(
                code: .daemon,
                message: sensor.map { "no live session on \($0)" } ?? "no session is live",
                fix: "list them with `sportsensorctl sessions`",
                body: ControlErrorBody(code: "not-found", error: "no live session", fix: nil))
        }
        let list = live.map { "\(GatewayFormatting.shortID($0.id)) (\($0.alias ?? $0.sensor))" }
        throw ClientError(
            code: .invalidOption, message: "\(live.count) sessions are live: \(list.joined(separator: ", "))",
            fix: "choose one: `sportsensorctl stop ID` or `--sensor ALIAS`")
    }
}

/// A JSON string literal.
func jsonString(_ text: String) -> String {
    guard let data = try? JSONEncoder().encode(text) else { return "\"\"" }
    return String(decoding: data, as: UTF8.self)
}
