// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser

/// The developers' tool: harnesses for the VM test, the detector evaluation and benchmarks, and
/// Bluetooth commands that drive an adapter without the daemon. Not installed by `make install`;
/// what an admin or coach types is in `sportsensorctl`.
@main
struct SportsensorDev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sportsensor-dev",
        abstract: "Developer harnesses for sportsensord: emulated sensors, raw Bluetooth, evaluation, benchmarks.",
        groupedSubcommands: [
            CommandGroup(
                name: "Bluetooth",
                subcommands: [
                    HCIScanCommand.self, StreamCommand.self, VirtualSensorCommand.self, DemoCommand.self,
                ]),
            CommandGroup(
                name: "Detection",
                subcommands: [EvaluateCommand.self, SimulateCommand.self, BenchCommand.self, ValidateCommand.self]),
            CommandGroup(
                name: "Harnesses",
                subcommands: [
                    CompareSamplesCommand.self, StoreCrashHelper.self, StoreBenchmark.self, SoakAPICommand.self,
                    ReplicationBenchmark.self, GatewayBenchmark.self, GatewayBenchmarkHost.self,
                ]),
        ]
    )
}
