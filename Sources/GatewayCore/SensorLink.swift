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
/// Notifications do not wait for the actor: the GATT client hands each one to the link on the
/// thread that read it, and the link runs the gate and moves the watchdog's deadline under a
/// lock it shares with the actor (`Core`), then hands the samples to the handler installed with
/// ``handleSamples(with:)``, or publishes them on `events` when there is none. State changes
/// always go through `events`.
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
    typealias Action = SensorLinkStateMachine<C.Instant, JitterRandom>.Action

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
    let clock: C
    /// When the link was made: sample times are seconds after this instant.
    public let origin: C.Instant
    let logger: Logger

    /// What the notification path and the actor share, under one lock.
    struct Core {
        var machine: SensorLinkStateMachine<C.Instant, JitterRandom>
        var gate: SensorSampleGate
        var counters = SensorLinkStatistics()
        /// The value handle whose notifications carry samples, once discovered.
        var accelerometerHandle: UInt16?
        /// Notifications that arrived between enabling them and the end of set-up, handled
        /// once streaming starts (at most `earlyCapacity`).
        var early: [GATTClient<C>.Notification] = []
        var sampleHandler: (@Sendable ([SDUDecodedSample]) -> Void)?
        /// The samples of the notification being handled: one buffer, reused.
        var samples: [SDUDecodedSample] = []
    }

    static var earlyCapacity: Int { 64 }

    let core: Mutex<Core>
    private var bearer: (any ATTBearer)?
    private var client: GATTClient<C>?
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
        let machine = SensorLinkStateMachine<C.Instant, JitterRandom>(
            address: address,
            backoff: ReconnectBackoff(configuration: configuration.backoff, generator: JitterRandom(seed: seed)),
            watchdog: LinkWatchdog(configuration: configuration.watchdog))
        core = Mutex(
            Core(
                machine: machine,
                gate: SensorSampleGate(decoder: SDUStreamDecoder(configuration: configuration.decoder))))
    }

    /// Where the link is now.
    public var phase: Phase { core.withLock { $0.machine.phase } }

    /// A snapshot of the link's counters.
    public var statistics: SensorLinkStatistics {
        core.withLock { core in
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

    /// The highest sample index published so far; nil before the first sample.
    public var lastSampleIndex: Int64? { core.withLock { $0.gate.lastEmittedIndex } }

    /// Hands every later batch of samples (one per notification, in order) to `handler` instead
    /// of publishing it on `events`. `handler` runs on the thread that read the notification,
    /// under the link's lock: it must not block or call back into the link, and should not keep
    /// the batch (the link reuses its buffer, which a kept batch makes it copy). Install it before
    /// `run()`; the link lets go of it when `run()` returns.
    public nonisolated func handleSamples(with handler: @escaping @Sendable ([SDUDecodedSample]) -> Void) {
        core.withLock { $0.sampleHandler = handler }
    }

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
        // The handler may refer to whoever owns the link; nothing is handed over any more.
        core.withLock { $0.sampleHandler = nil }
    }

    // MARK: The action loop

    private func loop() async {
        var pending = core.withLock { $0.machine.start(at: clock.now) }
        while true {
            if Task.isCancelled || stopFlag.withLock({ $0 }),
                let stopping = core.withLock({ $0.machine.isFinished ? nil : $0.machine.stopRequested() })
            {
                pending = stopping
            }
            guard !pending.isEmpty else {
                if core.withLock({ $0.machine.isFinished }) { return }
                // Every event method that leaves the machine running returns a next action; an
                // empty queue here is a cancelled step whose stop is handled at the top.
                pending = core.withLock { $0.machine.stopRequested() }
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
                pending += core.withLock { $0.machine.bearerClosed(at: clock.now) }
            case .sleep(let deadline):
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                } catch {
                    continue
                }
                pending += core.withLock { $0.machine.retryTimerFired(at: clock.now) }
            case .publish(let state):
                publish(state)
            case .finish:
                return
            }
        }
    }

    private func connect() async -> [Action] {
        let attempt = core.withLock { core in
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
            bearer = opened
            return core.withLock { $0.machine.connected(at: clock.now) }
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
        // A strong reference (a weak load per notification costs more than the rest of the
        // hand-over): closeBearer() drops the client, which ends the cycle.
        client.handleNotifications { [self] notification in handle(notification) }
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
            core.withLock { $0.accelerometerHandle = accelerometer.valueHandle }
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
        let connects = core.withLock { core in
            core.counters.connects += 1
            if core.counters.connects > 1 { core.counters.reconnects += 1 }
            return core.counters.connects
        }
        logger.info(
            "sensor link streaming", metadata: ["att.mtu": "\(client.mtu)", "link.connects": "\(connects)"])
        // Under the lock the notification path takes: `.connected` is published before the first
        // sample, and the notifications that came early are handled before any later one.
        return core.withLock { core in
            var actions = core.machine.setupCompleted(
                at: clock.now, sampleRate: Self.watchdogRate(core.gate))
            while case .publish(let state) = actions.first {
                actions.removeFirst()
                publish(state, counters: &core.counters)
            }
            let early = core.early
            core.early = []
            // Not streaming: set-up was overtaken by a stop; the early ones are dropped.
            if case .streaming = core.machine.phase {
                for notification in early { accept(GATTClient<C>.NotificationSlice(notification), into: &core) }
            }
            return actions
        }
    }

    private func attemptFailed(_ failure: SensorLinkError) -> [Action] {
        let actions = core.withLock { core in
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

    // MARK: Streaming

    private func stream() async -> [Action] {
        guard let client else {
            let error = SensorLinkError(.disconnected, "no GATT client (internal error)")
            return core.withLock { $0.machine.bearerEnded(error, at: clock.now) }
        }
        let notifications = client.notifications
        return await withTaskGroup(of: [Action].self) { group in
            group.addTask { await self.consume(notifications) }
            group.addTask { await self.watch() }
            var actions = await group.next() ?? []
            group.cancelAll()
            for await more in group { actions += more }
            return actions
        }
    }

    func streamEnded(_ error: (any Error)?) -> [Action] {
        let reason = SensorLinkError(
            .disconnected,
            "the link to \(address) ended: the sensor went out of range, was switched off or closed the "
                + "connection; reconnecting",
            cause: error)
        return core.withLock { core in
            let actions = core.machine.bearerEnded(reason, at: clock.now)
            if !actions.isEmpty { linkLost(reason, counters: &core.counters) }
            return actions
        }
    }

    /// Sleeps until the watchdog's deadline, again and again while notifications move it.
    private func watch() async -> [Action] {
        while let deadline = core.withLock({ $0.machine.watchdogDeadline }) {
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return []
            }
            let actions = core.withLock { core in
                let actions = core.machine.watchdogFired(at: clock.now)
                if !actions.isEmpty {
                    core.counters.watchdogTrips += 1
                    if case .lost(let reason) = core.machine.phase { linkLost(reason, counters: &core.counters) }
                }
                return actions
            }
            if !actions.isEmpty { return actions }
        }
        return []
    }

    private nonisolated func linkLost(_ reason: SensorLinkError, counters: inout SensorLinkStatistics) {
        counters.linksLost += 1
        counters.lastFailure = reason
        logger.warning("sensor link lost", metadata: ["error": "\(reason)"])
    }

    /// The rate the watchdog assumes: the decoder clock's once locked, nominal before.
    static func watchdogRate(_ gate: SensorSampleGate) -> Double {
        LinkWatchdog<C.Instant>.sampleRate(of: gate.decoder.clock)
    }

    // MARK: I/O helpers

    private func closeBearer() async {
        if let client {
            await client.close()
        } else if let bearer {
            await bearer.close()
        }
        client = nil
        bearer = nil
        core.withLock { core in
            core.accelerometerHandle = nil
            core.early = []
        }
    }

    private func publish(_ state: LinkState) {
        core.withLock { publish(state, counters: &$0.counters) }
    }

    private nonisolated func publish(_ state: LinkState, counters: inout SensorLinkStatistics) {
        switch state {
        case .connected, .stopped: logger.info("sensor link \(state)")
        case .retrying: logger.info("sensor link \(state)")
        case .lost, .gaveUp: logger.warning("sensor link \(state)")
        }
        emit(.state(state), counters: &counters)
    }

    nonisolated func emit(_ event: SensorLinkEvent, counters: inout SensorLinkStatistics) {
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
