// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import Logging
import SDUSensor

/// An emulated SDU sensor: a real GATT server on an `ATTBearer` that streams accelerometer
/// notifications once a client enables them.
///
/// `run(on:)` answers discovery, reads and writes from the SDU attribute table
/// (`GATTDatabase.sduSensor(_:)`) through the pure `GATTServer`. When the client writes 0x0001 to
/// the accelerometer's CCCD the sensor pulls k samples from its motion source every k / rate
/// seconds (against absolute deadlines on `clock`, so the stream does not drift) and sends them
/// as one notification, applying the configured faults; writing 0x0000 stops the stream, and
/// enabling it again resumes it with the counter where it left off.
///
/// Every notification produced, sent or not, is reported to `onNotification` as ground truth.
public actor VirtualSensor<C: Clock> where C.Duration == Duration {
    /// The sensor's configuration.
    public nonisolated let configuration: VirtualSensorConfiguration
    /// The attribute table each connection starts from.
    public nonisolated let database: GATTDatabase
    /// The handle of the accelerometer characteristic's value.
    public nonisolated let accelerometerHandle: UInt16

    private let clock: C
    private var source: any AccelerationSource
    private var generator: NotificationGenerator
    private let onNotification: (@Sendable (VirtualSensorNotification) -> Void)?
    private let logger: Logger

    private var server: GATTServer
    private var running = false
    private var streaming = false
    private var epoch = 0
    private var schedule: NotificationSchedule<C.Instant>?
    private var scheduledSamples = 0
    /// When the stream last stopped (link closed or notifications off), for `samplesWhileIdle`.
    private var idleSince: C.Instant?
    private var wakeup: AsyncStream<Void>.Continuation?
    private var sendGateHeld = false
    private var sendGateWaiters: [CheckedContinuation<Void, Never>] = []

    /// A sensor as `configuration` describes, streaming what `source` produces, timed by `clock`.
    ///
    /// Throws when the configuration is out of range (see `VirtualSensorConfiguration.validate()`).
    public init(
        configuration: VirtualSensorConfiguration,
        source: some AccelerationSource,
        clock: C,
        logger: Logger = Logger(label: "sportsensord.virtual-sensor"),
        onNotification: (@Sendable (VirtualSensorNotification) -> Void)? = nil
    ) throws(VirtualSensorError) {
        try configuration.validate()
        let database = GATTDatabase.sduSensor(configuration)
        guard let handle = database.sduAccelerometerValueHandle else {
            preconditionFailure("the SDU attribute table always has the accelerometer characteristic")
        }
        self.configuration = configuration
        self.database = database
        self.accelerometerHandle = handle
        self.clock = clock
        self.source = source
        self.generator = NotificationGenerator(configuration: configuration)
        self.onNotification = onNotification
        var logger = logger
        logger[metadataKey: "ble.address"] = "\(configuration.address)"
        self.logger = logger
        self.server = GATTServer(database: database, serverMTU: Int(configuration.serverMTU))
    }

    /// What the sensor has produced so far, over all connections.
    public var statistics: VirtualSensorStatistics { generator.statistics }

    /// True while the client has notifications enabled on the current connection.
    public var isStreaming: Bool { streaming }

    /// The current connection's ATT_MTU.
    public var mtu: Int { server.mtu }

    /// Serves one connection on `bearer` until the link closes: answers the client's requests
    /// and streams while notifications are enabled. Each connection starts with a fresh server
    /// state (MTU 23, CCCDs off); the sample counter and the motion source carry on.
    ///
    /// Returns when either side closes the link, including the disconnect fault, which closes
    /// it. Throws when receiving fails, when cancelled, and when another `run` is in progress.
    public func run(on bearer: any ATTBearer) async throws {
        guard !running else {
            throw VirtualSensorError(
                .alreadyRunning, "this virtual sensor already serves a connection: create one sensor per link")
        }
        running = true
        server = GATTServer(database: database, serverMTU: Int(configuration.serverMTU))
        streaming = false
        let (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakeup = continuation
        logger.debug("virtual sensor connected", metadata: ["sensor.name": "\(configuration.name)"])
        defer {
            running = false
            if streaming { idleSince = unsentSince() }
            streaming = false
            wakeup = nil
            continuation.finish()
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.serve(bearer) }
                group.addTask { await self.stream(on: bearer, wakeups: wakeups) }
                try await group.next()
                group.cancelAll()
                try await group.waitForAll()
            }
        } catch {
            await bearer.close()
            throw error
        }
        await bearer.close()
        logger.debug(
            "virtual sensor disconnected", metadata: ["sensor.samples": "\(generator.statistics.samplesGenerated)"])
        try Task.checkCancellation()
    }

    // MARK: Requests

    private func serve(_ bearer: any ATTBearer) async throws {
        do {
            for try await pdu in bearer.receivedPDUs() {
                let actions = server.handle(pdu)
                // State changes first, so no notification produced after a CCCD write of 0x0000
                // can follow its Write Response.
                for action in actions {
                    switch action {
                    case .configurationChanged(let valueHandle, let notify, _) where valueHandle == accelerometerHandle:
                        setStreaming(notify)
                    case .mtuChanged(let mtu):
                        logger.debug("ATT MTU exchanged", metadata: ["att.mtu": "\(mtu)"])
                    default:
                        break
                    }
                }
                for case .send(let bytes) in actions {
                    guard await sendInOrder(bytes, on: bearer) else { return }
                }
            }
        } catch is CancellationError {
            return
        }
    }

    private func setStreaming(_ on: Bool) {
        if on, !streaming {
            streaming = true
            epoch += 1
            skipIdleSamples()
            schedule = NotificationSchedule(start: clock.now, sampleRate: configuration.sampleRate)
            scheduledSamples = 0
            wakeup?.yield()
            logger.debug("notifications enabled")
        } else if !on, streaming {
            streaming = false
            idleSince = unsentSince()
            logger.debug("notifications disabled")
        }
    }

    /// When the stream stops, the instant its last sent sample was taken: a sensor that woke late
    /// for its schedule has taken the samples due since, and they go unsent with the stream, so the
    /// next stream's first index tells the time away (not that less the late wake-up).
    private func unsentSince() -> C.Instant {
        let now = clock.now
        guard configuration.pacing == .realTime, let schedule else { return now }
        return min(schedule.instant(afterSamples: scheduledSamples), now)
    }

    /// With `samplesWhileIdle`, lets the samples taken since the stream stopped pass unsent.
    private func skipIdleSamples() {
        guard configuration.samplesWhileIdle, let since = idleSince else { return }
        idleSince = nil
        let idle = since.duration(to: clock.now).inSeconds
        guard idle > 0 else { return }
        let passed = generator.skip(
            samples: Int((idle * Double(configuration.sampleRate)).rounded()),
            carrying: configuration.samplesPerNotification(mtu: server.mtu), from: &source)
        logger.debug(
            "samples taken while idle, never sent",
            metadata: ["sensor.unsent": "\(passed)", "sensor.idle_s": "\(idle)"])
    }

    // MARK: Streaming

    private func stream(on bearer: any ATTBearer, wakeups: AsyncStream<Void>) async {
        var iterator = wakeups.makeAsyncIterator()
        do {
            while !Task.isCancelled {
                if generator.isExhausted {
                    logger.info(
                        "disconnect fault: closing the link",
                        metadata: ["sensor.samples": "\(generator.statistics.samplesGenerated)"])
                    await bearer.close()
                    return
                }
                guard streaming else {
                    guard await iterator.next() != nil else { return }
                    continue
                }
                let streamEpoch = epoch
                let count = configuration.samplesPerNotification(mtu: server.mtu)
                if configuration.pacing == .realTime, let schedule {
                    let deadline = schedule.deadline(afterSamples: scheduledSamples, carrying: count)
                    try await clock.sleep(until: deadline, tolerance: nil)
                } else {
                    await Task.yield()
                }
                await acquireSendGate()
                guard !Task.isCancelled, streaming, epoch == streamEpoch, let pdu = produceNotification(carrying: count)
                else {
                    releaseSendGate()
                    continue
                }
                defer { releaseSendGate() }
                do {
                    try await bearer.send(pdu)
                } catch {
                    logger.debug("link gone while notifying", metadata: ["error": "\(error)"])
                    return
                }
            }
        } catch {
            // Only the clock's sleep throws, and only when cancelled: the connection is over.
            return
        }
    }

    /// Pulls the next notification's samples and returns the PDU to send, or nil when the drop
    /// fault withholds it.
    private func produceNotification(carrying count: Int) -> [UInt8]? {
        guard let notification = generator.next(carrying: count, from: &source) else { return nil }
        scheduledSamples += notification.samples.count
        onNotification?(notification)
        guard notification.fate != .dropped else { return nil }
        return server.notification(valueHandle: accelerometerHandle, value: notification.payload)
    }

    // MARK: Ordered sending

    /// Sends `pdu` after every PDU whose send began earlier; false when the link is gone.
    private func sendInOrder(_ pdu: [UInt8], on bearer: any ATTBearer) async -> Bool {
        await acquireSendGate()
        defer { releaseSendGate() }
        do {
            try await bearer.send(pdu)
            return true
        } catch {
            logger.debug("link gone while responding", metadata: ["error": "\(error)"])
            return false
        }
    }

    private func acquireSendGate() async {
        guard sendGateHeld else {
            sendGateHeld = true
            return
        }
        await withCheckedContinuation { sendGateWaiters.append($0) }
    }

    private func releaseSendGate() {
        if sendGateWaiters.isEmpty {
            sendGateHeld = false
        } else {
            sendGateWaiters.removeFirst().resume()
        }
    }
}

extension VirtualSensor where C == ContinuousClock {
    /// A sensor timed by the system's continuous clock.
    public init(
        configuration: VirtualSensorConfiguration,
        source: some AccelerationSource,
        logger: Logger = Logger(label: "sportsensord.virtual-sensor"),
        onNotification: (@Sendable (VirtualSensorNotification) -> Void)? = nil
    ) throws(VirtualSensorError) {
        try self.init(
            configuration: configuration, source: source, clock: ContinuousClock(), logger: logger,
            onNotification: onNotification)
    }
}
