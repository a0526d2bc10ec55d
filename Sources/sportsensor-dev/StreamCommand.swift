// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEHarness
import BLETransport
import BLEWire
import Foundation
import GATTClient
import Logging
import NIOConcurrencyHelpers
import SDUSensor
import SensorLinks

/// `sportsensor-dev stream`: samples from a real SDU sensor (or a `virtual-sensor`) through the
/// gateway's own transport and `SensorLink`, reconnecting when the link drops.
struct StreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Connect to an SDU sensor over Bluetooth LE and stream its samples, reconnecting when needed.",
        discussion: """
            Scans on the adapter until an SDU sensor advertises (or uses --address), then runs a \
            SensorLink: L2CAP ATT connection, GATT discovery, notifications on, decoding with the \
            sample counter, reconnection with backoff and no sample twice. Link changes (connected, \
            lost, retrying) go to standard output with the final statistics; samples go to --csv \
            as sample CSV with t = unwrapped sample index / --rate. Needs CAP_NET_RAW and \
            CAP_NET_ADMIN for the scan (none with --address). Exit status: 0 when --samples samples \
            arrived, 1 when the link gave up or --timeout passed first, 2 on a transport error.
            """
    )

    @Option(help: "The adapter to use (hci0 or 0).")
    var hci: AdapterName

    @Option(help: "The sensor's address (AA:BB:CC:DD:EE:FF); add --random for a random address. Skips the scan.")
    var address: String?

    @Flag(help: "The --address is a random (static) address.")
    var random = false

    @Option(name: .customLong("scan-seconds"), help: "How long to scan for an SDU sensor.")
    var scanSeconds = 20.0

    @Option(help: "Stop after this many samples.")
    var samples = 1000

    @Option(help: "Write the samples here as sample CSV.")
    var csv: String?

    @Option(help: "Write the final statistics here as key=value lines.")
    var stats: String?

    @Option(help: "The sensor's nominal sample rate in Hz (sets t = index / rate and the decoder's first guess).")
    var rate = 100

    @Option(name: .customLong("max-backoff"), help: "The longest wait between reconnection attempts, s.")
    var maxBackoff = 30.0

    @Option(help: "Give up after this many seconds in total.")
    var timeout = 300.0

    func validate() throws {
        guard samples >= 1 else { throw ValidationError("--samples must be at least 1") }
        guard (1...1000).contains(rate) else { throw ValidationError("--rate must be within 1–1000 Hz") }
        guard scanSeconds > 0, scanSeconds <= 3600 else {
            throw ValidationError("--scan-seconds must be within 0–3600")
        }
        guard maxBackoff >= 0.1, maxBackoff <= 3600 else {
            throw ValidationError("--max-backoff must be within 0.1–3600")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        if let address, BluetoothAddress(string: address) == nil {
            throw ValidationError("--address must look like AA:BB:CC:DD:EE:FF")
        }
    }

    func run() async throws {
        let options = StreamOptions(
            adapterIndex: hci.index,
            address: address.flatMap { BluetoothAddress(string: $0, kind: random ? .random : .public) },
            scanDuration: .milliseconds(Int(scanSeconds * 1000)), samples: samples, csvPath: csv, statsPath: stats,
            rate: rate, maximumBackoff: .milliseconds(Int(maxBackoff * 1000)),
            timeout: .milliseconds(Int(timeout * 1000)))
        let outcome: StreamOutcome
        do {
            outcome = try await runCancellingOnSignals { try await runStream(options) }
        } catch let error as TransportError {
            ConsoleLine.error("error: \(error)")
            throw ExitCode(2)
        }
        ConsoleLine.out(outcome.summary)
        if let path = stats {
            try outcome.keyValues.write(toFile: path, atomically: true, encoding: .utf8)
        }
        guard outcome.received >= samples else { throw ExitCode(1) }
    }
}

/// What `stream` was asked to do.
struct StreamOptions: Sendable {
    var adapterIndex: UInt16
    var address: BluetoothAddress?
    var scanDuration: Duration
    var samples: Int
    var csvPath: String?
    var statsPath: String?
    var rate: Int
    var maximumBackoff: Duration
    var timeout: Duration
}

/// What a `stream` run got.
struct StreamOutcome: Sendable, Hashable {
    /// The sensor streamed from.
    var address: BluetoothAddress
    /// Samples written.
    var received: Int
    /// The link's counters.
    var link: SensorLinkStatistics
    /// How the link ended: `stopped`, `gave up (…)`, or `timed out`.
    var ending: String

    /// `stream: received 2000 samples; missing 3; duplicates dropped 0; reconnects 1; …`.
    var summary: String {
        "stream: received \(received) samples from \(address); missing \(link.missingSamples); "
            + "duplicates dropped \(link.duplicateSamplesDropped); malformed \(link.malformedNotifications); "
            + "connects \(link.connects); reconnects \(link.reconnects); links lost \(link.linksLost); "
            + "failed attempts \(link.failedAttempts); ended: \(ending)"
    }

    /// The same as `key=value` lines, for scripts.
    var keyValues: String {
        [
            "address=\(address)", "received=\(received)", "missing=\(link.missingSamples)",
            "duplicates_dropped=\(link.duplicateSamplesDropped)", "malformed=\(link.malformedNotifications)",
            "connects=\(link.connects)", "reconnects=\(link.reconnects)", "links_lost=\(link.linksLost)",
            "failed_attempts=\(link.failedAttempts)", "ending=\(ending)",
        ].joined(separator: "\n") + "\n"
    }
}

/// Finds the sensor (unless given), runs a `SensorLink` until `samples` arrived, the link gave
/// up, or the timeout passed; writes samples as they come.
func runStream(_ options: StreamOptions) async throws -> StreamOutcome {
    // The link's own warnings repeat what the `link:` lines say; errors still show.
    var logger = quietLogger("sportsensor-dev.stream")
    logger.logLevel = .error
    let adapter = try HCIAdapter.adapter(index: options.adapterIndex)
    let address: BluetoothAddress
    if let given = options.address {
        address = given
    } else {
        address = try await findSensor(on: adapter, within: options.scanDuration, logger: logger)
    }
    let output = try options.csvPath.map { path in try SampleFileWriter(path: path) }
    defer { output?.close() }

    let connector = L2CAPConnector(adapter: adapter, timeout: .seconds(10), logger: logger)
    let configuration = SensorLinkConfiguration(
        backoff: ReconnectBackoffConfiguration(maximumDelay: options.maximumBackoff),
        decoder: SDUStreamDecoder.Configuration(clock: .init(nominalRate: Double(options.rate))))
    let link = SensorLink(
        address: address,
        connector: ClosureSensorConnector { peer in try await connector.connect(to: peer) },
        configuration: configuration, clock: ContinuousClock(), logger: logger)
    let deadline = Task {
        try? await Task.sleep(for: options.timeout)
        if !Task.isCancelled { link.stop() }
    }
    defer { deadline.cancel() }

    let sink = StreamSampleSink(
        limit: options.samples, rate: Double(options.rate), output: output, link: link)
    link.deliverSamples(to: sink)
    return await withTaskGroup(of: Void.self) { group in
        group.addTask { await link.run() }
        var ending = "stopped"
        for await state in link.events {
            if case .retrying = state, let failure = link.statistics.lastFailure {
                ConsoleLine.out("link: \(state) after: \(failure)")
            } else {
                ConsoleLine.out("link: \(state)")
            }
            if case .gaveUp = state { ending = "\(state)" }
            if case .stopped = state, sink.received < options.samples { ending = "timed out" }
        }
        await group.waitForAll()
        return StreamOutcome(address: address, received: sink.received, link: link.statistics, ending: ending)
    }
}

/// Writes the link's samples to the CSV file until `limit` arrived, then stops the link.
private final class StreamSampleSink<C: Clock>: SensorSampleSink where C.Duration == Duration {
    private let limit: Int
    private let rate: Double
    private let output: SampleFileWriter?
    private let link: SensorLink<C>
    private let count = NIOLockedValueBox(0)

    init(limit: Int, rate: Double, output: SampleFileWriter?, link: SensorLink<C>) {
        self.limit = limit
        self.rate = rate
        self.output = output
        self.link = link
    }

    /// Samples written so far.
    var received: Int { count.withLockedValue { $0 } }

    func samplesArrived(_ batch: [IndexedSample]) {
        let (wanted, reached) = count.withLockedValue { received -> (ArraySlice<IndexedSample>, Bool) in
            guard received < limit else { return ([], false) }
            let wanted = batch.prefix(limit - received)
            received += wanted.count
            return (wanted, received >= limit)
        }
        guard !wanted.isEmpty else { return }
        output?.append(
            wanted.map { sample in
                SampleCSV.line(AccelerationSample(t: Double(sample.index) / rate, raw: sample.raw))
            })
        if reached { link.stop() }
    }
}

/// Scans until a connectable SDU sensor advertises; its address, with the kind it advertised.
private func findSensor(
    on adapter: HCIAdapter, within duration: Duration, logger: Logger
) async throws
    -> BluetoothAddress
{
    ConsoleLine.out("scanning on \(adapter.name) for an SDU sensor…")
    let found = try await withThrowingTaskGroup(of: LEDiscovery<ContinuousClock.Instant>?.self) { group in
        group.addTask {
            for try await discovery in LEScanner.scan(adapter: adapter, logger: logger)
            where discovery.isSDUSensor && discovery.isConnectable {
                return discovery
            }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: duration)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
    guard let found else {
        throw TransportError(
            code: .timedOut,
            message: "no SDU sensor advertised within the scan time: is it switched on, in range and not connected "
                + "to a phone or another gateway? `sportsensor-dev hci-scan --hci \(adapter.name)` lists what advertises"
        )
    }
    ConsoleLine.out("found \(found.name ?? "an SDU sensor") at \(found.address) (\(found.address.kind))")
    return found.address
}

/// Appends sample CSV lines to a file, header first.
final class SampleFileWriter: Sendable {
    private let handle: FileHandle

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data((SampleCSV.header + "\n").utf8)),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw HarnessError(.systemCall, "cannot create \(path): give a writable --csv") }
        handle.seekToEndOfFile()
        self.handle = handle
    }

    func append(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        handle.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    func close() {
        try? handle.synchronize()
        try? handle.close()
    }
}
