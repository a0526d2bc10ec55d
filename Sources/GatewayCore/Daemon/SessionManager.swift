// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import Foundation
import Logging
import NIOConcurrencyHelpers
import SessionStore
import StoreFormats

/// Starts and ends the sessions of the paired sensors: one `SessionPipeline` per live session.
///
/// A start takes the channel's session slot before it writes anything (``SensorChannel/reserveSession()``),
/// so concurrent starts on one sensor give exactly one session; the others are refused at once.
final class SessionManager<C: Clock>: Sendable where C.Duration == Duration {
    private let dependencies: GatewayDependencies<C>
    private let registry: SensorRegistry<C>
    private let bus: EventBus<PublishedEvent>
    private let metrics: GatewayMetrics
    private let health: StoreHealth
    private let spawn: @Sendable (@escaping @Sendable () async -> Void) -> Void
    private let logger: Logger
    /// Sessions whose end the store could take nowhere: retried until it can (`retryEnds`).
    private let unfinished = NIOLockedValueBox<(pipelines: [SessionPipeline<C>], closing: Bool)>(([], false))
    /// How often an end the store could not take is tried again.
    static var endRetryInterval: Duration { .seconds(2) }

    /// - Parameter spawn: runs a pipeline for as long as the gateway runs.
    init(
        dependencies: GatewayDependencies<C>, registry: SensorRegistry<C>, bus: EventBus<PublishedEvent>,
        metrics: GatewayMetrics, health: StoreHealth,
        spawn: @escaping @Sendable (@escaping @Sendable () async -> Void) -> Void
    ) {
        self.dependencies = dependencies
        self.registry = registry
        self.bus = bus
        self.metrics = metrics
        self.health = health
        self.spawn = spawn
        self.logger = dependencies.logger
    }

    /// Starts a session on `channel` with `profile`; `athlete` (found or added by name) replaces
    /// the sensor's own athlete for this session.
    func begin(
        on channel: SensorChannel<C>, profile: DetectionProfile, athlete: Athlete?
    ) async throws(ControlError) -> SessionPipeline<C> {
        let id = UUID()
        if let other = channel.reserveSession(id: id) {
            throw ControlError(
                .conflict, "\(channel.label) already records session \(other)",
                fix: "stop it first with `sportsensorctl stop \(other.prefix(8))`")
        }
        do throws(ControlError) {
            let pipeline = try await makePipeline(on: channel, id: id, profile: profile, athlete: athlete)
            channel.completeReservation(with: pipeline)
            metrics.liveSessions.record(registry.liveCount)
            spawn { await pipeline.record() }
            spawn { [weak self] in
                // The idle rule returns the end to perform; the pipeline never ends itself.
                guard let reason = await pipeline.watch() else { return }
                await self?.end(on: channel, reason: reason, only: pipeline)
            }
            bus.publish(.session(pipeline.info()))
            logger.info(
                "session started",
                metadata: [
                    "session.id": "\(pipeline.sessionID)", "ble.address": "\(channel.address)",
                    "session.profile": "\(profile.rawValue)",
                ])
            return pipeline
        } catch {
            channel.completeReservation(with: nil)
            throw error
        }
    }

    private func makePipeline(
        on channel: SensorChannel<C>, id: UUID, profile: DetectionProfile, athlete: Athlete?
    ) async throws(ControlError) -> SessionPipeline<C> {
        let (record, sensorAthlete) = channel.state.withLockedValue { ($0.record, $0.athleteName) }
        var settings = DetectionSettings(profile: profile, parameters: dependencies.configuration.detection)
        let sessionAthlete = athlete?.id ?? record.athleteID
        let store = dependencies.store
        // A hit's side needs the athlete's racket hand (Docs/DETECTION.md, "Side"); the session keeps it.
        if profile == .tableTennis, let sessionAthlete {
            let hand = try await health.mapStore { () async throws(StoreError) in
                try await store.athlete(id: sessionAthlete)?.racketHand
            }
            if let hand { settings.parameters.hit.racketHand = hand == .right ? 1 : -1 }
        }
        let startInstant = dependencies.clock.now
        let new = NewSession(id: id, sensor: channel.address, athleteID: sessionAthlete, settings: settings)
        let session = try await health.mapStore { () async throws(StoreError) in try await store.createSession(new) }
        let recorder = try await health.mapStore { () async throws(StoreError) in
            try await store.recorder(
                for: session, configuration: self.dependencies.recorderConfiguration, clock: self.dependencies.clock,
                logger: self.logger)
        }
        let link = channel.link
        // What records and targets are measured against: the athlete's bests before this session.
        let athleteID = new.athleteID
        let (massKg, bests, targets) = try await health.mapStore {
            () async throws(StoreError) -> (Double?, [SummaryMetric: LeaderboardEntry], [SummaryMetric: Double]) in
            guard let athleteID else {
                return (nil, [:], try await store.effectiveTargets(session: session.id, athleteID: nil))
            }
            var bests: [SummaryMetric: LeaderboardEntry] = [:]
            for (metric, best) in try await store.personalBests(athleteID: athleteID) { bests[metric] = best }
            return (
                try await store.athlete(id: athleteID)?.massKg, bests,
                try await store.effectiveTargets(session: session.id, athleteID: athleteID)
            )
        }
        let context = SessionPipeline<C>.Context(
            session: session, address: channel.address, sensorLabel: channel.label, alias: record.alias,
            athlete: athlete?.name ?? sensorAthlete, settings: settings,
            timeOffset: link.origin.duration(to: startInstant).inSeconds, massKg: massKg, bests: bests)
        let pipeline = SessionPipeline(
            context: context, recorder: recorder, bus: bus, clock: dependencies.clock, linkState: channel.linkState,
            linkBaseline: link.statistics, idleTimeout: dependencies.configuration.idleStop, logger: logger,
            metrics: metrics, linkStatistics: { link.statistics })
        pipeline.setTargets(targets)
        return pipeline
    }

    /// Ends the session on `channel`, if one records. Returns nil when its end is in the store;
    /// else the store's error, logged and marking the store unhealthy: `spilled` when the rows
    /// the database could not take are in a recovery file (see `SessionRecorder`), any other code
    /// when they are only in memory. With `only` (the idle rule's end, which a stop may have
    /// overtaken), ends nothing unless that pipeline is the one recording.
    @discardableResult
    func end(
        on channel: SensorChannel<C>, reason: SessionEndReason, only: SessionPipeline<C>? = nil
    ) async -> StoreError? {
        guard let pipeline = channel.takePipeline(only: only) else { return nil }
        metrics.liveSessions.record(registry.liveCount)
        do {
            if let record = try await pipeline.finish(reason: reason) {
                // The live summary saw every sample and event the store now holds.
                try await dependencies.store.saveSummary(pipeline.summary(), of: record.id)
            }
            return nil
        } catch {
            health.record(healthy: false)
            logger.error(
                "cannot close the session in the store",
                metadata: [
                    "session.id": "\(pipeline.sessionID)", "error": "\(error)",
                    "store.unsaved_samples": "\(pipeline.unsavedSamples)",
                ])
            if error.code != .spilled {
                let first = unfinished.withLockedValue { state -> Bool in
                    state.pipelines.append(pipeline)
                    return state.pipelines.count == 1
                }
                if first { spawn { await self.retryEndsUntilSaved() } }
            }
            return error
        }
    }

    /// The samples a session whose end the store could take nowhere holds only in memory (and
    /// those its recorder dropped): lost if the process ends now. Nil for any other session.
    func unsavedSamples(of sessionID: String) -> Int64? {
        guard let pipeline = unfinished.withLockedValue({ $0.pipelines.first { $0.sessionID == sessionID } }) else {
            return nil
        }
        let statistics = pipeline.storeStatistics
        return Int64(statistics.bufferedSamples) + statistics.droppedSamples
    }

    /// Tries the unsaved ends again every `endRetryInterval` until none is left or the gateway
    /// shuts down (which tries them a last time itself).
    private func retryEndsUntilSaved() async {
        while !unfinished.withLockedValue({ $0.pipelines.isEmpty || $0.closing }) {
            do { try await dependencies.clock.sleep(for: Self.endRetryInterval) } catch { return }
            if unfinished.withLockedValue({ $0.closing }) { return }
            _ = await retryEnds()
        }
    }

    /// Tries once more to store each end the store could take nowhere; returns the errors of those
    /// it still cannot take (their samples are lost if the process ends now). `closing` stops the
    /// periodic retry: shutdown makes the last attempt.
    func retryEnds(closing: Bool = false) async -> [StoreError] {
        let pending = unfinished.withLockedValue { state in
            if closing { state.closing = true }
            return state.pipelines
        }
        var failures: [StoreError] = []
        for pipeline in pending {
            do {
                var unsaved: Int64 = 0
                if let record = try await pipeline.finish(reason: .stopped) {
                    try? await dependencies.store.saveSummary(pipeline.summary(), of: record.id)
                    unsaved = record.unsavedSamples
                }
                unfinished.withLockedValue { state in state.pipelines.removeAll { $0 === pipeline } }
                // Samples the recorder's memory bound dropped earlier stay lost: say so, and how many.
                logger.notice(
                    unsaved == 0
                        ? "the store took the session's end once it had room again: nothing was lost"
                        : "the store took the session's end once it had room again; samples dropped before are lost",
                    metadata: ["session.id": "\(pipeline.sessionID)", "store.unsaved_samples": "\(unsaved)"])
            } catch {
                if error.code == .spilled {
                    unfinished.withLockedValue { state in state.pipelines.removeAll { $0 === pipeline } }
                }
                failures.append(error)
                // A spilled end lost nothing: the recorder logged its recovery file, imported next start.
                if closing, error.code != .spilled {
                    logger.critical(
                        "sportsensord stops with samples that could be neither saved nor spilled: they are lost",
                        metadata: [
                            "session.id": "\(pipeline.sessionID)",
                            "store.unsaved_samples": "\(pipeline.unsavedSamples)",
                        ])
                }
            }
        }
        if failures.isEmpty, !pending.isEmpty { health.record(healthy: true) }
        return failures
    }

    /// Starts a session on a sensor that began to move (`[gateway] auto_start`), with the
    /// default profile.
    func autoStart(on channel: SensorChannel<C>) async {
        defer { channel.state.withLockedValue { $0.autoStartPending = false } }
        do {
            let pipeline = try await begin(
                on: channel, profile: dependencies.configuration.defaultProfile, athlete: nil)
            logger.info(
                "auto-started a session: the sensor moved",
                metadata: ["session.id": "\(pipeline.sessionID)", "ble.address": "\(channel.address)"])
        } catch {
            logger.warning("cannot auto-start a session", metadata: ["error": "\(error)"])
        }
    }
}
