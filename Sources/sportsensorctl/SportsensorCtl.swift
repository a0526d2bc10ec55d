// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser

/// The command-line tool for sportsensord: the daemon's client (status, doctor, scan, pair,
/// sessions, tail) and offline analysis of captures and recordings.
@main
struct SportsensorCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sportsensorctl",
        abstract: "Work with SDU sport sensors, captures and the sportsensord gateway.",
        subcommands: [
            StatusCommand.self, DoctorCommand.self, ScanCommand.self, PairCommand.self, UnpairCommand.self,
            SensorsCommand.self, StartCommand.self, StopCommand.self, TailCommand.self, Decode.self, Analyze.self,
            ImportCommand.self, SessionsCommand.self, ShowCommand.self, ExportCommand.self, ReanalyzeCommand.self,
            PruneCommand.self, StoreCommand.self, Evaluate.self, Bench.self, Simulate.self, Demo.self,
            StoreCrashHelper.self,
            StoreBenchmark.self,
            VirtualSensorCommand.self, Scan.self, Stream.self, CompareSamples.self,
        ]
    )
}
