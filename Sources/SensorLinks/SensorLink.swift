// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import GATTClient
import Logging
import NIOConcurrencyHelpers
import SDUSensor
import SeededRandomness

/// Owns one paired sensor: connects through the injected `SensorConnector`, sets up GATT, turns
/// notifications into samples with one decoder that lives as long as the link, watches for
/// silence, reconnects with backoff, hands the samples to its ``SensorSampleSink`` and publishes
/// its state changes on `events`.
///
/// The rules are in pure structs — `SensorLinkStateMachine` (phases and what to do on each
/// event), `ReconnectBackoff` (when to retry), `LinkWatchdog` (when silence means dead),
/// `SensorSampleGate` (no sample twice) — and this class only performs their actions: open and
/// close bearers, run the GATT client, sleep on `clock`.
///
/// All of its state is one `Core` under one lock, taken by the task that runs the link
/// (``run()``) and by the thread that reads the notifications. That thread runs the gate and
/// moves the watchdog's deadline under the lock, releases it, and only then hands the samples
/// to the sink (``deliverSamples(to:)``): no lock is held while the link calls out.
///
/// ```swift
/// let link = SensorLink(address: address, connector: connector, clock: ContinuousClock(), logger: logger)
/// link.deliverSamples(to: recorder)
/// async let running: Void = link.run()
/// for await state in link.events { logger.info("link \(state)") }
/// ```
///
/// `run()` returns when the link gave up or was stopped (`stop()`, or cancelling the task that
/// runs it); in both cases the bearer is closed and `events` finishes after the final state.
/// `run()` runs once per link.
public final class SensorLink<C: Clock>: Sendable where C.Duration == Duration {
    /// The phase type of this link's state machine.
    public typealias Phase = SensorLinkStateMachine<C.Instant, SplitMix64>.Phase
    typealias Action = SensorLinkStateMachine<C.Instant, SplitMix64>.Action

    /// The sensor this link owns.
    public let address: BluetoothAddress
    /// The link's settings.
    public let configuration: SensorLinkConfiguration
    /// The link's state changes, in order. Single consumer; finishes after `.stopped` or
    /// `.gaveUp`.
    public let events: AsyncStream<LinkState>

    private let eventSink: AsyncStream<LinkState>.Continuation
    private let stopSignal: AsyncStream<Void>
    private let stopSink: AsyncStream<Void>.Continuation
    private let connector: any SensorConnector
    let clock: C
    /// When the link was made: sample times are seconds after this instant.
    public let origin: C.Instant
    let logger: Logger

    /// Everything the link knows, under one lock.
    struct Core {
        var machine: SensorLinkStateMachine<C.Instant, SplitMix64>
        var gate: SensorSampleGate
        var counters = SensorLinkStatistics()
        /// The value handle whose notifications carry samples, once discovered.
        var accelerometerHandle: UInt16?
        /// Notifications that arrived between enabling them and the end of set-up, handled
        /// once streaming starts (at most `earlyCapacity`).
        var early: [GATTClient<C>.Notification] = []
        /// True while set-up hands the early notifications over: later ones queue behind them.
        var drainingEarly = false
        var sink: (any SensorSampleSink)?
        /// The GATT client's sink of the current connection, whose end `stream()` awaits.
        var connection: SensorLinkConnection<C>?
        /// The samples of the notification being handled: one buffer, reused.
        var samples: [IndexedSample] = []
        var stopRequested = false
        var hasRun = false
        var bearer: (any ATTBearer)?
        var client: GATTClient<C>?
    }

    static var earlyCapacity: Int { 64 }

    let core: NIOLockedValueBox<Core>

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
            of: LinkState.self, bufferingPolicy: .bufferingOldest(configuration.eventBufferCapacity))
        (stopSignal, stopSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var seedSource = SystemRandomNumberGenerator()
        let seed = configuration.jitterSeed ?? seedSource.next()
        let machine = SensorLinkStateMachine<C.Instant, SplitMix64>(
            address: address,
            backoff: ReconnectBackoff(configuration: configuration.backoff, generator: SplitMix64(seed: seed)),
            watchdog: LinkWatchdog(configuration: configuration.watchdog))
        core = NIOLockedValueBox(
            Core(
                machine: machine,
                gate: SensorSampleGate(decoder: SDUStreamDecoder(configuration: configuration.decoder))))
    }

    /// Where the link is now.
    public var phase: Phase { core.withLockedValue { $0.machine.phase } }

    /// A snapshot of the link's counters.
    public var statistics: SensorLinkStatistics {
        core.withLockedValue { core in
            var snapshot = core.counters
            let decoded = core.gate.decoder.statistics
            snapshot.notifications = decoded.notifications
            snapshot.malformedNotifications = decoded.malformedNotifications
            snapshot.resyncs = decoded.resyncs
            snapshot.samples = core.gate.samplesEmitted
            snapshot.duplicateSamplesDropped = core.gate.duplicateSamplesDropped
            snapshot.missingSamples = core.gate.missingSamples
            return snapshot
        }
    }

    /// Hands every later batch of samples (one per notification, in order) to `sink`. Install
    /// it before `run()`; the link lets go of it when `run()` returns.
    public func deliverSamples(to sink: any SensorSampleSink) {
        core.withLockedValue { $0.sink = sink }
    }

    /// Asks the link to stop: whatever it is doing is cancelled, the bearer is closed, `.stopped`
    /// is published and `run()` returns. Safe to call at any time, also before `run()`.
    public func stop() {
        core.withLockedValue { $0.stopRequested = true }
        stopSink.yield()
    }

    /// Runs the link until it gives up or is stopped. Cancelling the calling task stops it like
    /// `stop()`. A second call returns at once.
    public func run() async {
        let first = core.withLockedValue { core in
            defer { core.hasRun = true }
            return !core.hasRun
        }
        guard first else {
            logger.warning("SensorLink.run() called again: a link runs once; create a new link to start over")
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.loop() }
            group.addTask { [stopSignal] in
                for await _ in stopSignal { return }
            }
            await group.next()
            group.cancelAll()
        }
        eventSink.finish()
        // The sink may refer to whoever owns the link; nothing is handed over any more.
        core.withLockedValue { $0.sink = nil }
    }

    // MARK: The action loop

    private func loop() async {
        var pending = core.withLockedValue { $0.machine.start(at: clock.now) }
        while true {
            let stopping = core.withLockedValue { core -> [Action]? in
                guard Task.isCancelled || core.stopRequested, !core.machine.isFinished else { return nil }
                return core.machine.stopRequested()
            }
            if let stopping { pending = stopping }
            guard !pending.isEmpty else {
                if core.withLockedValue({ $0.machine.isFinished }) { return }
                // Every event method that leaves the machine running returns a next action; an
                // empty queue here is a cancelled step whose stop is handled at the top.
                pending = core.withLockedValue { $0.machine.stopRequested() }
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
                pending += core.withLockedValue { $0.machine.bearerClosed(at: clock.now) }
            case .sleep(let deadline):
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                } catch {
                    continue
                }
                pending += core.withLockedValue { $0.machine.retryTimerFired(at: clock.now) }
            case .publish(let state):
                publish(state)
            case .finish:
                return
            }
        }
    }

    private func connect() async -> [Action] {
        let attempt = core.withLockedValue { core in
            core.counters.connectAttempts += 1
            return core.counters.connectAttempts
        }
        logger.debug("connecting", metadata: ["link.attempt": "\(attempt)"])
        do {
            let opened = try await connector.connect(to: address)
            guard !Task.isCancelled else {
                await opened.close()
                return []
            }
            return core.withLockedValue { core in
                core.bearer = opened
                return core.machine.connected(at: clock.now)
            }
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
        guard let bearer = core.withLockedValue({ $0.bearer }) else {
            return attemptFailed(SensorLinkError(.setupFailed, "no bearer to set up (internal error)"))
        }
        let connection = SensorLinkConnection(link: self)
        let client = GATTClient(
            bearer: bearer, clock: clock, transactionTimeout: configuration.transactionTimeout,
            notifications: connection, logger: logger)
        core.withLockedValue { core in
            core.client = client
            core.connection = connection
        }
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
            core.withLockedValue { $0.accelerometerHandle = accelerometer.valueHandle }
            try await client.enableNotifications(for: accelerometer)
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
        let connects = core.withLockedValue { core in
            core.counters.connects += 1
            if core.counters.connects > 1 { core.counters.reconnects += 1 }
            return core.counters.connects
        }
        logger.info(
            "sensor link streaming", metadata: ["att.mtu": "\(client.mtu)", "link.connects": "\(connects)"])
        // `.connected` is published before the first sample is handed over. Notifications that
        // arrive while the early ones are handed over queue behind them, so the order holds.
        var actions = core.withLockedValue { core in
            let actions = core.machine.setupCompleted(at: clock.now, sampleRate: Self.watchdogRate(core.gate))
            if case .streaming = core.machine.phase {
                core.drainingEarly = true
            } else {
                // Set-up was overtaken by a stop; the early ones are dropped.
                core.early = []
            }
            return actions
        }
        while case .publish(let state) = actions.first {
            actions.removeFirst()
            publish(state)
        }
        handOverEarly()
        return actions
    }

    private func attemptFailed(_ failure: SensorLinkError) -> [Action] {
        let actions = core.withLockedValue { core in
            let actions = core.machine.setupFailed(failure, at: clock.now)
            if !actions.isEmpty {
                core.counters.failedAttempts += 1
                core.counters.lastFailure = failure
            }
            return actions
        }
        guard !actions.isEmpty else { return [] }
        logger.warning("connection attempt failed", metadata: ["error": "\(failure)"])
        return actions
    }

    // MARK: I/O helpers

    private func closeBearer() async {
        let (client, bearer) = core.withLockedValue { core in
            defer {
                core.client = nil
                core.connection = nil
                core.bearer = nil
                core.accelerometerHandle = nil
                core.early = []
                core.drainingEarly = false
            }
            return (core.client, core.bearer)
        }
        if let client {
            await client.close()
        } else if let bearer {
            await bearer.close()
        }
    }

    /// Publishes a state change. Only the task that runs the link publishes, so the order holds
    /// without the lock.
    private func publish(_ state: LinkState) {
        switch state {
        case .connected, .stopped: logger.info("sensor link \(state)")
        case .retrying: logger.info("sensor link \(state)")
        case .lost, .gaveUp: logger.warning("sensor link \(state)")
        }
        guard case .dropped = eventSink.yield(state) else { return }
        let dropped = core.withLockedValue { core in
            core.counters.eventsDropped += 1
            return core.counters.eventsDropped
        }
        if dropped == 1 || dropped.isMultiple(of: 1000) {
            logger.warning("event consumer too slow: events dropped", metadata: ["events.dropped": "\(dropped)"])
        }
    }
}

extension SensorLink where C == ContinuousClock {
    /// A link timed by the system's continuous clock.
    public convenience init(
        address: BluetoothAddress, connector: some SensorConnector,
        configuration: SensorLinkConfiguration = SensorLinkConfiguration(),
        logger: Logger = Logger(label: "sportsensord.link")
    ) {
        self.init(
            address: address, connector: connector, configuration: configuration, clock: ContinuousClock(),
            logger: logger)
    }
}
