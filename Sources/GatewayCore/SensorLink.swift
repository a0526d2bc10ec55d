// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import Logging
import SDUSensor
import Synchronization

/// Owns one paired sensor: connects through the injected `SensorConnector`, sets up GATT, turns
/// notifications into samples with one decoder that lives as long as the link, watches for
/// silence, reconnects with backoff, and publishes everything on `events`.
///
/// The rules are in pure structs — `SensorLinkStateMachine` (phases and what to do on each
/// event), `ReconnectBackoff` (when to retry), `LinkWatchdog` (when silence means dead),
/// `SensorSampleGate` (no sample twice) — and this actor only performs their actions: open and
/// close bearers, run the GATT client, sleep on `clock`.
///
/// ```swift
/// let link = SensorLink(address: address, connector: connector, clock: ContinuousClock(), logger: logger)
/// async let running: Void = link.run()
/// for await event in link.events {
///     switch event {
///     case .samples(let batch): recorder.append(batch)
///     case .state(let state): logger.info("link \(state)")
///     }
/// }
/// ```
///
/// `run()` returns when the link gave up or was stopped (`stop()`, or cancelling the task that
/// runs it); in both cases the bearer is closed and `events` finishes after the final state.
/// `run()` runs once per link.
public actor SensorLink<C: Clock> where C.Duration == Duration {
    /// The phase type of this link's state machine.
    public typealias Phase = SensorLinkStateMachine<C.Instant, JitterRandom>.Phase
    private typealias Action = SensorLinkStateMachine<C.Instant, JitterRandom>.Action

    /// The sensor this link owns.
    public nonisolated let address: BluetoothAddress
    /// The link's settings.
    public nonisolated let configuration: SensorLinkConfiguration
    /// Samples (one batch per notification) and state changes, in order. Single consumer;
    /// finishes after `.stopped` or `.gaveUp`.
    public nonisolated let events: AsyncStream<SensorLinkEvent>

    private let eventSink: AsyncStream<SensorLinkEvent>.Continuation
    private let stopSignal: AsyncStream<Void>
    private let stopSink: AsyncStream<Void>.Continuation
    private let stopFlag = Mutex(false)
    private let connector: any SensorConnector
    private let clock: C
    /// When the link was made: sample times are seconds after this instant.
    public let origin: C.Instant
    private let logger: Logger

    private var machine: SensorLinkStateMachine<C.Instant, JitterRandom>
    private var gate: SensorSampleGate
    private var counters = SensorLinkStatistics()
    private var bearer: (any ATTBearer)?
    private var client: GATTClient<C>?
    private var accelerometerHandle: UInt16?
    private var hasRun = false

    /// A link to `address` that opens bearers with `connector` and keeps time with `clock`.
    ///
    /// - Parameters:
    ///   - logger: carries the caller's metadata; the link adds `ble.address`.
    public init(
        address: BluetoothAddress, connector: some SensorConnector,
        configuration: SensorLinkConfiguration = SensorLinkConfiguration(), clock: C,
        logger: Logger = Logger(label: "sportsensord.link")
    ) {
        self.address = address
        self.configuration = configuration
        self.connector = connector
        self.clock = clock
        origin = clock.now
        var logger = logger
        logger[metadataKey: "ble.address"] = "\(address)"
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(
            of: SensorLinkEvent.self, bufferingPolicy: .bufferingOldest(configuration.eventBufferCapacity))
        (stopSignal, stopSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var seedSource = SystemRandomNumberGenerator()
        let seed = configuration.jitterSeed ?? seedSource.next()
        machine = SensorLinkStateMachine(
            address: address,
            backoff: ReconnectBackoff(configuration: configuration.backoff, generator: JitterRandom(seed: seed)),
            watchdog: LinkWatchdog(configuration: configuration.watchdog))
        gate = SensorSampleGate(decoder: SDUStreamDecoder(configuration: configuration.decoder))
    }

    /// Where the link is now.
    public var phase: Phase { machine.phase }

    /// A snapshot of the link's counters.
    public var statistics: SensorLinkStatistics {
        var snapshot = counters
        let decoded = gate.decoder.statistics
        snapshot.notifications = decoded.notifications
        snapshot.malformedNotifications = decoded.malformedNotifications
        snapshot.resyncs = decoded.resyncs
        snapshot.samples = gate.samplesEmitted
        snapshot.duplicateSamplesDropped = gate.duplicateSamplesDropped
        snapshot.missingSamples = gate.missingSamples
        return snapshot
    }

    /// The highest sample index published so far; nil before the first sample.
    public var lastSampleIndex: Int64? { gate.lastEmittedIndex }

    /// Asks the link to stop: whatever it is doing is cancelled, the bearer is closed, `.stopped`
    /// is published and `run()` returns. Safe to call at any time, also before `run()`.
    public nonisolated func stop() {
        stopFlag.withLock { $0 = true }
        stopSink.yield()
    }

    /// Runs the link until it gives up or is stopped. Cancelling the calling task stops it like
    /// `stop()`. A second call returns at once.
    public func run() async {
        guard !hasRun else {
            logger.warning("SensorLink.run() called again: a link runs once; create a new link to start over")
            return
        }
        hasRun = true
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.loop() }
            group.addTask { [stopSignal] in
                for await _ in stopSignal { return }
            }
            await group.next()
            group.cancelAll()
        }
        eventSink.finish()
    }

    // MARK: The action loop

    private func loop() async {
        var pending = machine.start(at: clock.now)
        while true {
            if (Task.isCancelled || stopFlag.withLock({ $0 })) && !machine.isFinished {
                pending = machine.stopRequested()
            }
            guard !pending.isEmpty else {
                if machine.isFinished { return }
                // Every event method that leaves the machine running returns a next action; an
                // empty queue here is a cancelled step whose stop is handled at the top.
                pending = machine.stopRequested()
                continue
            }
            switch pending.removeFirst() {
            case .connect:
                pending += await connect()
            case .setUpGATT:
                pending += await setUpGATT()
            case .startStreaming:
                pending += await stream()
            case .closeBearer:
                await closeBearer()
                pending += machine.bearerClosed(at: clock.now)
            case .sleep(let deadline):
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                } catch {
                    continue
                }
                pending += machine.retryTimerFired(at: clock.now)
            case .publish(let state):
                publish(state)
            case .finish:
                return
            }
        }
    }

    private func connect() async -> [Action] {
        counters.connectAttempts += 1
        logger.debug("connecting", metadata: ["link.attempt": "\(counters.connectAttempts)"])
        do {
            let opened = try await connector.connect(to: address)
            guard !Task.isCancelled else {
                await opened.close()
                return []
            }
            bearer = opened
            return machine.connected(at: clock.now)
        } catch {
            guard !Task.isCancelled else { return [] }
            return attemptFailed(
                SensorLinkError(
                    .connectFailed,
                    "could not connect to \(address): check that the sensor is switched on, charged and in range, "
                        + "and not connected to another device (a phone app)",
                    cause: error))
        }
    }

    private func setUpGATT() async -> [Action] {
        guard let bearer else {
            return attemptFailed(SensorLinkError(.setupFailed, "no bearer to set up (internal error)"))
        }
        let client = GATTClient(
            bearer: bearer, clock: clock, transactionTimeout: configuration.transactionTimeout, logger: logger)
        self.client = client
        do {
            do {
                try await client.exchangeMTU(clientRxMTU: configuration.preferredMTU)
            } catch let error as GATTError {
                // A server that refuses the exchange keeps the default MTU of 23; anything else
                // (timeout, link loss) is a failed setup.
                guard case .attError = error.code else { throw error }
                logger.debug("MTU exchange refused, staying at 23", metadata: ["error": "\(error)"])
            }
            let accelerometer = try await client.characteristic(SDUProfile.accelerometer, inService: SDUProfile.service)
            try await client.enableNotifications(for: accelerometer)
            accelerometerHandle = accelerometer.valueHandle
        } catch {
            guard !Task.isCancelled else { return [] }
            return attemptFailed(
                SensorLinkError(
                    .setupFailed,
                    "GATT setup with \(address) failed: check that the device is an SDU sensor (service "
                        + "\(SDUProfile.service) with characteristic \(SDUProfile.accelerometer)) and that no "
                        + "other central holds it",
                    cause: error))
        }
        counters.connects += 1
        if counters.connects > 1 { counters.reconnects += 1 }
        logger.info(
            "sensor link streaming",
            metadata: ["att.mtu": "\(client.mtu)", "link.connects": "\(counters.connects)"])
        return machine.setupCompleted(at: clock.now, sampleRate: watchdogRate)
    }

    private func attemptFailed(_ failure: SensorLinkError) -> [Action] {
        let actions = machine.setupFailed(failure, at: clock.now)
        guard !actions.isEmpty else { return [] }
        counters.failedAttempts += 1
        counters.lastFailure = failure
        logger.warning("connection attempt failed", metadata: ["error": "\(failure)"])
        return actions
    }

    // MARK: Streaming

    private func stream() async -> [Action] {
        guard let client, let handle = accelerometerHandle else {
            return machine.bearerEnded(SensorLinkError(.disconnected, "no GATT client (internal error)"), at: clock.now)
        }
        let notifications = client.notifications
        return await withTaskGroup(of: [Action].self) { group in
            group.addTask { await self.consume(notifications, accelerometer: handle) }
            group.addTask { await self.watch() }
            var actions = await group.next() ?? []
            group.cancelAll()
            for await more in group { actions += more }
            return actions
        }
    }

    /// Feeds notifications until the stream ends; returns the machine's actions for the end.
    private nonisolated func consume(
        _ notifications: GATTClient<C>.Notifications, accelerometer handle: UInt16
    ) async -> [Action] {
        var failure: (any Error)?
        do {
            for try await notification in notifications {
                await received(notification, accelerometer: handle)
            }
        } catch {
            failure = error
        }
        guard !Task.isCancelled else { return [] }
        return await streamEnded(failure)
    }

    private func received(_ notification: GATTClient<C>.Notification, accelerometer handle: UInt16) {
        guard case .streaming = machine.phase else { return }
        guard notification.handle == handle else {
            logger.debug(
                "ignoring a value from another characteristic", metadata: ["att.handle": "\(notification.handle)"])
            return
        }
        let arrival = origin.duration(to: notification.receivedAt).inSeconds
        let result = gate.accept(notification: notification.value, arrivalTime: arrival)
        switch result.outcome.event {
        case .malformed(let error):
            logger.debug("malformed notification dropped", metadata: ["error": "\(error)"])
        case .duplicate:
            logger.debug("replayed notification dropped")
        case .resync:
            logger.info(
                "sample counter restarted: indices continue", metadata: ["samples.skipped": "\(result.missingBefore)"])
        default:
            break
        }
        if result.droppedAsDuplicates > 0 {
            logger.debug(
                "samples already published dropped", metadata: ["samples.dropped": "\(result.droppedAsDuplicates)"])
        }
        // The watchdog counts from when the link handled the notification, so a backlog in the
        // gateway itself is never taken for a silent sensor.
        let samplesCarried = max(1, (notification.value.count - SDUProfile.headerLength) / SDUProfile.sampleLength)
        _ = machine.notificationReceived(at: clock.now, sampleRate: watchdogRate, sampleCount: samplesCarried)
        if !result.samples.isEmpty { emit(.samples(result.samples)) }
    }

    private func streamEnded(_ error: (any Error)?) -> [Action] {
        let reason = SensorLinkError(
            .disconnected,
            "the link to \(address) ended: the sensor went out of range, was switched off or closed the "
                + "connection; reconnecting",
            cause: error)
        let actions = machine.bearerEnded(reason, at: clock.now)
        if !actions.isEmpty { linkLost(reason) }
        return actions
    }

    /// Sleeps until the watchdog's deadline, again and again while notifications move it.
    private func watch() async -> [Action] {
        while let deadline = machine.watchdogDeadline {
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return []
            }
            let actions = machine.watchdogFired(at: clock.now)
            if !actions.isEmpty {
                counters.watchdogTrips += 1
                if case .lost(let reason) = machine.phase { linkLost(reason) }
                return actions
            }
        }
        return []
    }

    private func linkLost(_ reason: SensorLinkError) {
        counters.linksLost += 1
        counters.lastFailure = reason
        logger.warning("sensor link lost", metadata: ["error": "\(reason)"])
    }

    /// The rate the watchdog assumes: the decoder clock's once locked, nominal before.
    private var watchdogRate: Double { LinkWatchdog<C.Instant>.sampleRate(of: gate.decoder.clock) }

    // MARK: I/O helpers

    private func closeBearer() async {
        if let client {
            await client.close()
        } else if let bearer {
            await bearer.close()
        }
        client = nil
        bearer = nil
        accelerometerHandle = nil
    }

    private func publish(_ state: LinkState) {
        switch state {
        case .connected, .stopped: logger.info("sensor link \(state)")
        case .retrying: logger.info("sensor link \(state)")
        case .lost, .gaveUp: logger.warning("sensor link \(state)")
        }
        emit(.state(state))
    }

    private func emit(_ event: SensorLinkEvent) {
        if case .dropped = eventSink.yield(event) {
            counters.eventsDropped += 1
            if counters.eventsDropped == 1 || counters.eventsDropped.isMultiple(of: 1000) {
                logger.warning(
                    "event consumer too slow: events dropped", metadata: ["events.dropped": "\(counters.eventsDropped)"]
                )
            }
        }
    }
}

extension SensorLink where C == ContinuousClock {
    /// A link timed by the system's continuous clock.
    public init(
        address: BluetoothAddress, connector: some SensorConnector,
        configuration: SensorLinkConfiguration = SensorLinkConfiguration(),
        logger: Logger = Logger(label: "sportsensord.link")
    ) {
        self.init(
            address: address, connector: connector, configuration: configuration, clock: ContinuousClock(),
            logger: logger)
    }
}
