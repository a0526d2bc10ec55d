// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import ControlProtocol

/// `sportsensorctl adapters`: the Bluetooth adapters the daemon uses, their link budgets and the
/// sensors holding their slots.
struct AdaptersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "Show the daemon's Bluetooth adapters, their link budgets and which sensors use them.")

    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await runClientCommand(client) { connection in
            let adapters: [AdapterInfo] = try await connection.get(ControlRoute.adapters.request())
            client.output(adapters) { adapters in
                adapters.isEmpty
                    ? "no Bluetooth adapter in use (virtual sensors only, or none plugged in: see `sportsensorctl doctor`)\n"
                    : GatewayFormatting.adapters(adapters)
            }
        }
    }
}

extension GatewayFormatting {
    /// One row per adapter: state, links of the budget, and the sensors on it.
    static func adapters(_ adapters: [AdapterInfo]) -> String {
        var table = TextTable(
            ["ADAPTER", "ADDRESS", "STATE", "LINKS", "SENSORS"], alignments: [.left, .left, .left, .right, .left])
        for adapter in adapters {
            table.append([
                adapter.name, adapter.address, adapter.up ? "up" : "DOWN", "\(adapter.links)/\(adapter.linkBudget)",
                adapter.sensors.isEmpty ? "-" : adapter.sensors.joined(separator: " "),
            ])
        }
        return table.rendered
    }
}
