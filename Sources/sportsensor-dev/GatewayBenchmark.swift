// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Foundation
import Glibc

/// `bench-gateway`: what the gateway itself costs per sample, per notification and per SSE
/// subscriber, with the emulated sensors in this process and only the daemon measured
/// (Docs/PERFORMANCE.md, "The gateway's own cost").
struct GatewayBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-gateway",
        abstract: "The daemon's CPU, memory, allocations, disk bytes and event latency under N emulated sensors.",
        discussion: """
            For each combination of --sensors, --rates and --subscribers: starts the gateway (`--host` \
            bench-gateway-host: the daemon's services and control API in a process of their own) in a fresh \
            state directory, serves its N virtual sensors from this process over AF_UNIX SOCK_SEQPACKET \
            connections, starts a session on each, opens the SSE streams, and after --warm-up reads over \
            --seconds: the gateway's utime+stime (/proc/PID/stat), VmRSS and RssAnon (/proc/PID/status), \
            Pss, Anonymous and Private_Dirty (/proc/PID/smaps_rollup) idle and loaded, write_bytes (/proc/PID/io), heap allocations (with --malloc-counter, the preloaded counter \
            scripts/malloc-count.c) and its samples and notifications (/metrics). The latency is from the \
            sensor's last notification sent before a detection item arrives to its arrival, both on this \
            process's monotonic clock. Prints one table row per run.
            """)

    @Option(
        help: """
            The sportsensor-dev whose bench-gateway-host runs the measured gateway (default: this one; \
            another tree's release build compares that tree's gateway).
            """)
    var host: String?

    @Option(help: "The allocation counter to preload into the gateway (make bench-gateway builds it).")
    var mallocCounter: String?

    @Option(help: "Sensor counts, comma-separated.")
    var sensors = "1,16,64,128"

    @Option(help: "Sample rates in Hz, comma-separated.")
    var rates = "100,400"

    @Option(help: "SSE subscriber counts, comma-separated.")
    var subscribers = "0,1,10"

    @Option(help: "Seconds of sessions before measuring.")
    var warmUp = 4

    @Option(help: "Seconds measured per run.")
    var seconds = 15

    @Option(help: "Where the runs' state directories go (a disk, for write_bytes).")
    var directory = "/var/tmp"

    @Flag(
        help: """
            After each row, print to standard error where the detection items arrived relative to the \
            counters items (latency within 50 ms after one and later) and how the counters items came.
            """)
    var latencyDetail = false

    func validate() throws {
        for (name, list) in [("--sensors", sensors), ("--rates", rates), ("--subscribers", subscribers)] {
            guard (try? Self.numbers(list)) != nil else {
                throw ValidationError("\(name) takes whole numbers separated by commas, not '\(list)'")
            }
        }
        guard try Self.numbers(sensors).allSatisfy({ $0 >= 1 }) else {
            throw ValidationError("--sensors must be at least 1")
        }
        guard seconds >= 1, warmUp >= 0 else { throw ValidationError("--seconds ≥ 1 and --warm-up ≥ 0") }
        if let host, !FileManager.default.isExecutableFile(atPath: host) {
            throw ValidationError("no sportsensor-dev at \(host): build it or give another --host")
        }
    }

    /// One line on stdout at once, also when it is a pipe.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// `1,16, 64` → [1, 16, 64].
    static func numbers(_ list: String) throws -> [Int] {
        try list.split(separator: ",").map { item in
            guard let value = Int(item.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                throw ValidationError("'\(item)' is not a whole number")
            }
            return value
        }
    }

    func run() async throws {
        SoakAPICommand.raiseDescriptorLimitQuietly(to: 4096)
        let host = try host ?? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        Self.say(GatewayBenchmarkFigures.header)
        for rate in try Self.numbers(rates) {
            for count in try Self.numbers(sensors) {
                for subscriberCount in try Self.numbers(subscribers) {
                    let template = directory + "/sportsensord-bench-gw.XXXXXX"
                    var bytes = Array(template.utf8CString)
                    guard let made = mkdtemp(&bytes) else {
                        throw HarnessError(
                            .systemCall, "cannot make a directory under \(directory): give a writable --directory")
                    }
                    let runDirectory = String(cString: made)
                    defer { try? FileManager.default.removeItem(atPath: runDirectory) }
                    let run = GatewayBenchmarkRun(
                        host: host, mallocCounter: mallocCounter, directory: runDirectory, sensors: count,
                        rate: rate, subscribers: subscriberCount, warmUp: .seconds(warmUp), window: .seconds(seconds),
                        latencyDetail: latencyDetail)
                    let figures = try await run.run()
                    Self.say(figures.row)
                }
            }
        }
    }
}

extension SoakAPICommand {
    /// Raises the soft descriptor limit towards `wanted` as far as the hard limit allows.
    static func raiseDescriptorLimitQuietly(to wanted: rlim_t) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
