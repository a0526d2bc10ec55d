// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLETransport
import BLEWire
import Dispatch
import GATTClient
import Glibc
import Logging
import SDUSensor
import SeededRandomness
import SystemPackage
import VirtualSensor

/// `sportsensor-dev demo`: one virtual SDU sensor streaming through the GATT client over a socket
/// pair, with what arrives shown once a second (or as sample CSV).
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Stream a virtual SDU sensor through the GATT client and show what arrives.",
        discussion: """
            Starts one emulated SDU sensor (a real GATT server) making table-tennis-like strokes, \
            connects the GATT client to it over an AF_UNIX SOCK_SEQPACKET socket pair (the same \
            message semantics as an L2CAP ATT socket), discovers the accelerometer, subscribes, \
            decodes every notification and prints one line per second of samples. Ctrl-C ends it.
            """
    )

    @Option(help: "Seconds of samples to stream.")
    var seconds = 10

    @Option(help: "The sensor's sample rate in Hz (25–400).")
    var rate = 100

    @Option(name: .customLong("drop-percent"), help: "Percent of notifications the sensor withholds (0–100).")
    var dropPercent = 0.0

    @Option(help: "Seed of the sensor's identity, motion noise and faults.")
    var seed: UInt64 = 1

    @Flag(help: "Print the decoded samples as CSV (t,x,y,z in g) instead of one line per second.")
    var csv = false

    func validate() throws {
        guard seconds >= 1 else { throw ValidationError("--seconds must be at least 1") }
        guard VirtualSensorConfiguration.sampleRates.contains(rate) else {
            throw ValidationError("--rate must be within 25–400 Hz")
        }
        guard dropPercent >= 0, dropPercent <= 100 else { throw ValidationError("--drop-percent must be within 0–100") }
    }

    func run() async throws {
        let options = DemoOptions(seconds: seconds, rate: rate, dropFraction: dropPercent / 100, seed: seed)
        let csv = csv
        let demo = Task {
            if csv { print(SampleCSV.header) }
            return try await runDemo(options, clock: ContinuousClock()) { event in
                switch event {
                case .second(let second) where !csv: print(second.line)
                case .sample(let sample) where csv: print(SampleCSV.line(sample))
                default: break
                }
            }
        }
        // Ctrl-C cancels the demo, which then closes the link and returns what it has.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "demo.sigint"))
        interrupt.setEventHandler { demo.cancel() }
        interrupt.resume()
        defer {
            interrupt.cancel()
            signal(SIGINT, SIG_DFL)
        }
        let summary = try await demo.value
        var standardError = StandardError()
        print(summary.line, to: &standardError)
    }
}

/// Where the summary goes, so that stdout stays pure CSV with `--csv`.
private struct StandardError: TextOutputStream {
    mutating func write(_ string: String) { _ = try? FileDescriptor.standardError.writeAll(string.utf8) }
}

// MARK: Core

/// What one demo run streams.
struct DemoOptions: Hashable, Sendable {
    /// Seconds of samples the sensor produces before it closes the link.
    var seconds: Int
    /// Samples per second.
    var rate: Int
    /// Fraction (0–1) of notifications the sensor withholds.
    var dropFraction: Double
    /// Seed of everything random.
    var seed: UInt64
    /// Real time for people, as fast as possible for tests.
    var pacing: VirtualSensorConfiguration.Pacing = .realTime
}

/// What arrived in one second of samples (the samples whose index lies in it).
struct DemoSecond: Hashable, Sendable {
    /// Which second, from 0.
    var second: Int
    /// Samples delivered in it.
    var samples = 0
    /// The decoder's sample-rate estimate when the second ended, in Hz.
    var recoveredRate = 0.0
    /// What the decoder made of the header.
    var counterMode = SDUCounterMode.detecting
    /// Samples the counter found missing just before samples of this second.
    var lostSamples = 0
    /// Notifications with a wrong length that arrived during it.
    var malformedNotifications = 0
    /// Its last sample, in g.
    var last: AccelerationSample?
    /// The largest |a| in it, in g.
    var peakMagnitude = 0.0

    /// `second  3: 100 samples, 100.0 Hz, sample counter, lost 0, malformed 0, last (…) g, peak 2.87 g`.
    var line: String {
        let last = last.map { "(\(fixed($0.x)), \(fixed($0.y)), \(fixed($0.z))) g" } ?? "none"
        let number = String(second)
        return "second " + String(repeating: " ", count: max(0, 3 - number.count)) + number
            + ": \(samples) samples, \(SampleCSV.fixed(recoveredRate, decimals: 1)) Hz, \(counterMode), "
            + "lost \(lostSamples), malformed \(malformedNotifications), last \(last), "
            + "peak |a| \(fixed(peakMagnitude)) g"
    }

    private func fixed(_ value: Double) -> String { SampleCSV.fixed(value, decimals: 3) }
}

/// Something the demo reports while it runs.
enum DemoEvent: Hashable, Sendable {
    /// A second of samples is complete.
    case second(DemoSecond)
    /// One decoded sample (time in seconds since the demo connected).
    case sample(AccelerationSample)
}

/// What a demo run saw, in total.
struct DemoSummary: Hashable, Sendable {
    /// Every second reported, in order.
    var seconds: [DemoSecond]
    /// The decoder's counts over the whole run.
    var decoder: SDUStreamStatistics
    /// What the virtual sensor produced.
    var sensor: VirtualSensorStatistics
    /// The ATT MTU the client and sensor agreed on.
    var mtu: UInt16

    /// `total: 1000 samples received of 1000 generated; 0 lost in 0 gaps; 0 malformed; MTU 23`.
    var line: String {
        "total: \(decoder.samplesReceived) samples received of \(sensor.samplesGenerated) generated; "
            + "\(decoder.lostSamples) lost in \(decoder.gaps) gaps (\(sensor.notificationsDropped) notifications "
            + "dropped by the sensor); \(decoder.malformedNotifications) malformed; MTU \(mtu)"
    }
}

/// Runs one virtual sensor through the GATT client over a socket pair and decodes what arrives,
/// reporting each completed second (and each sample) to `report`.
///
/// The sensor closes the link after `options.seconds × options.rate` samples, as a sensor that
/// is switched off; that ends the run. Cancelling the calling task ends it early: the link is
/// closed and the summary of what arrived so far is returned.
func runDemo<C: Clock>(
    _ options: DemoOptions, clock: C, report: (DemoEvent) -> Void
) async throws -> DemoSummary where C.Duration == Duration {
    var logger = Logger(label: "sportsensor-dev.demo")
    logger.logLevel = .error
    let budget = options.seconds * options.rate
    let configuration = VirtualSensorConfiguration(
        seed: options.seed, sampleRate: options.rate,
        faults: .init(dropFraction: options.dropFraction, disconnectAfterSamples: budget),
        pacing: options.pacing, serverMTU: 23)
    let sensor = try VirtualSensor(
        configuration: configuration, source: DemoStrokeSource(rate: options.rate, seed: options.seed), clock: clock,
        logger: logger)
    let (clientEnd, sensorEnd) = try SeqPacketBearer.socketPair(label: "demo")

    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            do {
                try await sensor.run(on: sensorEnd)
            } catch is CancellationError {
                // The demo was interrupted: nothing to report.
            }
        }
        let notifications = DemoNotifications<C.Instant>()
        let client = GATTClient(bearer: clientEnd, clock: clock, notifications: notifications, logger: logger)
        var decoder = SDUStreamDecoder(
            configuration: .init(clock: .init(nominalRate: Double(options.rate))))
        var seconds: [DemoSecond] = []
        var current = DemoSecond(second: 0)
        var samples: [IndexedSample] = []
        let origin = clock.now

        func close(_ second: DemoSecond) {
            var second = second
            second.recoveredRate = decoder.clock.rate
            second.counterMode = decoder.counterMode
            seconds.append(second)
            report(.second(second))
        }

        do {
            try await client.exchangeMTU()
            let accelerometer = try await client.characteristic(SDUProfile.accelerometer, inService: SDUProfile.service)
            try await client.enableNotifications(for: accelerometer)
            for try await notification in notifications.stream {
                samples.removeAll(keepingCapacity: true)
                let arrival = origin.duration(to: notification.receivedAt)
                let outcome = decoder.decode(
                    notification: notification.value, arrivalTime: arrival.inSeconds, into: &samples)
                if case .malformed = outcome.event { current.malformedNotifications += 1 }
                for (position, sample) in samples.enumerated() {
                    let second = Int(sample.index) / options.rate
                    if second != current.second {
                        close(current)
                        current = DemoSecond(second: second)
                    }
                    if position == 0, case .gap(let lost) = outcome.event { current.lostSamples += lost }
                    let acceleration = sample.acceleration
                    current.samples += 1
                    current.last = acceleration
                    current.peakMagnitude = max(current.peakMagnitude, acceleration.magnitude)
                    report(.sample(acceleration))
                }
            }
        } catch let error as GATTError where error.code == .disconnected {
            // The sensor switched off after its samples: the normal end, unless it ended early.
            let generated = await sensor.statistics.samplesGenerated
            guard generated == budget else { throw error }
        }
        if current.samples > 0 || current.malformedNotifications > 0 { close(current) }
        await client.close()
        group.cancelAll()
        try await group.waitForAll()
        return DemoSummary(
            seconds: seconds, decoder: decoder.statistics, sensor: await sensor.statistics, mtu: client.mtu)
    }
}

// MARK: Motion

/// The demo's motion: the wrist at rest (1 g on z) with a little sensor noise, and a stroke every
/// 1.2 s, a 150 ms swing whose forehand axis peaks beyond the ±2 g range and clips at 1.99994 g,
/// as hard table-tennis strokes do on the real sensor.
struct DemoStrokeSource: AccelerationSource {
    /// Seconds from one stroke to the next.
    static let strokePeriod = 1.2
    /// Seconds into each period at which the stroke starts.
    static let strokeStart = 0.3
    /// Seconds a stroke lasts.
    static let strokeDuration = 0.15

    private let rate: Double
    private var index = 0
    private var random: SplitMix64

    /// Motion sampled at `rate` Hz with noise from `seed`.
    init(rate: Int, seed: UInt64) {
        self.rate = Double(max(1, rate))
        random = SplitMix64(seed: seed ^ 0xD3_0000_0001)
    }

    mutating func nextSample() -> RawAcceleration {
        let t = Double(index) / rate
        index += 1
        var x = 0.0
        var y = 0.0
        var z = 1.0
        let intoStroke = t.truncatingRemainder(dividingBy: Self.strokePeriod) - Self.strokeStart
        if intoStroke >= 0, intoStroke < Self.strokeDuration {
            let swing = sin(Double.pi * intoStroke / Self.strokeDuration)
            x += 3.5 * swing
            y -= 1.2 * swing
            z += 0.6 * swing
        }
        return RawAcceleration(x: counts(x + noise()), y: counts(y + noise()), z: counts(z + noise()))
    }

    /// About ±0.02 g, roughly normal (the sum of three uniform draws).
    private mutating func noise() -> Double {
        (random.unit() + random.unit() + random.unit() - 1.5) * 0.027
    }

    /// Raw counts at 16384 per g, clipped to Int16 as the sensor's ADC does.
    private func counts(_ g: Double) -> Int16 {
        Int16(clamping: Int((g * SDUProfile.countsPerG).rounded()))
    }
}

/// The demo's GATT sink: the notifications as a stream its loop reads at its own pace (the CLI
/// is an edge that wants one), ending with the link.
private final class DemoNotifications<Instant: InstantProtocol>: GATTNotificationSink {
    let stream: AsyncThrowingStream<GATTNotification<Instant>, any Error>
    private let continuation: AsyncThrowingStream<GATTNotification<Instant>, any Error>.Continuation

    init() {
        (stream, continuation) = AsyncThrowingStream.makeStream()
    }

    func notified(_ notification: GATTNotification<Instant>) {
        continuation.yield(notification.owned)
    }

    func linkEnded(_ error: GATTError?) {
        if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
    }
}
