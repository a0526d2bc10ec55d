// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import SDUSensor
import SensorLinks
import ServiceLifecycle
import SessionStore

/// The running gateway: the paired sensors (``SensorRegistry``), their sessions
/// (``SessionManager``), the event bus, and the `LiveControl` the control API serves
/// (`Gateway+Control.swift`); the roster and the store's administration are served from the store
/// (`services`: ``StoreRoster``, ``StoreAdministrator``).
///
/// As a `Service` it runs every link, link consumer and pipeline in one task group; on graceful
/// shutdown it ends live sessions with reason `shutdown`, stops the links and returns.
public final class Gateway<C: Clock>: Service, Sendable where C.Duration == Duration {
    private struct Phase {
        var started = false
        var shuttingDown = false
        /// Sessions whose end shutdown could not store.
        var unsavedEnds: [StoreError] = []
    }

    /// Every event for `events()` subscribers.
    public let bus: EventBus<PublishedEvent>
    let dependencies: GatewayDependencies<C>
    let registry: SensorRegistry<C>
    /// The Bluetooth adapters' slots; nil without Bluetooth.
    let adapterPool: AdapterPool?
    let sessions: SessionManager<C>
    let health = StoreHealth()
    let metrics: GatewayMetrics
    let logger: Logger
    let startedAt = Date()
    private let phase = NIOLockedValueBox(Phase())
    private let jobs: AsyncStream<@Sendable () async -> Void>
    /// Runs each job in a task of the gateway's task group.
    let jobSink: AsyncStream<@Sendable () async -> Void>.Continuation
    private let shutdownSignal: AsyncStream<Void>
    private let shutdownSink: AsyncStream<Void>.Continuation
    private let readiness: AsyncStream<Void>
    private let readySink: AsyncStream<Void>.Continuation

    /// A gateway over `dependencies`; nothing runs until `run()`.
    public init(
        dependencies: GatewayDependencies<C>, bus: EventBus<PublishedEvent> = EventBus(),
        metrics: GatewayMetrics = GatewayMetrics()
    ) {
        self.dependencies = dependencies
        self.bus = bus
        self.metrics = metrics
        self.logger = dependencies.logger
        let (jobs, jobSink) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        (self.jobs, self.jobSink) = (jobs, jobSink)
        (readiness, readySink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (shutdownSignal, shutdownSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        registry = SensorRegistry()
        let registry = registry
        adapterPool = dependencies.bluetooth.map { bluetooth in
            AdapterPool(
                linkBudget: dependencies.configuration.linkBudget, logger: dependencies.logger,
                makeConnector: bluetooth.makeConnector,
                onWaiting: { address in
                    // The link's own states come from its consumer; waiting for a slot is the pool's.
                    bus.publish(
                        .link(
                            LinkPayload(
                                sensor: registry.channel(at: address)?.label ?? "\(address)", address: "\(address)",
                                state: .noSlot,
                                detail: "every adapter's link budget is in use: add an adapter or raise link_budget")))
                })
        }
        sessions = SessionManager(
            dependencies: dependencies, registry: registry, bus: bus, metrics: metrics, health: health,
            spawn: { job in jobSink.yield(job) })
    }

    /// True from graceful shutdown on: nothing new starts.
    var isShuttingDown: Bool { phase.withLockedValue { $0.shuttingDown } }

    // MARK: Service

    /// Starts the links of every paired and virtual sensor, runs until graceful shutdown (or
    /// cancellation), then ends live sessions with reason `shutdown` and stops the links.
    public func run() async throws {
        await start()
        await withDiscardingTaskGroup { group in
            group.addTask {
                try? await gracefulShutdown()
                // Ending sessions must complete even when the service itself was cancelled, so
                // it runs in a task that does not inherit the cancellation.
                await Task { await self.shutdown() }.value
            }
            for await job in jobs {
                group.addTask { await job() }
            }
        }
        let unsaved = phase.withLockedValue { $0.unsavedEnds }
        guard unsaved.isEmpty else { throw UnsavedShutdownError(failures: unsaved) }
        logger.info("gateway stopped")
    }

    /// Returns once `run()` has started every link (for readiness).
    public func waitUntilStarted() async {
        for await _ in readiness { return }
    }

    private func start() async {
        guard
            phase.withLockedValue({ phase in
                defer { phase.started = true }; return !phase.started
            })
        else { return }
        let store = dependencies.store
        let members = dependencies.virtualSensors?.members ?? []
        let stored = (try? await store.sensors()) ?? []
        for member in members {
            var record = SensorRecord(
                address: member.address, advertisedName: member.alias, alias: member.alias, lastSeen: nil,
                paired: false)
            record.athleteID = stored.first { $0.address == member.address }?.athleteID
            await save(record)
            await attach(record: record, connector: member.connector, isVirtual: true)
        }
        let virtual = Set(members.map(\.address))
        do {
            for record in try await store.sensors() where record.paired && !virtual.contains(record.address) {
                guard let connector = adapterPool else {
                    logger.warning(
                        "a paired sensor is not linked: no Bluetooth adapter is in use",
                        metadata: ["ble.address": "\(record.address)"])
                    continue
                }
                await attach(record: record, connector: connector, isVirtual: false)
            }
        } catch {
            health.record(healthy: false)
            logger.error("cannot list the paired sensors", metadata: ["error": "\(error)"])
        }
        // The poller sleeps on the gateway's clock, and the adapter watch waits for the kernel:
        // shutdown ends both rather than their next tick or event.
        untilShutdown { await self.pollLinkMetrics() }
        if let pool = adapterPool, let bluetooth = dependencies.bluetooth {
            untilShutdown {
                for await listing in bluetooth.adapterChanges() { pool.adaptersChanged(listing) }
            }
        }
        logger.info(
            "gateway started",
            metadata: ["sensors.paired": "\(registry.all.count)", "sensors.virtual": "\(virtual.count)"])
        readySink.yield()
    }

    /// Runs `body` as a job until it returns or graceful shutdown begins.
    private func untilShutdown(_ body: @escaping @Sendable () async -> Void) {
        jobSink.yield { [shutdownSignal] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await body() }
                group.addTask {
                    for await _ in shutdownSignal { return }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Ends every live session with reason `shutdown`, stops every link, ends the event stream.
    public func shutdown() async {
        guard
            phase.withLockedValue({ phase in
                defer { phase.shuttingDown = true }; return !phase.shuttingDown
            })
        else {
            return
        }
        // Together, not one after another: each ends with its own last flush and compaction, and
        // sixteen in sequence on a slow card would outlast the unit's TimeoutStopSec.
        await withDiscardingTaskGroup { group in
            for channel in registry.all {
                group.addTask {
                    guard let failure = await self.sessions.end(on: channel, reason: .shutdown) else { return }
                    self.phase.withLockedValue { $0.unsavedEnds.append(failure) }
                }
            }
        }
        // Ends an earlier stop could store nowhere: a last try; what still fails makes the exit fail.
        let unsaved = await sessions.retryEnds(closing: true)
        phase.withLockedValue { $0.unsavedEnds += unsaved }
        for channel in registry.all { channel.link.stop() }
        shutdownSink.finish()
        jobSink.finish()
        bus.finish()
    }

    /// Makes a channel for `record` and starts its link and consumer.
    func attach(record: SensorRecord, connector: some SensorConnector, isVirtual: Bool) async {
        let athlete = await athleteName(record.athleteID)
        let link = SensorLink(
            address: record.address, connector: connector, configuration: dependencies.linkConfiguration,
            clock: dependencies.clock, logger: logger)
        let bluetooth = isVirtual ? nil : dependencies.bluetooth
        let channel = SensorChannel(
            record: record, athleteName: athlete, isVirtual: isVirtual, link: link,
            adapterPool: isVirtual ? nil : adapterPool,
            linkParameters: { address in bluetooth?.linkParameters(address) })
        registry.add(channel)
        deliverSamples(of: channel)
        jobSink.yield { await link.run() }
        jobSink.yield { await self.consume(channel) }
    }

    func save(_ record: SensorRecord) async {
        do {
            try await dependencies.store.saveSensor(record)
            health.record(healthy: true)
        } catch {
            health.record(healthy: false)
            logger.error("cannot save a sensor", metadata: ["ble.address": "\(record.address)", "error": "\(error)"])
        }
    }

    func athleteName(_ id: Int64?) async -> String? {
        guard let id else { return nil }
        return try? await dependencies.store.athlete(id: id)?.name
    }

    /// The outcome of the store's integrity check after start: damage makes `status` report the
    /// store unhealthy.
    public func storeChecked(_ damage: StoreError?) {
        if damage != nil { health.recordDamage() }
    }

    /// `2 of 3 sensors connected, 1 live session`: the `STATUS=` line.
    public func statusLine() -> String {
        let live = registry.liveCount
        return "\(registry.connectedCount) of \(registry.all.count) sensors connected, \(live) live session"
            + (live == 1 ? "" : "s")
    }
}
