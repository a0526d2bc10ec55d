// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import Detection
import Foundation
import Logging
import Metrics
import SDUSensor
import ServiceLifecycle
import SessionStore
import Synchronization

/// What the gateway needs from the outside world: the store, the configuration and the
/// Bluetooth side (injected, so `GatewayCore` never imports the transport).
public struct GatewayDependencies<C: Clock>: Sendable where C.Duration == Duration {
    /// The open session store.
    public var store: SessionStore
    /// The state directory the store lives in (for `status`).
    public var stateDirectory: String
    /// The effective configuration.
    public var configuration: GatewayConfiguration
    /// The clock links, sensors and sessions keep time with.
    public var clock: C
    /// One connector per Bluetooth adapter; sensors are spread over them. Empty without Bluetooth.
    public var connectors: [any SensorConnector]
    /// The adapters' state.
    public var adapters: @Sendable () async -> [AdapterInfo]
    /// Scans for `seconds`; nil without Bluetooth.
    public var scan: (@Sendable (Double) async throws -> [DiscoveryInfo])?
    /// The virtual sensors to pair.
    public var virtualSensors: VirtualSensorFleet<C>?
    /// Link settings.
    public var linkConfiguration: SensorLinkConfiguration
    /// Recorder settings.
    public var recorderConfiguration: SessionRecorder<C>.Configuration
    /// The daemon's version.
    public var version: String
    /// The logger.
    public var logger: Logger

    /// Creates dependencies; only the store, state directory, configuration and clock are required.
    public init(
        store: SessionStore, stateDirectory: String, configuration: GatewayConfiguration, clock: C,
        connectors: [any SensorConnector] = [], adapters: @escaping @Sendable () async -> [AdapterInfo] = { [] },
        scan: (@Sendable (Double) async throws -> [DiscoveryInfo])? = nil,
        virtualSensors: VirtualSensorFleet<C>? = nil,
        linkConfiguration: SensorLinkConfiguration = SensorLinkConfiguration(),
        recorderConfiguration: SessionRecorder<C>.Configuration = .init(), version: String = "0.1.0",
        logger: Logger = Logger(label: "sportsensord")
    ) {
        self.store = store
        self.stateDirectory = stateDirectory
        self.configuration = configuration
        self.clock = clock
        self.connectors = connectors
        self.adapters = adapters
        self.scan = scan
        self.virtualSensors = virtualSensors
        self.linkConfiguration = linkConfiguration
        self.recorderConfiguration = recorderConfiguration
        self.version = version
        self.logger = logger
    }
}

/// The running gateway: one `SensorLink` per paired sensor (and per virtual sensor), a
/// `SessionPipeline` per live session, the event bus, and the `GatewayControl` the control API
/// serves. As a `Service` it runs every link, link consumer and pipeline in one task group; on
/// graceful shutdown it ends live sessions with reason `shutdown`, stops the links and returns.
public actor Gateway<C: Clock>: GatewayControl, Service where C.Duration == Duration {
    /// Every event for `events()` subscribers.
    public nonisolated let bus: EventBus<GatewayEvent>
    private let dependencies: GatewayDependencies<C>
    private let logger: Logger
    private let startedAt = Date()
    private var channels: [BluetoothAddress: SensorChannel<C>] = [:]
    private var connectorLoad: [Int] = []
    private var storeHealthy = true
    private var started = false
    private var shuttingDown = false
    private let jobs: AsyncStream<@Sendable () async -> Void>
    private let jobSink: AsyncStream<@Sendable () async -> Void>.Continuation
    private let shutdownSignal: AsyncStream<Void>
    private let shutdownSink: AsyncStream<Void>.Continuation
    private let readiness: AsyncStream<Void>
    private let readySink: AsyncStream<Void>.Continuation
    private let samplesCounter = Counter(label: "sportsensord_samples_total")
    private let notificationsCounter = Counter(label: "sportsensord_notifications_total")
    private let reconnectsCounter = Counter(label: "sportsensord_reconnects_total")
    private let connectedGauge = Gauge(label: "sportsensord_sensors_connected")
    private let liveGauge = Gauge(label: "sportsensord_live_sessions")

    /// A gateway over `dependencies`; nothing runs until `run()`.
    public init(dependencies: GatewayDependencies<C>, bus: EventBus<GatewayEvent> = EventBus()) {
        self.dependencies = dependencies
        self.bus = bus
        self.logger = dependencies.logger
        (jobs, jobSink) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        (readiness, readySink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (shutdownSignal, shutdownSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        connectorLoad = Array(repeating: 0, count: dependencies.connectors.count)
    }

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
        logger.info("gateway stopped")
    }

    /// Returns once `run()` has started every link (for readiness).
    public nonisolated func waitUntilStarted() async {
        for await _ in readiness { return }
    }

    private func start() async {
        guard !started else { return }
        started = true
        if let fleet = dependencies.virtualSensors {
            for member in fleet.members {
                var record = SensorRecord(
                    address: member.address, advertisedName: member.alias, alias: member.alias, lastSeen: nil,
                    paired: false)
                if let stored = try? await dependencies.store.sensors().first(where: { $0.address == member.address }) {
                    record.athleteID = stored.athleteID
                }
                await save(record)
                await attach(record: record, connector: member.connector, isVirtual: true)
            }
        }
        let virtual = Set(dependencies.virtualSensors?.members.map(\.address) ?? [])
        do {
            let paired = try await dependencies.store.sensors().filter { $0.paired && !virtual.contains($0.address) }
            for record in paired {
                guard let connector = nextConnector() else {
                    logger.warning(
                        "a paired sensor is not linked: no Bluetooth adapter is in use",
                        metadata: ["ble.address": "\(record.address)"])
                    continue
                }
                await attach(record: record, connector: connector, isVirtual: false)
            }
        } catch {
            storeHealthy = false
            logger.error("cannot list the paired sensors", metadata: ["error": "\(error)"])
        }
        jobSink.yield { [shutdownSignal] in
            // The poller sleeps on the gateway's clock: shutdown ends it rather than the next tick.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.pollLinkMetrics() }
                group.addTask {
                    for await _ in shutdownSignal { return }
                }
                await group.next()
                group.cancelAll()
            }
        }
        logger.info(
            "gateway started",
            metadata: ["sensors.paired": "\(channels.count)", "sensors.virtual": "\(virtual.count)"])
        readySink.yield()
    }

    /// Ends every live session with reason `shutdown`, stops every link, ends the event stream.
    public func shutdown() async {
        guard !shuttingDown else { return }
        shuttingDown = true
        for channel in channels.values {
            await endSession(on: channel, reason: .shutdown)
        }
        for channel in channels.values { channel.link.stop() }
        shutdownSink.finish()
        jobSink.finish()
        bus.finish()
    }

    private func nextConnector() -> (any SensorConnector)? {
        guard !dependencies.connectors.isEmpty else { return nil }
        let index = connectorLoad.indices.min { connectorLoad[$0] < connectorLoad[$1] } ?? 0
        connectorLoad[index] += 1
        return dependencies.connectors[index]
    }

    private func attach(record: SensorRecord, connector: some SensorConnector, isVirtual: Bool) async {
        let athlete = await athleteName(record.athleteID)
        let origin = dependencies.clock.now
        let link = SensorLink(
            address: record.address, connector: connector, configuration: dependencies.linkConfiguration,
            clock: dependencies.clock, logger: logger)
        let channel = SensorChannel(
            record: record, athleteName: athlete, isVirtual: isVirtual, link: link, linkOrigin: origin)
        channels[record.address] = channel
        jobSink.yield { await link.run() }
        jobSink.yield { await self.consume(channel) }
    }

    /// Every 5 s: the links' lost samples and malformed notifications into the metrics, and the
    /// bus's drops.
    private nonisolated func pollLinkMetrics() async {
        let lost = Counter(label: "sportsensord_samples_lost_total")
        let malformed = Counter(label: "sportsensord_notifications_malformed_total")
        let busDrops = Counter(label: "sportsensord_event_bus_dropped_total")
        var seen: [BluetoothAddress: (lost: Int, malformed: Int)] = [:]
        var seenDrops = 0
        while !Task.isCancelled {
            do { try await dependencies.clock.sleep(for: .seconds(5)) } catch { return }
            guard let links = await activeLinks() else { return }
            for link in links {
                let statistics = await link.statistics
                let previous = seen[link.address] ?? (0, 0)
                lost.increment(by: Int64(max(0, statistics.missingSamples - previous.lost)))
                malformed.increment(by: Int64(max(0, statistics.malformedNotifications - previous.malformed)))
                seen[link.address] = (statistics.missingSamples, statistics.malformedNotifications)
            }
            let drops = bus.droppedCount
            busDrops.increment(by: Int64(max(0, drops - seenDrops)))
            seenDrops = drops
        }
    }

    /// The links to poll; nil once shutting down.
    private func activeLinks() -> [SensorLink<C>]? {
        shuttingDown ? nil : channels.values.map(\.link)
    }

    // MARK: The sample path

    private nonisolated func consume(_ channel: SensorChannel<C>) async {
        let autoStart = dependencies.configuration.autoStart
        for await event in channel.link.events {
            switch event {
            case .samples(let batch):
                notificationsCounter.increment()
                samplesCounter.increment(by: Int64(batch.count))
                if let pipeline = channel.pipeline {
                    pipeline.ingest(batch)
                } else if autoStart, Self.startsMoving(channel, batch) {
                    await autoStartSession(on: channel.address)
                }
            case .state(let linkState):
                await linkChanged(channel, linkState)
            }
        }
    }

    /// True once when an idle sensor without a session starts moving.
    private nonisolated static func startsMoving(_ channel: SensorChannel<C>, _ batch: [SDUDecodedSample]) -> Bool {
        channel.state.withLock { state in
            guard state.pipeline == nil, !state.autoStartPending else { return false }
            var moved = false
            for sample in batch where state.activity.observe(sample.acceleration) { moved = true }
            if moved { state.autoStartPending = true }
            return moved
        }
    }

    private func linkChanged(_ channel: SensorChannel<C>, _ linkState: LinkState) async {
        let detail: String?
        switch linkState {
        case .connected: detail = nil
        case .lost(let error): detail = error.message
        case .retrying(let delay, let attempt): detail = "in \(delay), attempt \(attempt)"
        case .gaveUp(let error): detail = error.message
        case .stopped: detail = nil
        }
        let (pipeline, label) = channel.state.withLock { state -> (SessionPipeline<C>?, String) in
            state.linkState = linkState.wireName
            if case .connected = linkState {
                if state.connected == false, state.record.lastSeen != nil { reconnectsCounter.increment() }
                state.connected = true
                state.record.lastSeen = Date()
            } else if case .retrying = linkState {
                state.linkState = "retrying"
            } else {
                state.connected = false
            }
            return (state.pipeline, state.record.alias ?? "\(channel.address)")
        }
        pipeline?.linkChanged(linkState)
        connectedGauge.record(channels.values.filter(\.isConnected).count)
        bus.publish(
            .link(LinkPayload(sensor: label, address: "\(channel.address)", state: linkState.wireName, detail: detail)))
        switch linkState {
        case .connected:
            if !channel.isVirtual { await save(channel.record) }
        case .gaveUp:
            await endSession(on: channel, reason: .linkLost)
        default:
            break
        }
    }

    private func autoStartSession(on address: BluetoothAddress) async {
        guard let channel = channels[address], !shuttingDown else { return }
        defer { channel.state.withLock { $0.autoStartPending = false } }
        guard channel.pipeline == nil else { return }
        do {
            let info = try await startSession(StartSessionRequest(sensor: "\(address)"))
            logger.info(
                "auto-started a session: the sensor moved",
                metadata: ["session.id": "\(info.id)", "ble.address": "\(address)"])
        } catch {
            logger.warning("cannot auto-start a session", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Sessions

    private func endSession(on channel: SensorChannel<C>, reason: SessionEndReason) async {
        guard
            let pipeline = channel.state.withLock({ state -> SessionPipeline<C>? in
                defer { state.pipeline = nil }
                return state.pipeline
            })
        else { return }
        liveGauge.record(channels.values.filter { $0.pipeline != nil }.count)
        do {
            _ = try await pipeline.finish(reason: reason)
        } catch {
            storeHealthy = false
            logger.error(
                "cannot close the session in the store",
                metadata: ["session.id": "\(pipeline.sessionID)", "error": "\(error)"])
        }
    }

    /// Starts a session on the channel (`startSession` after resolving).
    private func begin(
        on channel: SensorChannel<C>, profile: DetectionProfile, athlete: String?
    ) async throws(ControlError) -> SessionPipeline<C> {
        guard !shuttingDown else {
            throw ControlError(.unavailable, "the gateway is shutting down", fix: "start the session after the restart")
        }
        if let live = channel.pipeline {
            throw ControlError(
                .conflict, "\(channel.label) already records session \(live.sessionID)",
                fix: "stop it first with `sportsensorctl stop \(live.sessionID.prefix(8))`")
        }
        let record = channel.record
        var athleteID = record.athleteID
        var athleteName = channel.state.withLock { $0.athleteName }
        if let athlete, !athlete.isEmpty {
            let found = try await mapStore { () async throws(StoreError) in try await self.findOrAddAthlete(athlete) }
            athleteID = found.id
            athleteName = found.name
        }
        let parameters = dependencies.configuration.detection
        let startInstant = dependencies.clock.now
        let new = NewSession(
            sensor: channel.address, athleteID: athleteID, profile: profile.rawValue,
            profileParameters: DetectionParameterKeys.json(for: profile, parameters))
        let store = dependencies.store
        let session = try await mapStore { () async throws(StoreError) in try await store.createSession(new) }
        let recorder = try await mapStore { () async throws(StoreError) in
            try await store.recorder(
                for: session, configuration: self.dependencies.recorderConfiguration, clock: self.dependencies.clock,
                logger: self.logger)
        }
        let context = SessionPipeline<C>.Context(
            session: session, address: channel.address, sensorLabel: channel.label, alias: record.alias,
            athlete: athleteName, profile: profile, parameters: parameters,
            timeOffset: channel.linkOrigin.duration(to: startInstant).inSeconds)
        let link = channel.link
        let address = channel.address
        let pipeline = SessionPipeline(
            context: context, recorder: recorder, bus: bus, clock: dependencies.clock, linkState: channel.linkState,
            linkBaseline: await link.statistics, idleTimeout: dependencies.configuration.idleStop, logger: logger,
            linkStatistics: { await link.statistics },
            onIdle: { [weak self] reason in
                await self?.idleStop(address: address, session: session.idText, reason: reason)
            }
        )
        channel.state.withLock { $0.pipeline = pipeline }
        liveGauge.record(channels.values.filter { $0.pipeline != nil }.count)
        jobSink.yield { await pipeline.run() }
        bus.publish(.session(pipeline.info()))
        logger.info(
            "session started",
            metadata: [
                "session.id": "\(session.idText)", "ble.address": "\(channel.address)",
                "session.profile": "\(profile.rawValue)",
            ])
        return pipeline
    }

    private func idleStop(address: BluetoothAddress, session: String, reason: SessionEndReason) async {
        guard let channel = channels[address], channel.pipeline?.sessionID == session else { return }
        await endSession(on: channel, reason: reason)
    }

    // MARK: Helpers

    private func save(_ record: SensorRecord) async {
        do {
            try await dependencies.store.saveSensor(record)
            storeHealthy = true
        } catch {
            storeHealthy = false
            logger.error("cannot save a sensor", metadata: ["ble.address": "\(record.address)", "error": "\(error)"])
        }
    }

    private func athleteName(_ id: Int64?) async -> String? {
        guard let id else { return nil }
        return try? await dependencies.store.athlete(id: id)?.name
    }

    private func findOrAddAthlete(_ name: String) async throws(StoreError) -> Athlete {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if let existing = try await dependencies.store.athlete(named: trimmed) { return existing }
        return try await dependencies.store.addAthlete(name: trimmed)
    }

    /// Runs a store call, turning its error into the control API's.
    private func mapStore<T: Sendable>(_ body: () async throws(StoreError) -> T) async throws(ControlError) -> T {
        do {
            let value = try await body()
            return value
        } catch {
            throw controlError(error)
        }
    }

    private func controlError(_ error: StoreError) -> ControlError {
        switch error.code {
        case .notFound: return ControlError(.notFound, error.message, fix: "list them with `sportsensorctl sessions`")
        case .ambiguousPrefix: return ControlError(.conflict, error.message, fix: "give more digits of the id")
        case .invalidArgument: return ControlError(.invalidRequest, error.message)
        case .diskFull, .permission, .busy, .corrupt, .newerSchema, .notOurDatabase:
            storeHealthy = false
            return ControlError(.unavailable, error.message, fix: "check the state directory and the daemon's log")
        default:
            storeHealthy = false
            return ControlError(.internal, error.description)
        }
    }

    /// The channel called `name` (alias or address).
    private func channel(named name: String) throws(ControlError) -> SensorChannel<C> {
        if let address = BluetoothAddress(string: name),
            let channel = channels.first(where: {
                $0.key.octets == address.octets
            })?.value
        {
            return channel
        }
        if let channel = channels.values.first(where: { $0.record.alias == name }) { return channel }
        throw ControlError(
            .notFound, "no paired sensor is called \(name)",
            fix: "list them with `sportsensorctl sensors`, or pair it with `sportsensorctl pair ADDRESS`")
    }

    private func sessionInfo(_ record: SessionRecord) async -> SessionInfo {
        if let sensor = record.sensor, let live = channels[sensor]?.pipeline, live.sessionID == record.idText {
            return live.info()
        }
        var counts: [String: Int] = [:]
        if let events = try? await dependencies.store.events(of: record.id) {
            for event in events { counts[event.event.type, default: 0] += 1 }
        }
        let channel = record.sensor.flatMap { channels[$0] }
        let alias = channel?.record.alias
        let athlete = await athleteName(record.athleteID)
        return SessionInfo(
            id: record.idText, sensor: record.sensor.map { "\($0)" } ?? "", alias: alias, athlete: athlete,
            profile: record.profile, startedAt: record.startedAt, endedAt: record.endedAt,
            endReason: record.endReason?.rawValue, isLive: false, eventCounts: counts,
            samples: Int(record.counts.received), lostSamples: Int(record.counts.lost),
            malformedNotifications: Int(record.counts.malformed), sampleRate: record.counts.sampleRate)
    }

    private var liveSessionCount: Int { channels.values.filter { $0.pipeline != nil }.count }

    /// `2 of 3 sensors connected, 1 live session`: the `STATUS=` line.
    public func statusLine() -> String {
        let connected = channels.values.filter(\.isConnected).count
        let live = liveSessionCount
        return "\(connected) of \(channels.count) sensors connected, \(live) live session\(live == 1 ? "" : "s")"
    }

    // MARK: GatewayControl

    /// `GET /v1/status`.
    public func status() async throws(ControlError) -> GatewayStatus {
        GatewayStatus(
            version: dependencies.version, uptimeSeconds: Date().timeIntervalSince(startedAt),
            stateDirectory: dependencies.stateDirectory, storeHealthy: storeHealthy,
            adapters: await dependencies.adapters(), sensorsPaired: channels.count,
            sensorsConnected: channels.values.filter(\.isConnected).count, liveSessions: liveSessionCount)
    }

    /// `GET /v1/adapters`.
    public func adapters() async throws(ControlError) -> [AdapterInfo] {
        await dependencies.adapters()
    }

    /// `POST /v1/scan`.
    public func scan(seconds: Double) async throws(ControlError) -> [DiscoveryInfo] {
        guard seconds.isFinite, (1...60).contains(seconds) else {
            throw ControlError(.invalidRequest, "cannot scan for \(seconds) s", fix: "scan for 1 to 60 seconds")
        }
        // Virtual sensors are always in range of the gateway that emulates them.
        let virtual = (dependencies.virtualSensors?.members ?? []).map { member in
            DiscoveryInfo(
                address: "\(member.address)", addressType: "\(member.address.kind)", name: member.alias, rssi: -40,
                isSduSensor: true)
        }
        guard let scan = dependencies.scan else {
            guard !virtual.isEmpty else {
                throw ControlError(
                    .unavailable, "this gateway uses no Bluetooth adapter",
                    fix: "start sportsensord with --adapter hciN (and without only --virtual-sensors)")
            }
            try? await dependencies.clock.sleep(for: .milliseconds(Int64(seconds * 1000)))
            return virtual
        }
        do {
            let found = try await scan(seconds) + virtual
            return found.sorted { ($0.isSduSensor ? 0 : 1, $0.address) < ($1.isSduSensor ? 0 : 1, $1.address) }
        } catch {
            throw ControlError(.unavailable, "the scan failed: \(error)", fix: "check the adapter with `hciconfig`")
        }
    }

    /// `GET /v1/sensors`.
    public func sensors() async throws(ControlError) -> [SensorInfo] {
        channels.values.map { $0.info() }.sorted { ($0.alias ?? $0.address) < ($1.alias ?? $1.address) }
    }

    /// `POST /v1/sensors`.
    public func pair(_ request: PairRequest) async throws(ControlError) -> SensorInfo {
        let kind: BluetoothAddress.Kind
        switch request.addressType ?? "random" {
        case "random": kind = .random
        case "public": kind = .public
        default:
            throw ControlError(
                .invalidRequest, "unknown address type '\(request.addressType ?? "")'", fix: "use public or random")
        }
        guard let address = BluetoothAddress(string: request.address, kind: kind) else {
            throw ControlError(
                .invalidRequest, "'\(request.address)' is not a Bluetooth address",
                fix: "write it as AA:BB:CC:DD:EE:FF (see `sportsensorctl scan`)")
        }
        if let existing = channels.first(where: { $0.key.octets == address.octets })?.value {
            throw ControlError(
                .conflict, "\(address) is already paired as \(existing.label)",
                fix: "rename it with `sportsensorctl rename \(existing.label) NEW`, or unpair it first")
        }
        if let alias = request.alias { try checkAlias(alias, for: nil) }
        let member = dependencies.virtualSensors?.members.first { $0.address.octets == address.octets }
        guard member != nil || !dependencies.connectors.isEmpty else {
            throw ControlError(
                .unavailable, "this gateway uses no Bluetooth adapter, so it cannot link to \(address)",
                fix: "start sportsensord with --adapter hciN")
        }
        var record = SensorRecord(
            address: member?.address ?? address, advertisedName: member?.alias, alias: request.alias?.nilIfEmpty,
            paired: member == nil)
        let stored = try await mapStore { () async throws(StoreError) in try await self.dependencies.store.sensors() }
        if let known = stored.first(where: { $0.address.octets == address.octets }) {
            record.advertisedName = known.advertisedName
            record.lastSeen = known.lastSeen
            record.athleteID = known.athleteID
            if record.alias == nil { record.alias = known.alias }
        }
        if let athlete = request.athlete?.nilIfEmpty {
            record.athleteID = try await mapStore { () async throws(StoreError) in
                try await self.findOrAddAthlete(athlete).id
            }
        }
        let saved = record
        try await mapStore { () async throws(StoreError) in try await self.dependencies.store.saveSensor(saved) }
        if let member {
            await attach(record: record, connector: member.connector, isVirtual: true)
            logger.info("virtual sensor paired", metadata: ["ble.address": "\(address)"])
            return try channel(named: "\(address)").info()
        }
        guard let connector = nextConnector() else {
            throw ControlError(.unavailable, "no Bluetooth adapter", fix: "start sportsensord with --adapter hciN")
        }
        await attach(record: record, connector: connector, isVirtual: false)
        logger.info("sensor paired", metadata: ["ble.address": "\(address)"])
        return try channel(named: "\(address)").info()
    }

    private func checkAlias(_ alias: String, for address: BluetoothAddress?) throws(ControlError) {
        guard !alias.isEmpty else { return }
        guard alias.count <= 64, !alias.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw ControlError(
                .invalidRequest, "'\(alias)' cannot be an alias",
                fix: "use up to 64 characters without spaces or slashes, e.g. anna-left")
        }
        if BluetoothAddress(string: alias) != nil {
            throw ControlError(.invalidRequest, "an alias cannot look like an address", fix: "choose a name")
        }
        if let other = channels.values.first(where: { $0.record.alias == alias && $0.address != address }) {
            throw ControlError(
                .conflict, "the alias \(alias) is taken by \(other.address)",
                fix: "choose another alias, or rename that sensor first")
        }
    }

    /// `DELETE /v1/sensors/{sensor}`.
    public func unpair(sensor: String) async throws(ControlError) {
        let channel = try channel(named: sensor)
        await endSession(on: channel, reason: .stopped)
        channel.link.stop()
        channels[channel.address] = nil
        var record = channel.record
        // A virtual sensor stays available: `scan` lists it and `pair` links it again (until the
        // daemon restarts, which pairs every virtual sensor afresh).
        record.paired = false
        let saved = record
        try await mapStore { () async throws(StoreError) in try await self.dependencies.store.saveSensor(saved) }
        bus.publish(
            .link(
                LinkPayload(sensor: channel.label, address: "\(channel.address)", state: "stopped", detail: "unpaired"))
        )
        logger.info("sensor unpaired", metadata: ["ble.address": "\(channel.address)"])
    }

    /// `PATCH /v1/sensors/{sensor}`.
    public func updateSensor(_ sensor: String, _ update: SensorUpdate) async throws(ControlError) -> SensorInfo {
        let channel = try channel(named: sensor)
        var record = channel.record
        var athleteName = channel.state.withLock { $0.athleteName }
        if let alias = update.alias {
            try checkAlias(alias, for: channel.address)
            record.alias = alias.nilIfEmpty
        }
        if let athlete = update.athlete {
            if let name = athlete.nilIfEmpty {
                let found = try await mapStore { () async throws(StoreError) in try await self.findOrAddAthlete(name) }
                record.athleteID = found.id
                athleteName = found.name
            } else {
                record.athleteID = nil
                athleteName = nil
            }
        }
        let saved = record
        try await mapStore { () async throws(StoreError) in try await self.dependencies.store.saveSensor(saved) }
        channel.state.withLock { state in
            state.record = saved
            state.athleteName = athleteName
        }
        return channel.info()
    }

    /// `GET /v1/sessions`.
    public func sessions(
        athlete: String?, sensor: String?, profile: String?, live: Bool?, limit: Int?
    ) async throws(ControlError) -> [SessionInfo] {
        var filter = SessionFilter(profile: profile, limit: live == nil ? limit : nil)
        let store = dependencies.store
        if let athlete {
            let found = try await mapStore { () async throws(StoreError) in try await store.athlete(named: athlete) }
            guard let found else { return [] }
            filter.athleteID = found.id
        }
        if let sensor {
            if let channel = try? channel(named: sensor) {
                filter.sensor = channel.address
            } else if let address = BluetoothAddress(string: sensor) {
                let known = try await mapStore { () async throws(StoreError) in try await store.sensors() }
                filter.sensor = known.first { $0.address.octets == address.octets }?.address ?? address
            } else {
                throw ControlError(
                    .notFound, "no sensor is called \(sensor)", fix: "list them with `sportsensorctl sensors`")
            }
        }
        let frozen = filter
        var records = try await mapStore { () async throws(StoreError) in try await store.sessions(filter: frozen) }
        if let live {
            records = records.filter { ($0.endedAt == nil) == live }
            if let limit { records = Array(records.prefix(max(0, limit))) }
        }
        var result: [SessionInfo] = []
        for record in records { result.append(await sessionInfo(record)) }
        return result
    }

    /// `GET /v1/sessions/{id}`.
    public func session(id: String) async throws(ControlError) -> SessionInfo {
        let store = dependencies.store
        let record = try await mapStore { () async throws(StoreError) in try await store.session(idPrefix: id) }
        return await sessionInfo(record)
    }

    /// `POST /v1/sessions`.
    public func startSession(_ request: StartSessionRequest) async throws(ControlError) -> SessionInfo {
        let channel = try channel(named: request.sensor)
        var profile = dependencies.configuration.defaultProfile
        if let name = request.profile {
            guard let chosen = DetectionProfile(rawValue: name) else {
                throw ControlError(
                    .invalidRequest, "unknown profile '\(name)'",
                    fix: "use one of \(DetectionProfile.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            profile = chosen
        }
        let pipeline = try await begin(on: channel, profile: profile, athlete: request.athlete)
        return pipeline.info()
    }

    /// `POST /v1/sessions/{id}/stop`.
    public func stopSession(id: String) async throws(ControlError) -> SessionInfo {
        let store = dependencies.store
        let record = try await mapStore { () async throws(StoreError) in try await store.session(idPrefix: id) }
        guard let sensor = record.sensor, let channel = channels[sensor], channel.pipeline?.sessionID == record.idText
        else {
            throw ControlError(
                .conflict,
                "session \(record.idText) is not live"
                    + (record.endReason.map { " (it ended: \($0.rawValue))" } ?? ""),
                fix: "list live sessions with `sportsensorctl sessions --live`")
        }
        await endSession(on: channel, reason: .stopped)
        let ended = try await mapStore { () async throws(StoreError) in try await store.session(id: record.id) }
        return await sessionInfo(ended)
    }

    /// `GET /v1/sessions/{id}/events`.
    public func sessionEvents(id: String) async throws(ControlError) -> [DetectionPayload] {
        let store = dependencies.store
        let record = try await mapStore { () async throws(StoreError) in try await store.session(idPrefix: id) }
        let events = try await mapStore { () async throws(StoreError) in try await store.events(of: record.id) }
        let label = record.sensor.map { address in channels[address]?.label ?? "\(address)" } ?? ""
        return events.map { DetectionMapping.payload($0.event, session: record.idText, sensor: label) }
            .sorted { $0.t < $1.t }
    }

    /// `GET /v1/sessions/{id}/samples.csv`.
    public func sessionSamplesCSV(id: String) async throws(ControlError) -> AsyncThrowingStream<String, any Error> {
        let store = dependencies.store
        let record = try await mapStore { () async throws(StoreError) in try await store.session(idPrefix: id) }
        let samples = try await mapStore { () async throws(StoreError) in try await store.samples(of: record.id) }
        return AsyncThrowingStream { continuation in
            continuation.yield(SampleCSV.header + "\n")
            var chunk = ""
            for sample in samples {
                chunk += SampleCSV.line(sample.acceleration) + "\n"
                if chunk.utf8.count >= 64 * 1024 {
                    continuation.yield(chunk)
                    chunk = ""
                }
            }
            if !chunk.isEmpty { continuation.yield(chunk) }
            continuation.finish()
        }
    }

    /// `GET /v1/events`.
    public nonisolated func events() -> AsyncStream<GatewayEvent> {
        bus.subscribe()
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
