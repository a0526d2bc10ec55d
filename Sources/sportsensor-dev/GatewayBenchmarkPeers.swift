// SPDX-License-Identifier: GPL-2.0-or-later
import ArgumentParser
import BLEHarness
import BLETransport
import BLEWire
import Foundation
import GATTClient
import GatewayConfig
import GatewayCore
import Glibc
import Logging
import NIOConcurrencyHelpers
import VirtualSensor

/// The benchmark's emulated sensors: a ``UnixSeqPacketListener`` the daemon connects to (one
/// connection per link, its hello naming the sensor, `virtual-N`), each served by a
/// `VirtualSensor` with the script, seed and address the daemon's own fleet would give it. Every
/// notification's send time is kept per sensor, the start of the latency the subscribers measure.
final class GatewayBenchmarkSensors: Sendable {
    let listener: UnixSeqPacketListener
    private let rate: Int
    private let scripts: [MotionScript]
    private let lastSent: NIOLockedValueBox<[String: ContinuousClock.Instant]> = NIOLockedValueBox([:])
    private let serving: NIOLockedValueBox<[Task<Void, Never>]> = NIOLockedValueBox([])

    init(path: String, rate: Int, scripts: [MotionScript] = VirtualSensorsConfiguration().scripts) throws {
        listener = try UnixSeqPacketListener(path: path)
        self.rate = rate
        self.scripts = scripts
    }

    /// Accepts connections on a thread of its own until ``stop()``.
    func start() {
        Thread.detachNewThread { [self] in
            while true {
                guard let (bearer, hello) = try? listener.accept() else { return }
                serve(bearer, alias: String(decoding: hello, as: UTF8.self))
            }
        }
    }

    /// When sensor `alias` last sent a notification.
    func lastNotification(of alias: Substring) -> ContinuousClock.Instant? {
        lastSent.withLockedValue { $0[String(alias)] }
    }

    private func serve(_ bearer: SeqPacketBearer, alias: String) {
        guard alias.hasPrefix("virtual-"), let number = Int(alias.dropFirst("virtual-".count)), number >= 1 else {
            Task { await bearer.close() }
            return
        }
        let configuration = VirtualSensorConfiguration(
            seed: UInt64(number), name: alias, address: VirtualSensorFleet<ContinuousClock>.address(of: number),
            sampleRate: rate, pacing: .realTime, samplesWhileIdle: true)
        let source = MotionScriptSource(
            script: scripts[(number - 1) % scripts.count], seed: UInt64(number), rate: Double(rate))
        var logger = Logger(label: "bench-gateway.sensor")
        logger.logLevel = .warning
        guard
            let sensor = try? VirtualSensor(
                configuration: configuration, source: source, clock: ContinuousClock(), logger: logger)
        else { return }
        let stamped = TimestampingBearer(inner: bearer) { [self] now in
            lastSent.withLockedValue { $0[alias] = now }
        }
        let task = Task {
            try? await sensor.run(on: stamped)
            await bearer.close()
        }
        serving.withLockedValue { $0.append(task) }
    }

    /// Stops accepting and ends every sensor's connection.
    func stop() {
        listener.close()
        for task in serving.withLockedValue({ $0 }) { task.cancel() }
    }
}

/// Passes PDUs through, noting when each ATT notification goes out.
struct TimestampingBearer: ATTBearer {
    /// ATT Handle Value Notification.
    static let notificationOpcode: UInt8 = 0x1B

    let inner: any ATTBearer
    let onNotification: @Sendable (ContinuousClock.Instant) -> Void

    func send(_ pdu: [UInt8]) async throws {
        if pdu.first == Self.notificationOpcode { onNotification(.now) }
        try await inner.send(pdu)
    }

    func deliver(to handler: @escaping @Sendable (ATTBearerInput) -> Void) { inner.deliver(to: handler) }

    func close() async { await inner.close() }
}

/// One SSE subscriber on the daemon's control socket, reading on a thread of its own: each
/// `detection` item's arrival, less its sensor's last notification, is one latency sample.
final class GatewayBenchmarkSubscriber: Sendable {
    /// One detection item's latency, and how long after this subscriber's latest `counters`
    /// item it arrived (nil before the first).
    struct Latency: Sendable {
        var at: ContinuousClock.Instant
        var milliseconds: Double
        var sinceCounters: Duration?
    }

    private struct State {
        var latencies: [Latency] = []
        var countersArrivals: [ContinuousClock.Instant] = []
    }
    private let stream: UnixStream
    private let state = NIOLockedValueBox(State())

    init(socket: String, sensors: GatewayBenchmarkSensors) throws {
        stream = try UnixStream(path: socket)
        try stream.write(Array("GET /v1/events HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        Thread.detachNewThread { [self] in read(sensors) }
    }

    private func read(_ sensors: GatewayBenchmarkSensors) {
        var parser = SSELineParser()
        var lastCounters: ContinuousClock.Instant?
        while let chunk = try? stream.readSome(), !chunk.isEmpty {
            let now = ContinuousClock.now
            for item in parser.items(in: chunk) {
                switch item {
                case .counters:
                    lastCounters = now
                    state.withLockedValue { $0.countersArrivals.append(now) }
                case .detection(let sensor):
                    guard let sent = sensors.lastNotification(of: sensor) else { continue }
                    let latency = Latency(
                        at: now, milliseconds: (now - sent).inSeconds * 1000,
                        sinceCounters: lastCounters.map { $0.duration(to: now) })
                    state.withLockedValue { $0.latencies.append(latency) }
                }
            }
        }
    }

    /// Latencies, ms, of the items that arrived within `window`.
    func latencies(in window: ClosedRange<ContinuousClock.Instant>) -> [Double] {
        detailedLatencies(in: window).map(\.milliseconds)
    }

    /// The latencies of the items that arrived within `window`, with their distance to the
    /// counters items before them.
    func detailedLatencies(in window: ClosedRange<ContinuousClock.Instant>) -> [Latency] {
        state.withLockedValue { $0.latencies.filter { window.contains($0.at) } }
    }

    /// When `counters` items arrived within `window`.
    func countersArrivals(in window: ClosedRange<ContinuousClock.Instant>) -> [ContinuousClock.Instant] {
        state.withLockedValue { $0.countersArrivals.filter { window.contains($0) } }
    }

    func close() {
        stream.shutdown()
        stream.close()
    }
}

/// Finds the sensor of each `detection` item in an SSE byte stream (HTTP chunk-size lines in
/// between are skipped: they are neither `event:` nor `data:` lines), and where `counters` items
/// come between them.
struct SSELineParser {
    /// An item that matters to the latency figures.
    enum Item: Equatable {
        /// A `detection` item of this sensor.
        case detection(Substring)
        /// A `counters` item.
        case counters
    }

    private var pending: [UInt8] = []
    private var inDetection = false

    /// The `sensor` of every `detection` item completed by `bytes`.
    mutating func detections(in bytes: [UInt8]) -> [Substring] {
        items(in: bytes).compactMap { item in
            if case .detection(let sensor) = item { return sensor }
            return nil
        }
    }

    /// The `detection` and `counters` items completed by `bytes`, in stream order.
    mutating func items(in bytes: [UInt8]) -> [Item] {
        pending += bytes
        var found: [Item] = []
        var start = 0
        while let end = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pending[start..<end], as: UTF8.self)
            start = end + 1
            if line.hasPrefix("event: ") {
                inDetection = line == "event: detection"
                if line == "event: counters" { found.append(.counters) }
            } else if line.hasPrefix("data: "), inDetection {
                inDetection = false
                if let sensor = Self.sensor(in: line) { found.append(.detection(sensor)) }
            }
        }
        pending.removeFirst(start)
        return found
    }

    /// The value of the first `"sensor":"…"` member.
    static func sensor(in line: String) -> Substring? {
        guard let key = line.range(of: "\"sensor\":\"") else { return nil }
        let rest = line[key.upperBound...]
        guard let close = rest.firstIndex(of: "\"") else { return nil }
        return rest[..<close]
    }
}

extension UnixStream {
    /// Ends both directions, so a thread blocked in `read` returns.
    func shutdown() { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
}
