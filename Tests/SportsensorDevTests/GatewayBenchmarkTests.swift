// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import Testing

@testable import sportsensor_dev

@Suite("bench-gateway: reading /proc, /metrics and the SSE stream, and the arithmetic")
struct GatewayBenchmarkTests {
    @Test("utime + stime count from the last parenthesis, whatever the command name holds")
    func cpuTicks() {
        // Fields 14 and 15 are 1200 and 345; the name has a space and a parenthesis.
        let stat =
            "4242 (sport sensor) d) S 1 4242 4242 0 -1 4194560 900 0 0 0 1200 345 0 0 20 0 9 0 100 900000000 5000 "
            + "18446744073709551615 0 0 0 0 0 0 0 4096 0 0 0 17 1 0 0 0 0 0"
        #expect(GatewayProcessFiles.cpuTicks(stat: stat) == 1545)
        #expect(GatewayProcessFiles.cpuTicks(stat: "4242 (x) S 1") == nil)
    }

    @Test("VmRSS and RssAnon are read from status in kB (tabs or spaces) and given in bytes; write_bytes as written")
    func statusAndIO() {
        // The lines of a real /proc/PID/status (kernel 6.1), tabs after the names.
        let status = """
            Name:\tsportsensor-dev
            VmPeak:\t  900000 kB
            VmHWM:\t   30012 kB
            VmRSS:\t   28672 kB
            RssAnon:\t    6144 kB
            RssFile:\t   22528 kB
            RssShmem:\t       0 kB
            Threads:\t9
            """
        let figures = GatewayProcessFiles.status(status)
        #expect(figures?.resident == 28672 * 1024 && figures?.anonymous == 6144 * 1024)
        #expect(GatewayProcessFiles.status("Name:\tx\nVmRSS:\t  100 kB\n") == nil, "no RssAnon")
        let io = "rchar: 10\nwchar: 20\nread_bytes: 0\nwrite_bytes: 4096000\ncancelled_write_bytes: 0\n"
        #expect(GatewayProcessFiles.writeBytes(io: io) == 4_096_000)
    }

    @Test("Pss, Anonymous and Private_Dirty are read from smaps_rollup in kB and given in bytes; nil without one")
    func rollup() throws {
        let smaps = """
            55d0c0a00000-7ffd1e5f3000 ---p 00000000 00:00 0                          [rollup]
            Rss:               44120 kB
            Pss:               22711 kB
            Pss_Dirty:          4700 kB
            Pss_Anon:           4512 kB
            Pss_File:          18199 kB
            Shared_Clean:      21500 kB
            Private_Dirty:      4600 kB
            Anonymous:          4512 kB
            AnonHugePages:         0 kB
            """
        let figures = try #require(GatewayProcessFiles.rollup(smaps: smaps))
        #expect(figures.proportional == 22711 * 1024 && figures.anonymous == 4512 * 1024)
        #expect(figures.privateDirty == 4600 * 1024, "Private_Dirty, not Pss_Dirty")
        #expect(GatewayProcessFiles.rollup(smaps: "Rss: 10 kB\nPss_Anon: 3 kB\n") == nil)
        #expect(GatewayProcessFiles.rollup(smaps: "Pss: 10 kB\nAnonymous: 3 kB\n") == nil, "no Private_Dirty")
    }

    @Test("an unlabelled Prometheus series, not one whose name it prefixes")
    func metric() {
        let text = """
            # TYPE sportsensord_samples_total counter
            sportsensord_samples_total_other 7
            sportsensord_samples_total 1.5e+06
            sportsensord_notifications_total 500000
            """
        #expect(GatewayProcessFiles.metric("sportsensord_samples_total", in: text) == 1_500_000)
        #expect(GatewayProcessFiles.metric("sportsensord_notifications_total", in: text) == 500_000)
        #expect(GatewayProcessFiles.metric("sportsensord_lost_samples_total", in: text) == nil)
    }

    @Test("figures per sample, per notification and per second from two readings")
    func figures() {
        let start = ContinuousClock.now
        let idle = GatewayProcessReading(
            cpuTicks: 900, residentBytes: 20 << 20, residentAnonymousBytes: 5 << 20, proportionalBytes: 12 << 20,
            anonymousBytes: 4 << 20, privateDirtyBytes: 6 << 20, writeBytes: 0, allocations: 0, samples: 0,
            notifications: 0, lostSamples: 0, at: start)
        let first = GatewayProcessReading(
            cpuTicks: 1000, residentBytes: 30 << 20, writeBytes: 1000, allocations: 5000, samples: 10_000,
            notifications: 3_000, lostSamples: 2, at: start)
        let last = GatewayProcessReading(
            cpuTicks: 1010, residentBytes: 32 << 20, residentAnonymousBytes: 10 << 20, proportionalBytes: 20 << 20,
            anonymousBytes: 9 << 20, privateDirtyBytes: 11 << 20, writeBytes: 1_001_000, allocations: 65_000,
            samples: 110_000,
            notifications: 33_000, lostSamples: 2, at: start + .seconds(10))
        let figures = GatewayBenchmarkFigures(
            sensors: 100, rate: 100, subscribers: 1, start: first, end: last, idle: idle,
            ticksPerSecond: 100, latencies: [3, 1, 2, 4])
        // 10 ticks at 100 Hz is 0.1 s of CPU over 10 s of wall clock, 100 000 samples, 30 000 notifications.
        #expect(abs(figures.coreShare - 0.01) < 1e-9)
        #expect(abs(figures.cpuPerSampleMicroseconds - 1.0) < 1e-9)
        #expect(abs(figures.cpuPerNotificationMicroseconds - 0.1 / 30_000 * 1e6) < 1e-9)
        #expect(figures.samplesPerSecond == 10_000)
        #expect(figures.allocationsPerNotification == 2)
        #expect(figures.diskBytesPerSample == 10)
        #expect(figures.loadedResidentBytes == 32 << 20 && figures.idleResidentBytes == 20 << 20)
        #expect(figures.latency == LatencySummary([1, 2, 3, 4]))
        #expect(figures.idleAnonymousBytes == 4 << 20 && figures.loadedAnonymousBytes == 9 << 20)
        #expect(figures.idleProportionalBytes == 12 << 20 && figures.loadedProportionalBytes == 20 << 20)
        #expect(figures.row.hasPrefix("| 100 × 100 | 1 | 10000 (10000) | 1.0 | 1.00 |"))
        #expect(figures.idleResidentAnonymousBytes == 5 << 20 && figures.loadedResidentAnonymousBytes == 10 << 20)
        #expect(figures.idlePrivateDirtyBytes == 6 << 20 && figures.loadedPrivateDirtyBytes == 11 << 20)
        #expect(figures.row.contains("| 20.0 / 32.0 | 12.0 / 20.0 | 4.0 / 9.0 | 5.0 / 10.0 | 6.0 / 11.0 |"))
    }

    @Test("latency quantiles by nearest rank; none without values")
    func quantiles() throws {
        let summary = try #require(LatencySummary((1...100).map(Double.init).reversed()))
        #expect(summary.count == 100 && summary.p50 == 50 && summary.p99 == 99 && summary.max == 100)
        let one = try #require(LatencySummary([7]))
        #expect(one.p50 == 7 && one.p99 == 7 && one.max == 7)
        #expect(LatencySummary([]) == nil)
    }

    @Test("detection items are found across reads and HTTP chunk lines; other kinds are not")
    func sseParser() {
        var parser = SSELineParser()
        let stream = Array(
            ("4a\r\nevent: counters\ndata: {\"sensor\":\"virtual-1\"}\n\n\r\n"
                + "5c\r\nevent: detection\ndata: {\"session_id\":\"x\",\"sensor\":\"virtual-12\",\"event\":{}}\n\n\r\n"
                + ": keep-alive\n\nevent: detection\ndata: {\"sensor\":\"virtual-3\"}\n\n").utf8)
        var found: [String] = []
        // Byte by byte: items split anywhere still come out whole.
        for byte in stream { found += parser.detections(in: [byte]).map(String.init) }
        #expect(found == ["virtual-12", "virtual-3"])
    }

    @Test("detection and counters items come out in stream order, whatever the reads")
    func sseParserItems() {
        var parser = SSELineParser()
        let stream = Array(
            ("event: detection\ndata: {\"sensor\":\"virtual-2\"}\n\n"
                + "4a\r\nevent: counters\ndata: {\"sensor\":\"virtual-1\"}\n\n\r\n"
                + "event: link\ndata: {\"sensor\":\"virtual-1\"}\n\n"
                + "event: detection\ndata: {\"sensor\":\"virtual-3\"}\n\n").utf8)
        var found: [SSELineParser.Item] = []
        for byte in stream { found += parser.items(in: [byte]) }
        #expect(found == [.detection("virtual-2"), .counters, .detection("virtual-3")])
    }

    @Test("latency detail: items within 50 ms after a counters item apart from the rest; bursts by 50 ms gaps")
    func latencyDetail() throws {
        let origin = ContinuousClock.now
        func at(_ milliseconds: Int) -> ContinuousClock.Instant { origin.advanced(by: .milliseconds(milliseconds)) }
        let latencies = [
            GatewayBenchmarkSubscriber.Latency(at: at(1_010), milliseconds: 9, sinceCounters: .milliseconds(10)),
            GatewayBenchmarkSubscriber.Latency(at: at(1_049), milliseconds: 7, sinceCounters: .milliseconds(49)),
            GatewayBenchmarkSubscriber.Latency(at: at(1_500), milliseconds: 1, sinceCounters: .milliseconds(500)),
            GatewayBenchmarkSubscriber.Latency(at: at(10), milliseconds: 2, sinceCounters: nil),
        ]
        // Two subscribers: bursts of 3 items over 40 ms and 2 over 20 ms, and one of 1.
        let arrivals = [[at(1_000), at(1_020), at(1_040), at(2_000)], [at(1_000), at(1_020)]]
        let detail = GatewayBenchmarkLatencyDetail(latencies: latencies, countersArrivals: arrivals)
        #expect(detail.nearCounters == LatencySummary([9, 7]))
        #expect(detail.awayFromCounters == LatencySummary([1, 2]))
        #expect(detail.medianBurstItems == 2)
        #expect(detail.medianBurstSpanMilliseconds == 20)
        #expect(detail.largestBurstSpanMilliseconds == 40)
    }

    @Test("the lists of the matrix parse, and bad ones are refused")
    func lists() throws {
        #expect(try GatewayBenchmark.numbers("1, 16,64") == [1, 16, 64])
        #expect(throws: ValidationError.self) { try GatewayBenchmark.numbers("1,x") }
        #expect(throws: ValidationError.self) { try GatewayBenchmark.numbers("-1") }
    }

    @Test("--host must name an executable; without it the benchmark hosts the gateway itself")
    func host() throws {
        let error = #expect(throws: (any Error).self) {
            _ = try GatewayBenchmark.parse(["--host", "/nonexistent/sportsensor-dev"])
        }
        #expect(error.map { GatewayBenchmark.message(for: $0) }?.contains("no sportsensor-dev at /nonexistent") == true)
        #expect(try GatewayBenchmark.parse([]).host == nil)
    }

    @Test("the gateway host takes the run's files and the sensors' socket; the socket is required")
    func hostArguments() throws {
        let host = try GatewayBenchmarkHost.parse([
            "--config", "c.toml", "--state-dir", "s", "--socket", "ctl.sock", "--virtual-sensors", "4",
            "--sensor-socket", "sensors.sock",
        ])
        #expect(host.virtualSensors == 4 && host.sensorSocket == "sensors.sock" && host.logLevel == "warning")
        #expect(throws: (any Error).self) {
            _ = try GatewayBenchmarkHost.parse([
                "--config", "c.toml", "--state-dir", "s", "--socket", "ctl.sock", "--virtual-sensors", "4",
            ])
        }
    }
}
