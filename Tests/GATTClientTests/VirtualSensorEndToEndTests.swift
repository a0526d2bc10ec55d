// SPDX-License-Identifier: GPL-2.0-or-later
import BLETransport
import BLEWire
import GATTClient
import GatewayTesting
import NIOConcurrencyHelpers
import SDUSensor
import Testing
import VirtualSensor

/// A motion source whose every reading is known in advance: sample n is a different ramp on each
/// axis, so a swapped axis, a repeated or a skipped sample shows as a wrong value.
struct RampSource: AccelerationSource {
    var index = 0

    static func sample(_ index: Int) -> RawAcceleration {
        RawAcceleration(
            x: Int16(truncatingIfNeeded: index), y: Int16(truncatingIfNeeded: 20_000 &- 3 &* index),
            z: Int16(truncatingIfNeeded: 16_384 &+ 7 &* index))
    }

    mutating func nextSample() -> RawAcceleration {
        defer { index += 1 }
        return Self.sample(index)
    }
}

/// Every notification the virtual sensor produced (sent, dropped or malformed), in order.
final class GroundTruth: Sendable {
    private let log = NIOLockedValueBox<[VirtualSensorNotification]>([])

    func record(_ notification: VirtualSensorNotification) { log.withLockedValue { $0.append(notification) } }

    var notifications: [VirtualSensorNotification] { log.withLockedValue { $0 } }
}

/// A GATT client connected to a virtual sensor over an `AF_UNIX` `SOCK_SEQPACKET` socket pair,
/// with notifications on the accelerometer enabled.
struct SensorLink<C: Clock>: Sendable where C.Duration == Duration {
    let clock: C
    let client: GATTClient<C>
    let collector: NotificationCollector<C.Instant>
    let sensor: VirtualSensor<C>
    let sensorTask: Task<Void, any Error>
    let truth: GroundTruth
    let accelerometer: GATTCharacteristic
    let mtu: UInt16

    /// Connects exactly as the gateway would over L2CAP: MTU exchange, discovery by UUID, CCCD write.
    static func connect(_ configuration: VirtualSensorConfiguration, clock: C) async throws -> SensorLink {
        let (clientEnd, sensorEnd) = try SeqPacketBearer.socketPair(label: "e2e")
        let truth = GroundTruth()
        let sensor = try VirtualSensor(
            configuration: configuration, source: RampSource(), clock: clock,
            onNotification: { truth.record($0) })
        let sensorTask = Task { try await sensor.run(on: sensorEnd) }
        let collector = NotificationCollector<C.Instant>()
        let client = GATTClient(bearer: clientEnd, clock: clock, notifications: collector)
        let mtu = try await client.exchangeMTU()
        let accelerometer = try await client.characteristic(SDUProfile.accelerometer, inService: SDUProfile.service)
        try await client.enableNotifications(for: accelerometer)
        return SensorLink(
            clock: clock, client: client, collector: collector, sensor: sensor, sensorTask: sensorTask, truth: truth,
            accelerometer: accelerometer,
            mtu: mtu)
    }
}

/// What the client side made of the stream.
struct ReceivedStream {
    var decoder = SDUStreamDecoder()
    var samples: [IndexedSample] = []
    var outcomes: [SDUNotificationOutcome] = []
    var notificationsReceived = 0
    /// Well-formed notifications delivered so far.
    var delivered = 0
    /// The number of the delivered notification (from 1) on which the counter mode was decided.
    var decidedAt: Int?
    /// Samples delivered before that notification. The decoder indexes them in arrival order (it
    /// cannot place a loss before it knows what the header counts), so only their values are exact.
    var samplesBeforeDecision = 0
    /// The error the notification stream ended with; nil when it finished normally or was left.
    var endError: (any Error)?
}

@Suite("GATT client against the virtual sensor over a SOCK_SEQPACKET socket pair", .timeLimit(.minutes(5)))
struct VirtualSensorEndToEndTests {
    /// Reads notifications until the stream ends, or until `limit` samples have been decoded.
    static func receive<C>(_ link: SensorLink<C>, limit: Int? = nil) async -> ReceivedStream {
        var received = ReceivedStream()
        let origin = link.clock.now
        do {
            for try await notification in link.collector.notifications {
                #expect(notification.handle == link.accelerometer.valueHandle)
                #expect(!notification.isIndication)
                received.notificationsReceived += 1
                let outcome = received.decoder.decode(
                    notification: notification.value,
                    arrivalTime: origin.duration(to: notification.receivedAt).inSeconds,
                    into: &received.samples)
                received.outcomes.append(outcome)
                if outcome.isDelivered {
                    received.delivered += 1
                    if received.decidedAt == nil {
                        if outcome.counterMode == .detecting {
                            received.samplesBeforeDecision += outcome.sampleCount
                        } else {
                            received.decidedAt = received.delivered
                        }
                    }
                }
                if let limit, received.samples.count >= limit { break }
            }
        } catch {
            received.endError = error
        }
        return received
    }

    /// Checks that the decoded samples are exactly the samples of the notifications the sensor
    /// sent intact, in order, and that their indices follow the sensor's sample numbers (gaps
    /// included). Returns the number of samples compared.
    @discardableResult
    static func expectExact(
        _ received: ReceivedStream, truth: [VirtualSensorNotification],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Int {
        let expected = truth.filter { $0.fate == .sent }.flatMap { notification in
            notification.samples.enumerated().map {
                (index: notification.firstSampleIndex + $0.offset, raw: $0.element)
            }
        }
        #expect(received.samples.count <= expected.count, sourceLocation: sourceLocation)
        guard let firstDecoded = received.samples.first, let firstExpected = expected.first else {
            Issue.record("no samples received", sourceLocation: sourceLocation)
            return 0
        }
        let offset = firstExpected.index - Int(firstDecoded.index)
        var mismatches: [String] = []
        for (position, (decoded, truth)) in zip(received.samples, expected).enumerated()
        where decoded.raw != truth.raw || truth.raw != RampSource.sample(truth.index)
            || (position >= received.samplesBeforeDecision && Int(decoded.index) + offset != truth.index)
        {
            mismatches.append("decoder #\(decoded.index) \(decoded.raw) vs sensor #\(truth.index) \(truth.raw)")
        }
        #expect(
            mismatches.isEmpty, "\(mismatches.count) wrong samples, first: \(mismatches.prefix(3))",
            sourceLocation: sourceLocation)
        return min(received.samples.count, expected.count)
    }

    /// The samples, and the gaps, the decoder should report missing: the notifications the
    /// sensor did not deliver intact between the first and the last it did. Runs of them that end
    /// before the counter mode was decided (at delivered notification `decidedAt`) show as one gap
    /// when it is decided; later runs are one gap each.
    static func missingBetweenDelivered(
        _ truth: [VirtualSensorNotification], decidedAt: Int?
    ) -> (samples: Int, gaps: Int) {
        guard let first = truth.firstIndex(where: { $0.fate == .sent }),
            let last = truth.lastIndex(where: { $0.fate == .sent })
        else { return (0, 0) }
        var samples = 0
        var gaps = 0
        var delivered = 0
        var pending = 0
        var lostWhileDetecting = false
        for notification in truth[first...last] {
            guard notification.fate == .sent else {
                pending += notification.samples.count
                continue
            }
            delivered += 1
            if pending > 0 {
                samples += pending
                if let decidedAt, delivered > decidedAt { gaps += 1 } else { lostWhileDetecting = true }
            }
            pending = 0
            if delivered == decidedAt, lostWhileDetecting { gaps += 1 }
        }
        return (samples, gaps)
    }

    static func expectDisconnected(_ error: (any Error)?, sourceLocation: SourceLocation = #_sourceLocation) {
        let gattError = error as? GATTError
        #expect(
            gattError?.code == .disconnected, "stream ended with \(String(describing: error))",
            sourceLocation: sourceLocation)
    }

    @Test("10 000 samples arrive exactly, in order, with consecutive indices and a sample counter")
    func exactStream() async throws {
        let configuration = VirtualSensorConfiguration(seed: 11, pacing: .asFastAsPossible, serverMTU: 65)
        let link = try await SensorLink.connect(configuration, clock: ContinuousClock())
        #expect(link.mtu == 65)
        #expect(link.client.mtu == 65)
        let received = await Self.receive(link, limit: 10_000)
        #expect(received.endError == nil)

        // (65 − 5) / 6 = 10 samples a notification: 1000 notifications.
        #expect(received.samples.count == 10_000)
        #expect(received.notificationsReceived == 1000)
        #expect(received.samples.map(\.index) == Array(0..<10_000))
        #expect(Self.expectExact(received, truth: link.truth.notifications) == 10_000)
        #expect(received.samples.first?.raw == RampSource.sample(0))
        #expect(received.samples.last?.raw == RampSource.sample(9_999))
        #expect(received.decoder.counterMode == .sampleCounter)
        let statistics = received.decoder.statistics
        #expect(statistics.samplesReceived == 10_000)
        #expect(statistics.lostSamples == 0)
        #expect(statistics.gaps == 0)
        #expect(statistics.malformedNotifications == 0)
        #expect(statistics.duplicateNotifications == 0)
        #expect(statistics.resyncs == 0)
        #expect(link.client.malformedPDUCount == 0)

        // Switching notifications off stops the stream, and closing ends both sides cleanly.
        try await link.client.disableNotifications(for: link.accelerometer)
        #expect(await link.sensor.isStreaming == false)
        await link.client.close()
        try await link.sensorTask.value
        #expect(await link.sensor.statistics.notificationsDropped == 0)
    }

    @Test("dropped notifications show as gaps of exactly their samples; every other sample is exact")
    func drops() async throws {
        let faults = VirtualSensorConfiguration.Faults(dropFraction: 0.05, disconnectAfterSamples: 10_000)
        let configuration = VirtualSensorConfiguration(
            seed: 2024, faults: faults, pacing: .asFastAsPossible, serverMTU: 65)
        let link = try await SensorLink.connect(configuration, clock: ContinuousClock())
        let received = await Self.receive(link)
        Self.expectDisconnected(received.endError)
        try await link.sensorTask.value
        await link.client.close()

        let truth = link.truth.notifications
        let sensorStatistics = await link.sensor.statistics
        #expect(sensorStatistics.samplesGenerated == 10_000)
        #expect(truth.count == 1000)
        #expect((20...100).contains(sensorStatistics.notificationsDropped), "5 % of 1000 notifications")
        let droppedSamples = truth.filter { $0.fate == .dropped }.reduce(0) { $0 + $1.samples.count }
        #expect(droppedSamples == 10 * sensorStatistics.notificationsDropped)
        #expect(received.samples.count == 10_000 - droppedSamples)
        #expect(received.notificationsReceived == sensorStatistics.notificationsSent)

        let missing = Self.missingBetweenDelivered(truth, decidedAt: received.decidedAt)
        #expect(missing.samples > 0)
        let statistics = received.decoder.statistics
        #expect(received.decoder.counterMode == .sampleCounter)
        #expect(statistics.lostSamples == missing.samples)
        #expect(statistics.gaps == missing.gaps)
        #expect(statistics.samplesReceived == received.samples.count)
        #expect(statistics.malformedNotifications == 0)
        #expect(statistics.resyncs == 0)
        // The index skips exactly the lost samples: the span of indices is what was received plus lost.
        let span = Int((received.samples.last?.index ?? 0) - (received.samples.first?.index ?? 0)) + 1
        #expect(span == received.samples.count + statistics.lostSamples)
        // Indices are checked from the notification that decided the counter mode on (a few).
        #expect(received.samplesBeforeDecision <= 100)
        #expect(Self.expectExact(received, truth: truth) == received.samples.count)
    }

    @Test("malformed notifications are counted by the decoder exactly as the sensor sent them")
    func malformed() async throws {
        let faults = VirtualSensorConfiguration.Faults(malformedFraction: 0.1, disconnectAfterSamples: 3000)
        let configuration = VirtualSensorConfiguration(
            seed: 77, faults: faults, pacing: .asFastAsPossible, serverMTU: 65)
        let link = try await SensorLink.connect(configuration, clock: ContinuousClock())
        let received = await Self.receive(link)
        Self.expectDisconnected(received.endError)
        try await link.sensorTask.value
        await link.client.close()

        let truth = link.truth.notifications
        let sensorStatistics = await link.sensor.statistics
        #expect(sensorStatistics.notificationsMalformed > 0)
        #expect(truth.filter { $0.fate == .malformed }.count == sensorStatistics.notificationsMalformed)
        let statistics = received.decoder.statistics
        #expect(statistics.malformedNotifications == sensorStatistics.notificationsMalformed)
        #expect(statistics.notifications == sensorStatistics.notificationsSent)
        // The ATT layer is intact: only the SDU payload length is wrong.
        #expect(link.client.malformedPDUCount == 0)
        let malformedOutcomes = received.outcomes.filter {
            if case .malformed = $0.event { true } else { false }
        }
        #expect(malformedOutcomes.count == sensorStatistics.notificationsMalformed)
        #expect(malformedOutcomes.allSatisfy { $0.sampleCount == 0 && $0.firstIndex == nil })
        // To the counter, a malformed notification is a gap of its samples.
        let missing = Self.missingBetweenDelivered(truth, decidedAt: received.decidedAt)
        #expect(statistics.lostSamples == missing.samples)
        #expect(statistics.gaps == missing.gaps)
        #expect(received.decoder.counterMode == .sampleCounter)
        #expect(Self.expectExact(received, truth: truth) == 3000 - 10 * sensorStatistics.notificationsMalformed)
    }

    @Test("the disconnect fault ends the notification stream with .disconnected after exactly N samples")
    func disconnectAfterSamples() async throws {
        // At MTU 23 a notification carries 3 samples; 1001 = 333 × 3 + 2 ends on a short one.
        let faults = VirtualSensorConfiguration.Faults(disconnectAfterSamples: 1001)
        let configuration = VirtualSensorConfiguration(seed: 3, faults: faults, pacing: .asFastAsPossible)
        let link = try await SensorLink.connect(configuration, clock: ContinuousClock())
        #expect(link.mtu == 23)
        let received = await Self.receive(link)
        Self.expectDisconnected(received.endError)
        #expect(link.client.closedBecause?.code == .disconnected)
        try await link.sensorTask.value

        #expect(received.samples.count == 1001)
        #expect(received.notificationsReceived == 334)
        #expect(received.outcomes.last?.sampleCount == 2)
        #expect(received.samples.map(\.index) == Array(0..<1001))
        #expect(Self.expectExact(received, truth: link.truth.notifications) == 1001)
        #expect(await link.sensor.statistics.samplesGenerated == 1001)
        // Every later request fails at once: the link is gone.
        await #expect(throws: GATTError.self) { try await link.client.disableNotifications(for: link.accelerometer) }
        await link.client.close()
    }

    @Test("a header counting notifications is detected as a packet counter", arguments: [0.0, 0.05])
    func packetCounter(dropFraction: Double) async throws {
        let faults = VirtualSensorConfiguration.Faults(dropFraction: dropFraction, disconnectAfterSamples: 3000)
        let configuration = VirtualSensorConfiguration(
            seed: 9, headerMode: .packetCounter, faults: faults, pacing: .asFastAsPossible, serverMTU: 65)
        let link = try await SensorLink.connect(configuration, clock: ContinuousClock())
        let received = await Self.receive(link)
        Self.expectDisconnected(received.endError)
        try await link.sensorTask.value
        await link.client.close()

        let truth = link.truth.notifications
        // Headers count notifications: +1 from each to the next, dropped ones included.
        #expect(zip(truth, truth.dropFirst()).allSatisfy { $1.header == $0.header &+ 1 })
        #expect(received.decoder.counterMode == .packetCounter)
        let missing = Self.missingBetweenDelivered(truth, decidedAt: received.decidedAt)
        #expect(received.decoder.statistics.lostSamples == missing.samples)
        #expect(received.decoder.statistics.gaps == missing.gaps)
        if dropFraction == 0 {
            #expect(missing.samples == 0)
            #expect(received.samples.map(\.index) == Array(0..<3000))
        } else {
            #expect(missing.samples > 0)
        }
        Self.expectExact(received, truth: truth)
    }

    @Test("real-time pacing on a manual clock: one notification per 30 ms, stamped with the manual clock")
    func realTimePacing() async throws {
        let clock = ManualClock()
        let configuration = VirtualSensorConfiguration(seed: 5, sampleRate: 100, pacing: .realTime)
        let link = try await SensorLink.connect(configuration, clock: clock)
        #expect(link.mtu == 23)
        var notifications = link.collector.notifications.makeAsyncIterator()
        var decoder = SDUStreamDecoder()
        var samples: [IndexedSample] = []
        func decode(_ notification: GATTClient<ManualClock>.Notification) {
            _ = decoder.decode(
                notification: notification.value, arrivalTime: notification.receivedAt.offset.inSeconds, into: &samples)
        }

        // Streaming started at t = 0; notification n (3 samples) is due when its last sample is
        // taken, at (n + 1) × 30 ms, and not a moment earlier.
        for n in 1...10 {
            let due = ManualClock.Instant(offset: .milliseconds(30 * n))
            try await clock.waitForSleepers(count: 1)
            #expect(clock.sleeperDeadlines.first == due)
            #expect(link.client.statistics.notificationsReceived == n - 1)
            clock.advance(by: .milliseconds(29))
            #expect(clock.sleeperDeadlines.first == due, "still asleep 1 ms before the deadline")
            clock.advance(by: .milliseconds(1))
            let notification = try #require(try await notifications.next())
            #expect(notification.receivedAt == due)
            decode(notification)
        }
        #expect(samples.count == 30)

        // A late step releases every notification that fell due, then the sensor waits again.
        clock.advance(to: ManualClock.Instant(offset: .milliseconds(400)))
        for _ in 0..<3 {
            let notification = try #require(try await notifications.next())
            #expect(notification.receivedAt == ManualClock.Instant(offset: .milliseconds(400)))
            decode(notification)
        }
        try await clock.waitForSleepers(count: 1)
        #expect(clock.sleeperDeadlines.first == ManualClock.Instant(offset: .milliseconds(420)))
        #expect(link.client.statistics.notificationsReceived == 13)
        #expect(await link.sensor.statistics.samplesGenerated == 39)

        // Samples are exact, and their recovered times follow the sensor's schedule (sample i is
        // taken at (i + 1) × 10 ms), also for the three that arrived late.
        #expect(samples.map(\.raw) == (0..<39).map(RampSource.sample))
        #expect(samples.map(\.index) == Array(0..<39))
        let timing = zip(samples, 0...).map { abs($0.t - Double($1 + 1) / 100) }
        #expect(timing.allSatisfy { $0 < 1e-9 }, "recovered times off by up to \(timing.max() ?? 0) s")
        #expect(decoder.statistics.lostSamples == 0)

        await link.client.close()
        try await link.sensorTask.value
    }
}
