// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import GatewayTesting
import NIOConcurrencyHelpers
import SDUSensor
import SeededRandomness
import Testing
import VirtualSensor

/// A source whose n-th sample is (n, −n, 7n), truncated to Int16: every sample is recognisable.
struct CountingSource: AccelerationSource {
    var index = 0

    static func sample(_ index: Int) -> RawAcceleration {
        RawAcceleration(
            x: Int16(truncatingIfNeeded: index), y: Int16(truncatingIfNeeded: -index),
            z: Int16(truncatingIfNeeded: index &* 7))
    }

    mutating func nextSample() -> RawAcceleration {
        defer { index += 1 }
        return Self.sample(index)
    }
}

/// Collects the sensor's ground truth from its `onNotification` callback.
final class NotificationLog: Sendable {
    private let entries = NIOLockedValueBox<[VirtualSensorNotification]>([])

    func append(_ notification: VirtualSensorNotification) {
        entries.withLockedValue { $0.append(notification) }
    }

    var all: [VirtualSensorNotification] { entries.withLockedValue { $0 } }
}

/// A minimal GATT client speaking raw PDUs: enough to enable the stream and read it.
struct RawClient {
    struct LinkClosed: Error {}

    let bearer: LoopbackATTBearer
    /// What the sensor sent, read at the test's pace.
    let pdus: AsyncThrowingStream<[UInt8], any Error>
    /// Notification values received so far, in order.
    var notifications: [[UInt8]] = []

    init(bearer: LoopbackATTBearer) {
        self.bearer = bearer
        pdus = bearer.receivedPDUs()
    }

    /// Sends `request` and returns the response, keeping notifications that arrive before it.
    mutating func request(_ request: String) async throws -> [UInt8] {
        try await bearer.send([UInt8](hex: request))
        while let pdu = try await pdus.next() {
            if pdu.first == 0x1B {
                notifications.append(try Self.value(of: pdu))
                continue
            }
            return pdu
        }
        throw LinkClosed()
    }

    /// Waits for the next notification; nil once the link is closed.
    mutating func nextNotification() async throws -> [UInt8]? {
        guard let pdu = try await pdus.next() else { return nil }
        let value = try Self.value(of: pdu)
        notifications.append(value)
        return value
    }

    /// Reads notifications until the link closes.
    mutating func drain() async throws {
        while try await nextNotification() != nil {}
    }

    /// The value of an accelerometer notification (handle 0x0015).
    static func value(of pdu: [UInt8]) throws -> [UInt8] {
        let notification = try ATTHandleValueNotification(parsing: pdu)
        #expect(notification.handle == 0x15)
        return notification.value
    }

    static func header(_ value: [UInt8]) -> UInt16 { UInt16(value[0]) | UInt16(value[1]) << 8 }

    static func samples(_ value: [UInt8]) -> [RawAcceleration] {
        stride(from: 2, to: value.count - 5, by: 6).map { offset in
            func int16(_ at: Int) -> Int16 { Int16(bitPattern: UInt16(value[at]) | UInt16(value[at + 1]) << 8) }
            return RawAcceleration(x: int16(offset), y: int16(offset + 2), z: int16(offset + 4))
        }
    }
}

@Suite("Virtual sensor over a loopback link")
struct VirtualSensorTests {
    typealias Sensor = VirtualSensor<ContinuousClock>

    /// Starts `sensor` on one end of a loopback pair; returns the client and the server task.
    static func connect(_ sensor: Sensor) -> (RawClient, Task<Void, any Error>) {
        let (client, server) = LoopbackATTBearer.pair()
        let task = Task { try await sensor.run(on: server) }
        return (RawClient(bearer: client), task)
    }

    static func fast(
        seed: UInt64 = 1, headerMode: VirtualSensorConfiguration.HeaderMode = .sampleCounter,
        initialCounter: UInt16 = 0, faults: VirtualSensorConfiguration.Faults
    ) -> VirtualSensorConfiguration {
        VirtualSensorConfiguration(
            seed: seed, headerMode: headerMode, initialCounter: initialCounter, faults: faults,
            pacing: .asFastAsPossible)
    }

    @Test("discovery and reads work over the link: it is a GATT server, not a byte pump")
    func servesGATT() async throws {
        let configuration = VirtualSensorConfiguration(seed: 3, name: "BC05FC978B7510AB", pacing: .asFastAsPossible)
        let sensor = try Sensor(configuration: configuration, source: CountingSource())
        let (client0, task) = Self.connect(sensor)
        var client = client0
        #expect(try await client.request("02 f700").hexString == "031700")
        #expect(
            try await client.request("06 0100 ffff 0028 1bc5d5a5020048b1e311318f1000c7a2").hexString == "0713001600")
        #expect(try await client.request("0a 0300") == [0x0B] + Array("BC05FC978B7510AB".utf8))
        #expect(try await client.request("0e 0300 0500").hexString == "010e000006")
        #expect(await sensor.statistics.samplesGenerated == 0)
        #expect(client.notifications.isEmpty)
        await client.bearer.close()
        try await task.value
    }

    @Test("sample-counter header advances by k = 3 and wraps at 65536; samples arrive intact")
    func sampleCounter() async throws {
        let log = NotificationLog()
        let configuration = Self.fast(
            initialCounter: 65530, faults: .init(disconnectAfterSamples: 300))
        let sensor = try Sensor(configuration: configuration, source: CountingSource(), onNotification: log.append)
        let (client0, task) = Self.connect(sensor)
        var client = client0
        #expect(try await client.request("12 1600 0100") == [0x13])
        try await client.drain()
        try await task.value

        #expect(client.notifications.count == 100)
        for (index, value) in client.notifications.enumerated() {
            #expect(value.count == 20)
            #expect(RawClient.header(value) == UInt16(truncatingIfNeeded: 65530 + 3 * index))
            #expect(RawClient.samples(value) == (3 * index..<3 * index + 3).map(CountingSource.sample))
        }
        #expect(RawClient.header(client.notifications[2]) == 0)
        #expect(log.all.map(\.payload) == client.notifications)
        let statistics = await sensor.statistics
        #expect(statistics.notificationsSent == 100)
        #expect(statistics.samplesGenerated == 300)
    }

    @Test("packet-counter header advances by 1 per notification and wraps at 65536")
    func packetCounter() async throws {
        let configuration = Self.fast(
            headerMode: .packetCounter, initialCounter: 65534, faults: .init(disconnectAfterSamples: 30))
        let sensor = try Sensor(configuration: configuration, source: CountingSource())
        let (client0, task) = Self.connect(sensor)
        var client = client0
        _ = try await client.request("12 1600 0100")
        try await client.drain()
        try await task.value
        #expect(client.notifications.map(RawClient.header) == (0..<10).map { UInt16(truncatingIfNeeded: 65534 + $0) })
    }

    @Test("constant and random header modes carry no counter")
    func headerlessModes() async throws {
        for mode in [VirtualSensorConfiguration.HeaderMode.constant(0), .random] {
            let configuration = Self.fast(headerMode: mode, faults: .init(disconnectAfterSamples: 300))
            let sensor = try Sensor(configuration: configuration, source: CountingSource())
            let (client0, task) = Self.connect(sensor)
            var client = client0
            _ = try await client.request("12 1600 0100")
            try await client.drain()
            try await task.value
            let headers = client.notifications.map(RawClient.header)
            #expect(headers.count == 100)
            if mode == .constant(0) {
                #expect(headers.allSatisfy { $0 == 0 })
            } else {
                #expect(Set(headers).count > 90)
            }
        }
    }

    @Test("dropping 10 % with a seed: the counter gaps account exactly for the dropped notifications")
    func drops() async throws {
        let log = NotificationLog()
        let initial: UInt16 = 40000
        let configuration = Self.fast(
            seed: 42, initialCounter: initial, faults: .init(dropFraction: 0.1, disconnectAfterSamples: 30000))
        let sensor = try Sensor(configuration: configuration, source: CountingSource(), onNotification: log.append)
        let (client0, task) = Self.connect(sensor)
        var client = client0
        _ = try await client.request("12 1600 0100")
        try await client.drain()
        try await task.value

        let statistics = await sensor.statistics
        #expect(statistics.notificationsDropped + client.notifications.count == 10000)
        #expect(statistics.notificationsSent == client.notifications.count)
        #expect((700...1300).contains(statistics.notificationsDropped))

        // Count the dropped notifications from the header alone, as a receiver would.
        var expected = initial
        var dropsSeen = 0
        for value in client.notifications {
            let header = RawClient.header(value)
            let gap = Int(header &- expected)
            #expect(gap % 3 == 0)
            dropsSeen += gap / 3
            // The samples after a gap are the ones after the dropped samples.
            let first = Int(header &- initial)
            #expect(RawClient.samples(value) == (first..<first + 3).map(CountingSource.sample))
            expected = header &+ 3
        }
        dropsSeen += Int((initial &+ UInt16(truncatingIfNeeded: 30000)) &- expected) / 3
        #expect(dropsSeen == statistics.notificationsDropped)
        #expect(log.all.filter { $0.fate == .dropped }.count == statistics.notificationsDropped)
        #expect(log.all.filter { $0.fate != .dropped }.map(\.payload) == client.notifications)

        // The same seed drops the same notifications.
        var replay = NotificationGenerator(configuration: configuration)
        var source = CountingSource()
        var replayed: [VirtualSensorNotification] = []
        while let next = replay.next(carrying: 3, from: &source) { replayed.append(next) }
        #expect(replayed == log.all)
    }

    @Test("the malformed knob sends wrong-length payloads, counted and recorded")
    func malformed() async throws {
        let log = NotificationLog()
        let configuration = Self.fast(faults: .init(malformedFraction: 0.2, disconnectAfterSamples: 3000))
        let sensor = try Sensor(configuration: configuration, source: CountingSource(), onNotification: log.append)
        let (client0, task) = Self.connect(sensor)
        var client = client0
        _ = try await client.request("12 1600 0100")
        try await client.drain()
        try await task.value

        let statistics = await sensor.statistics
        let wrongLength = client.notifications.filter { ($0.count - 2) % 6 != 0 }
        #expect(client.notifications.count == 1000)
        #expect(wrongLength.count == statistics.notificationsMalformed)
        #expect((120...280).contains(wrongLength.count))
        #expect(wrongLength.allSatisfy { (15...19).contains($0.count) })
        #expect(client.notifications.filter { $0.count == 20 }.count == 1000 - wrongLength.count)
        #expect(log.all.filter { $0.fate == .malformed }.map(\.payload) == wrongLength)
    }

    @Test("counter jumps skip ahead (or back) without sending", arguments: [100, -50])
    func counterJumps(jump: Int) async throws {
        let log = NotificationLog()
        let configuration = Self.fast(
            faults: .init(counterJumpFraction: 0.05, counterJump: jump, disconnectAfterSamples: 3000))
        let sensor = try Sensor(configuration: configuration, source: CountingSource(), onNotification: log.append)
        let (client0, task) = Self.connect(sensor)
        var client = client0
        _ = try await client.request("12 1600 0100")
        try await client.drain()
        try await task.value

        let statistics = await sensor.statistics
        #expect(client.notifications.count == 1000)
        var expected: UInt16 = 0
        var jumps = 0
        for (index, value) in client.notifications.enumerated() {
            let header = RawClient.header(value)
            if header != expected {
                #expect(header == expected &+ UInt16(truncatingIfNeeded: jump))
                jumps += 1
            }
            // A jump changes only the header: no sample is lost.
            #expect(RawClient.samples(value) == (3 * index..<3 * index + 3).map(CountingSource.sample))
            expected = header &+ 3
        }
        #expect(jumps == statistics.counterJumps)
        #expect(jumps > 20)
        #expect(log.all.filter { $0.counterJump != 0 }.count == jumps)
    }

    @Test("disconnect after N samples closes the link after exactly N samples")
    func disconnectAfterSamples() async throws {
        let configuration = Self.fast(faults: .init(disconnectAfterSamples: 100))
        let sensor = try Sensor(configuration: configuration, source: CountingSource())
        let (client0, task) = Self.connect(sensor)
        var client = client0
        _ = try await client.request("12 1600 0100")
        try await client.drain()
        try await task.value
        let samples = client.notifications.flatMap(RawClient.samples)
        #expect(samples == (0..<100).map(CountingSource.sample))
        #expect(client.notifications.last?.count == 8)
        #expect(try await client.pdus.next() == nil)
        await #expect(throws: (any Error).self) { try await client.bearer.send([0x0A, 0x03, 0x00]) }
        #expect(await sensor.statistics.samplesGenerated == 100)
    }

    @Test("disabling the CCCD stops the stream; enabling it resumes where the counter left off")
    func disableStops() async throws {
        let sensor = try Sensor(configuration: Self.fast(faults: .none), source: CountingSource())
        let (client0, task) = Self.connect(sensor)
        var client = client0
        #expect(try await client.request("12 1600 0100") == [0x13])
        for _ in 0..<50 { _ = try await client.nextNotification() }
        #expect(await sensor.isStreaming)
        #expect(try await client.request("12 1600 0000") == [0x13])
        #expect(await !sensor.isStreaming)
        let received = client.notifications.count
        let generated = await sensor.statistics.samplesGenerated
        #expect(generated == 3 * received)
        // Nothing follows the Write Response: the next PDU is the next response.
        for _ in 0..<20 {
            #expect(try await client.request("0a 1600").hexString == "0b0000")
            await Task.yield()
        }
        #expect(client.notifications.count == received)
        #expect(await sensor.statistics.samplesGenerated == generated)

        #expect(try await client.request("12 1600 0100") == [0x13])
        for _ in 0..<10 { _ = try await client.nextNotification() }
        let headers = client.notifications.map(RawClient.header)
        #expect(headers.count >= received + 10)
        #expect(zip(headers, headers.dropFirst()).allSatisfy { $1 == $0 &+ 3 })
        await client.bearer.close()
        try await task.value
    }

    @Test("a larger MTU packs more samples into each notification")
    func largerMTU() async throws {
        var configuration = Self.fast(faults: .init(disconnectAfterSamples: 400))
        configuration.serverMTU = 247
        let sensor = try Sensor(configuration: configuration, source: CountingSource())
        let (client0, task) = Self.connect(sensor)
        var client = client0
        #expect(try await client.request("02 0001").hexString == "03f700")
        _ = try await client.request("12 1600 0100")
        try await client.drain()
        try await task.value
        #expect(client.notifications.map(\.count) == Array(repeating: 2 + 6 * 40, count: 10))
        #expect(client.notifications.flatMap(RawClient.samples) == (0..<400).map(CountingSource.sample))
    }

    @Test("a sensor serves one connection at a time")
    func oneConnection() async throws {
        let sensor = try Sensor(configuration: Self.fast(faults: .none), source: CountingSource())
        let (client0, task) = Self.connect(sensor)
        var client = client0
        _ = try await client.request("0a 0300")
        let (_, other) = LoopbackATTBearer.pair()
        await #expect(throws: VirtualSensorError.self) { try await sensor.run(on: other) }
        await client.bearer.close()
        try await task.value
    }
}

@Suite("Virtual sensor configuration")
struct VirtualSensorConfigurationTests {
    @Test("defaults derive from the seed: a random static address, a BC05 name, reproducibly")
    func defaults() throws {
        let a = VirtualSensorConfiguration(seed: 9)
        let b = VirtualSensorConfiguration(seed: 9)
        let c = VirtualSensorConfiguration(seed: 10)
        #expect(a == b)
        #expect(a.address != c.address)
        #expect(a.address.randomSubtype == .staticAddress)
        #expect(SDUProfile.isSensorName(a.name))
        #expect(a.name == "BC05" + String(a.address.description.filter { $0 != ":" }))
        #expect(a.sampleRate == 100)
        #expect(a.headerMode == .sampleCounter)
        try a.validate()
    }

    @Test("random static addresses have the top bits set and are never all ones or zeros")
    func randomStatic() {
        var generator = SplitMix64(seed: 1)
        for _ in 0..<1000 {
            let address = BluetoothAddress.randomStatic(using: &generator)
            #expect(address.octets[0] >> 6 == 0b11)
            #expect(address.kind == .random)
        }
    }

    @Test(
        "out-of-range settings are rejected with the right code",
        arguments: [
            (VirtualSensorConfiguration(sampleRate: 24), VirtualSensorError.Code.invalidSampleRate),
            (VirtualSensorConfiguration(sampleRate: 401), .invalidSampleRate),
            (VirtualSensorConfiguration(samplesPerNotification: 4), .invalidSamplesPerNotification),
            (VirtualSensorConfiguration(samplesPerNotification: 0), .invalidSamplesPerNotification),
            (VirtualSensorConfiguration(serverMTU: 22), .invalidMTU),
            (VirtualSensorConfiguration(faults: .init(dropFraction: 1.5)), .invalidFault),
            (VirtualSensorConfiguration(faults: .init(malformedFraction: .nan)), .invalidFault),
            (VirtualSensorConfiguration(faults: .init(disconnectAfterSamples: 0)), .invalidFault),
            (VirtualSensorConfiguration(name: ""), .invalidName),
        ])
    func rejects(configuration: VirtualSensorConfiguration, code: VirtualSensorError.Code) {
        #expect {
            try configuration.validate()
        } throws: { error in
            (error as? VirtualSensorError)?.code == code
        }
        #expect(throws: VirtualSensorError.self) {
            _ = try VirtualSensor(configuration: configuration, source: CountingSource())
        }
    }

    @Test("accepted edges: 25 and 400 Hz, 3 samples at MTU 23, 40 at MTU 247")
    func accepts() throws {
        try VirtualSensorConfiguration(sampleRate: 25).validate()
        try VirtualSensorConfiguration(sampleRate: 400).validate()
        try VirtualSensorConfiguration(samplesPerNotification: 3).validate()
        try VirtualSensorConfiguration(samplesPerNotification: 40, serverMTU: 247).validate()
    }
}
