// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Foundation

/// What `bench-gateway` reads of the daemon at the start and the end of a measuring window.
struct GatewayProcessReading: Equatable, Sendable {
    /// `utime + stime` of the whole process, clock ticks (`/proc/PID/stat` fields 14 and 15).
    var cpuTicks: Int
    /// Resident set, bytes (`/proc/PID/status` `VmRSS`).
    var residentBytes: Int
    /// Its anonymous part, bytes (`/proc/PID/status` `RssAnon`).
    var residentAnonymousBytes = 0
    /// Proportional set, bytes (`/proc/PID/smaps_rollup` `Pss`: shared pages divided among the
    /// processes mapping them).
    var proportionalBytes = 0
    /// Anonymous memory, bytes (`/proc/PID/smaps_rollup` `Anonymous`: pages backed by no file,
    /// the heap, stacks and written copies of data pages; what the daemon costs beyond its code).
    var anonymousBytes = 0
    /// Private dirty memory, bytes (`/proc/PID/smaps_rollup` `Private_Dirty`: the anonymous pages
    /// written, and the file pages written in a private mapping, such as relocated data).
    var privateDirtyBytes = 0
    /// Bytes whose pages the process dirtied for the disk (`/proc/PID/io` `write_bytes`).
    var writeBytes: Int
    /// Heap allocations so far (the preloaded counter; nil without it).
    var allocations: Int?
    /// `sportsensord_samples_total`.
    var samples: Double
    /// `sportsensord_notifications_total`.
    var notifications: Double
    /// `sportsensord_lost_samples_total`.
    var lostSamples: Double
    /// When, on the benchmark's monotonic clock.
    var at: ContinuousClock.Instant
}

/// Parsing the kernel's per-process files and the daemon's Prometheus text.
enum GatewayProcessFiles {
    /// `utime + stime` from a `/proc/PID/stat` line. The command name (field 2) is in parentheses
    /// and may hold spaces, so fields count from the last `)`.
    static func cpuTicks(stat: String) -> Int? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: field 3 (state) is index 0, so utime (14) is 11 and stime (15) is 12.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// `VmRSS` and `RssAnon` of `/proc/PID/status`, in bytes; nil without either.
    static func status(_ text: String) -> (resident: Int, anonymous: Int)? {
        let fields = kilobyteFields(text, ["VmRSS:", "RssAnon:"])
        guard let resident = fields["VmRSS:"], let anonymous = fields["RssAnon:"] else { return nil }
        return (resident, anonymous)
    }

    /// `Pss`, `Anonymous` and `Private_Dirty` of `/proc/PID/smaps_rollup`, in bytes; nil without any.
    static func rollup(smaps: String) -> (proportional: Int, anonymous: Int, privateDirty: Int)? {
        let fields = kilobyteFields(smaps, ["Pss:", "Anonymous:", "Private_Dirty:"])
        guard let proportional = fields["Pss:"], let anonymous = fields["Anonymous:"],
            let privateDirty = fields["Private_Dirty:"]
        else { return nil }
        return (proportional, anonymous, privateDirty)
    }

    /// The `names` of `Name:   123 kB` lines (the form of `status` and `smaps_rollup`), in bytes.
    static func kilobyteFields(_ text: String, _ names: Set<Substring>) -> [Substring: Int] {
        var fields: [Substring: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 2, names.contains(parts[0]), let kilobytes = Int(parts[1]) else { continue }
            fields[parts[0]] = kilobytes * 1024
        }
        return fields
    }

    /// `write_bytes` of `/proc/PID/io`.
    static func writeBytes(io: String) -> Int? {
        for line in io.split(separator: "\n") where line.hasPrefix("write_bytes:") {
            return Int(line.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The value of an unlabelled series in Prometheus text (`name 123` or `name 1.5e+06`).
    static func metric(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let parts = line.split(separator: " ")
            guard parts.count >= 2, parts[0] == name else { continue }
            return Double(parts[1])
        }
        return nil
    }
}

/// One run's figures, from the readings at the start and the end of its window.
struct GatewayBenchmarkFigures: Equatable, Sendable {
    var sensors: Int
    var rate: Int
    var subscribers: Int
    /// Samples and notifications the daemon took in the window.
    var samples: Double
    var notifications: Double
    /// Samples per second the daemon took, against `sensors × rate` offered.
    var samplesPerSecond: Double
    /// Share of one core the daemon used.
    var coreShare: Double
    var cpuPerSampleMicroseconds: Double
    var cpuPerNotificationMicroseconds: Double
    var idleResidentBytes: Int
    var loadedResidentBytes: Int
    var idleProportionalBytes: Int
    var loadedProportionalBytes: Int
    var idleAnonymousBytes: Int
    var loadedAnonymousBytes: Int
    var idleResidentAnonymousBytes: Int
    var loadedResidentAnonymousBytes: Int
    var idlePrivateDirtyBytes: Int
    var loadedPrivateDirtyBytes: Int
    var allocationsPerNotification: Double?
    var diskBytesPerSample: Double
    var lostSamples: Double
    /// Notification → SSE item, milliseconds; nil without subscribers or events.
    var latency: LatencySummary?

    /// The figures of a window from `start` to `end`; memory idle from `idle` (before any sample),
    /// loaded from `end`.
    init(
        sensors: Int, rate: Int, subscribers: Int, start: GatewayProcessReading, end: GatewayProcessReading,
        idle: GatewayProcessReading, ticksPerSecond: Int, latencies: [Double]
    ) {
        self.sensors = sensors
        self.rate = rate
        self.subscribers = subscribers
        let seconds = max(1e-9, (end.at - start.at).inSeconds)
        let cpuSeconds = Double(end.cpuTicks - start.cpuTicks) / Double(max(1, ticksPerSecond))
        samples = end.samples - start.samples
        notifications = end.notifications - start.notifications
        samplesPerSecond = samples / seconds
        coreShare = cpuSeconds / seconds
        cpuPerSampleMicroseconds = samples > 0 ? cpuSeconds / samples * 1e6 : 0
        cpuPerNotificationMicroseconds = notifications > 0 ? cpuSeconds / notifications * 1e6 : 0
        idleResidentBytes = idle.residentBytes
        loadedResidentBytes = end.residentBytes
        idleProportionalBytes = idle.proportionalBytes
        loadedProportionalBytes = end.proportionalBytes
        idleAnonymousBytes = idle.anonymousBytes
        loadedAnonymousBytes = end.anonymousBytes
        idleResidentAnonymousBytes = idle.residentAnonymousBytes
        loadedResidentAnonymousBytes = end.residentAnonymousBytes
        idlePrivateDirtyBytes = idle.privateDirtyBytes
        loadedPrivateDirtyBytes = end.privateDirtyBytes
        if let first = start.allocations, let last = end.allocations, notifications > 0 {
            allocationsPerNotification = Double(last - first) / notifications
        }
        diskBytesPerSample = samples > 0 ? Double(end.writeBytes - start.writeBytes) / samples : 0
        lostSamples = end.lostSamples - start.lostSamples
        latency = LatencySummary(latencies)
    }
}

/// p50, p99 and the largest of a set of latencies (nearest rank).
struct LatencySummary: Equatable, Sendable {
    var count: Int
    var p50: Double
    var p99: Double
    var max: Double

    /// Nil for no values.
    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        count = sorted.count
        p50 = Self.nearestRank(0.50, of: sorted)
        p99 = Self.nearestRank(0.99, of: sorted)
        max = sorted[sorted.count - 1]
    }

    /// The smallest value with at least `quantile` of the values at or below it.
    static func nearestRank(_ quantile: Double, of sorted: [Double]) -> Double {
        let rank = Int((quantile * Double(sorted.count)).rounded(.up))
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, rank - 1))]
    }
}

extension GatewayBenchmarkFigures {
    /// The table's header.
    static let header = [
        "| sensors × Hz | SSE subs | samples/s (offered) | core % | CPU µs/sample | CPU µs/notif. "
            + "| RSS idle / loaded MB | Pss idle / loaded MB | anonymous idle / loaded MB "
            + "| RssAnon idle / loaded MB | Private_Dirty idle / loaded MB | allocs/notif. "
            + "| disk B/sample | notif.→SSE ms p50 / p99 / max (n) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ].joined(separator: "\n")

    /// One row of the table.
    var row: String {
        func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
        let megabytes = { (bytes: Int) in fixed(Double(bytes) / 1_048_576, 1) }
        let allocations = allocationsPerNotification.map { fixed($0, 1) } ?? "-"
        let latencyText =
            latency.map { "\(fixed($0.p50, 2)) / \(fixed($0.p99, 2)) / \(fixed($0.max, 2)) (\($0.count))" } ?? "-"
        return "| \(sensors) × \(rate) | \(subscribers) | \(fixed(samplesPerSecond, 0)) (\(sensors * rate)) "
            + "| \(fixed(coreShare * 100, 1)) | \(fixed(cpuPerSampleMicroseconds, 2)) "
            + "| \(fixed(cpuPerNotificationMicroseconds, 2)) "
            + "| \(megabytes(idleResidentBytes)) / \(megabytes(loadedResidentBytes)) "
            + "| \(megabytes(idleProportionalBytes)) / \(megabytes(loadedProportionalBytes)) "
            + "| \(megabytes(idleAnonymousBytes)) / \(megabytes(loadedAnonymousBytes)) "
            + "| \(megabytes(idleResidentAnonymousBytes)) / \(megabytes(loadedResidentAnonymousBytes)) "
            + "| \(megabytes(idlePrivateDirtyBytes)) / \(megabytes(loadedPrivateDirtyBytes)) "
            + "| \(allocations) | \(fixed(diskBytesPerSample, 1)) | \(latencyText) |"
    }
}
