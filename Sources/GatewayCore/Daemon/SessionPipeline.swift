// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import Foundation
import Logging
import Metrics
import NIOConcurrencyHelpers
import SDUSensor
import SensorLinks
import SessionStore
import StoreFormats

extension SessionEndReason {
    /// No movement for the configured idle time.
    static let idleStop = SessionEndReason(rawValue: "idle")
}

/// One live session: the link's samples go through the profile's detector into the store (via
/// a `SessionRecorder`) and onto the event bus; once a second the session's counters are
/// published and the idle rule is checked.
///
/// `ingest(_:)` and `linkChanged(_:)` are called by the sensor's link consumer for every
/// notification; they never suspend and never block (a mutex around the detector state, the
/// recorder's own non-blocking buffer, the bus's drop-oldest buffers), and no lock is held while
/// they call the recorder or the bus. `record()` drives the recorder's flushes until
/// `finish(reason:)`; `watch()` ticks once a second and returns the end the idle rule asks for,
/// which the owner performs (the pipeline never ends itself).
public final class SessionPipeline<C: Clock>: Sendable where C.Duration == Duration {
    struct State: Sendable {
        var detector: ProfileDetector
        var summary: SessionSummaryAccumulator
        var milestones: SessionMilestones
        var activity = MotionActivity()
        var lastActivity: C.Instant
        var linkState: LinkState?
        var reportedQueueDepth = 0
        var reportedFlushes = 0
        var reportedFailures = 0
        var reportedDegraded = false
        var eventCounts: [String: Int] = [:]
        var samples: Int64 = 0
        var firstSample: (index: Int64, t: Double)?
        var lastSample: (index: Int64, t: Double)?
        var baseline: SensorLinkStatistics
        var latest: SensorLinkStatistics
        var finished = false
        /// The end the store could take neither in the database nor in a recovery file: the rows
        /// wait in the recorder's memory, and `finish` tries this end again.
        var pendingEnd: (reason: SessionEndReason, endedAt: Date)?
        /// The stored form of the notification being ingested: one buffer, reused.
        var stored: [IndexedSample] = []
        /// The notification's samples as the detector takes them, one block: one buffer, reused.
        var block: [AccelerationSample] = []
        /// Batches between the detector and the recorder (`ingest` records after unlocking).
        var recording = 0
        /// `finish`, waiting for `recording` to reach 0 before it closes the recorder.
        var recorded: CheckedContinuation<Void, Never>?
    }

    /// Fixed facts about the session.
    public let context: Context
    /// The session's id as text.
    public var sessionID: String { context.session.idText }
    private let recorder: SessionRecorder<C>
    private let bus: EventBus<PublishedEvent>
    private let clock: C
    private let started: C.Instant
    private let idleTimeout: Duration?
    private let linkStatistics: @Sendable () -> SensorLinkStatistics
    private let logger: Logger
    let state: NIOLockedValueBox<State>
    private let stopSignal: AsyncStream<Void>
    private let stopSink: AsyncStream<Void>.Continuation
    private let abandonSignal: AsyncStream<Void>
    private let abandonSink: AsyncStream<Void>.Continuation
    let metrics: GatewayMetrics

    /// A pipeline recording through `recorder` and publishing on `bus`.
    ///
    /// - Parameters:
    ///   - linkState: the sensor's link state when the session starts.
    ///   - linkBaseline: the link's counters when the session starts.
    ///   - idleTimeout: end the session after this long without movement; nil never.
    ///   - linkStatistics: reads the link's counters (for lost and malformed counts).
    public init(
        context: Context, recorder: SessionRecorder<C>, bus: EventBus<PublishedEvent>, clock: C, linkState: LinkState?,
        linkBaseline: SensorLinkStatistics = SensorLinkStatistics(), idleTimeout: Duration?, logger: Logger,
        metrics: GatewayMetrics, linkStatistics: @escaping @Sendable () -> SensorLinkStatistics
    ) {
        self.context = context
        self.recorder = recorder
        self.bus = bus
        self.clock = clock
        self.idleTimeout = idleTimeout
        self.linkStatistics = linkStatistics
        var logger = logger
        logger[metadataKey: "session.id"] = "\(context.session.idText)"
        logger[metadataKey: "ble.address"] = "\(context.address)"
        self.logger = logger
        let now = clock.now
        started = now
        state = NIOLockedValueBox(
            State(
                detector: context.settings.detector,
                summary: SessionSummaryAccumulator(profile: context.settings.profile),
                milestones: SessionMilestones(bests: context.bests), lastActivity: now, linkState: linkState,
                baseline: linkBaseline, latest: linkBaseline))
        (stopSignal, stopSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (abandonSignal, abandonSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.metrics = metrics
    }

    // MARK: Producer side (never suspends)

    /// Feeds one notification's samples: detection, recording, publishing.
    @_specialize(where C == ContinuousClock)
    public func ingest(_ batch: [IndexedSample]) {
        guard !batch.isEmpty else { return }
        let offset = context.timeOffset
        let now = clock.now
        let produced = state.withLockedValue { state -> ([IndexedSample], [DetectorEvent], [GatewayEvent])? in
            guard !state.finished else { return nil }
            // One buffer for every notification: emptied, its capacity kept.
            state.stored.removeAll(keepingCapacity: true)
            state.block.removeAll(keepingCapacity: true)
            var detected: [DetectorEvent] = []
            var moved = false
            for sample in batch {
                // Whole microseconds: what the store gives back exactly, so re-running detection
                // on the stored samples reproduces these events.
                var recorded = sample
                recorded.t = StoreTime.microseconds(sample.t - offset)
                // Samples taken before the session started belong to no session.
                guard recorded.t >= 0 else { continue }
                let acceleration = recorded.acceleration
                state.stored.append(recorded)
                state.summary.add(acceleration)
                if state.activity.observe(acceleration) { moved = true }
                state.block.append(acceleration)
                if state.firstSample == nil { state.firstSample = (recorded.index, recorded.t) }
                state.lastSample = (recorded.index, recorded.t)
            }
            // The notification's samples in one block: the detector computes over them together.
            state.block.withUnsafeBufferPointer { state.detector.process($0, into: &detected) }
            for event in detected {
                state.summary.add(event)
                state.eventCounts[event.kind.rawValue, default: 0] += 1
            }
            state.samples += Int64(state.stored.count)
            if moved || !detected.isEmpty { state.lastActivity = now }
            // A best beaten or a target reached by an event is announced with that event.
            let due = detected.isEmpty ? [] : self.milestones(&state)
            // Recorded after unlocking; `finish` waits for it before it closes the recorder.
            state.recording += 1
            return (state.stored, detected, due)
        }
        guard let produced else { return }
        let (stored, detected, announced) = produced
        // The buffer is shared only until this returns, so the next notification reuses it.
        if !stored.isEmpty { recorder.record(samples: stored) }
        for event in detected { emit(event) }
        let finishing = state.withLockedValue { state in
            state.recording -= 1
            guard state.recording == 0 else { return nil as CheckedContinuation<Void, Never>? }
            defer { state.recorded = nil }
            return state.recorded
        }
        finishing?.resume()
        for item in announced { bus.publish(item) }
    }

    /// Notes the sensor's new link state (shown in the counters).
    public func linkChanged(_ linkState: LinkState) {
        state.withLockedValue { $0.linkState = linkState }
    }

    private func emit(_ event: DetectorEvent) {
        let record = EventRecord(event)
        recorder.record(event: record)
        metrics.events(event.kind).increment()
        bus.publish(.detection(DetectionPayload(sessionId: sessionID, sensor: context.sensorLabel, event: record)))
    }

    // MARK: Running

    /// Flushes the recorder until `finish(reason:)` has closed the session (or at once when
    /// closing failed, leaving the rows to crash recovery). Never cancelled under a flush.
    public func record() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.recorder.run() }
            group.addTask { [abandonSignal] in
                for await _ in abandonSignal { return }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Publishes the session's counters and milestones once a second until `finish(reason:)`
    /// (returns nil) or until the idle rule fires: then it returns the end to perform, `idle`, or
    /// `link-lost` when the link was down the whole time. The owner ends the session with
    /// `finish`, outside this call, so the store writes that close it are never cancelled.
    public func watch() async -> SessionEndReason? {
        await withTaskGroup(of: SessionEndReason?.self) { ticking in
            ticking.addTask { await self.tick() }
            ticking.addTask { [stopSignal] in
                for await _ in stopSignal { return nil }
                return nil
            }
            let reason = await ticking.next() ?? nil
            ticking.cancelAll()
            return reason
        }
    }

    private func tick() async -> SessionEndReason? {
        while !Task.isCancelled {
            do { try await clock.sleep(for: .seconds(1)) } catch { return nil }
            let statistics = linkStatistics()
            let (idleFor, linkUp) = state.withLockedValue { state -> (Duration, Bool) in
                state.latest = statistics
                return (state.lastActivity.duration(to: clock.now), state.linkState?.isConnected == true)
            }
            recorder.update(counts: counts)
            reportStore(recorder.statistics)
            for milestone in state.withLockedValue({ milestones(&$0) }) { bus.publish(milestone) }
            bus.publish(.counters(counters()))
            if let idleTimeout, idleFor >= idleTimeout {
                let reason: SessionEndReason = linkUp ? .idleStop : .linkLost
                logger.info(
                    "no movement for \(idleTimeout): ending the session",
                    metadata: ["session.reason": "\(reason)"])
                return reason
            }
        }
        return nil
    }

    /// The stream counters the store keeps.
    public var counts: SessionCounts {
        state.withLockedValue { state in
            let baseline = state.baseline
            var rate: Double?
            if let first = state.firstSample, let last = state.lastSample, last.t > first.t + 1 {
                rate = Double(last.index - first.index) / (last.t - first.t)
            }
            return SessionCounts(
                received: state.samples, lost: Int64(max(0, state.latest.missingSamples - baseline.missingSamples)),
                malformed: Int64(max(0, state.latest.malformedNotifications - baseline.malformedNotifications)),
                sampleRate: rate)
        }
    }

    /// True while the store cannot take this session's rows (they wait in memory, retried).
    public var storeDegraded: Bool { recorder.statistics.isDegraded }

    /// The recorder's counters.
    public var storeStatistics: SessionRecorder<C>.Statistics { recorder.statistics }

    /// The live numbers `sportsensorctl tail` shows, with the summary so far and target progress.
    public func counters() -> SessionCounters {
        let elapsed = started.duration(to: clock.now).inSeconds
        let degraded = storeDegraded
        return state.withLockedValue { state in
            let summary = liveSummary(state)
            let profile = context.settings.profile
            let count = state.eventCounts[profile.eventKind.rawValue] ?? 0
            let progress = state.milestones.progress(summary)
            return SessionCounters(
                sessionId: sessionID, sensor: context.sensorLabel, athlete: context.athlete,
                profile: profile.rawValue, count: count, lastPeakG: summary.lastPeakG, maxPeakG: summary.maxPeakG,
                ratePerMinute: summary.durationS > 0 ? Double(count) * 60 / summary.durationS : 0,
                bestHeightM: summary.bestHeightM ?? summary.bestThrowHeightM,
                cadence: profile == .steps && count > 0 ? summary.cadenceSpm : nil,
                linkState: LinkState.wireName(state.linkState),
                elapsedSeconds: elapsed, summary: summary, targets: progress.isEmpty ? nil : progress,
                receivedSamples: Int(state.samples),
                expectedSamples: Int(state.samples)
                    + max(0, state.latest.missingSamples - state.baseline.missingSamples),
                storeDegraded: degraded)
        }
    }

    /// The summary so far, kcal for the athlete's body mass.
    public func summary() -> SessionSummary {
        state.withLockedValue { liveSummary($0) }
    }

    /// Replaces the targets this session counts towards (set while it records).
    public func setTargets(_ targets: [SummaryMetric: Double]) {
        state.withLockedValue { $0.milestones.targets = targets }
    }

    private func liveSummary(_ state: State) -> SessionSummary {
        let summary = state.summary.summary()
        return context.athlete == nil
            ? summary.withBodyMass(nil, note: "the session has no athlete: no body mass to count kcal with")
            : summary.withBodyMass(context.massKg)
    }

    /// The `record` and `target` items now due, each announced once per session.
    private func milestones(_ state: inout State) -> [GatewayEvent] {
        guard !state.milestones.bests.isEmpty || !state.milestones.targets.isEmpty else { return [] }
        return state.milestones.due(
            liveSummary(state), session: sessionID, sensor: context.sensorLabel, athlete: context.athlete)
    }

    /// The session as the control API shows it, live.
    public func info() -> SessionInfo {
        let counts = self.counts
        let eventCounts = state.withLockedValue { $0.eventCounts }
        let session = context.session
        return SessionInfo(
            id: session.idText, sensor: "\(context.address)", alias: context.alias, athlete: context.athlete,
            profile: context.settings.profile.rawValue, startedAt: session.startedAt, endedAt: nil, endReason: nil,
            isLive: true,
            eventCounts: eventCounts, samples: Int(counts.received), lostSamples: Int(counts.lost),
            malformedNotifications: Int(counts.malformed), sampleRate: counts.sampleRate,
            storeDegraded: storeDegraded)
    }

    /// Ends the session: the detector's pending events are recorded, the recorder flushes and
    /// closes the session with `reason`, `run()` returns, and the ended session is published.
    /// Returns nil when the session had already been finished. When the store could take the end
    /// nowhere (not even in a recovery file), calling it again retries that end, with its first
    /// reason and time.
    public func finish(reason: SessionEndReason, endedAt: Date = Date()) async throws(StoreError) -> SessionRecord? {
        let first = state.withLockedValue {
            state -> (reason: SessionEndReason, endedAt: Date, events: [DetectorEvent])? in
            if let retry = state.pendingEnd { return (retry.reason, retry.endedAt, []) }
            guard !state.finished else { return nil }
            state.finished = true
            let pending = state.detector.finish()
            for event in pending {
                state.summary.add(event)
                state.eventCounts[event.kind.rawValue, default: 0] += 1
            }
            return (reason, endedAt, pending)
        }
        guard let first else { return nil }
        let (endReason, endTime, pending) = first
        // A batch between the detector and the recorder goes in before the recorder closes.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state in
                guard state.recording > 0 else { return true }
                state.recorded = continuation
                return false
            }
            if now { continuation.resume() }
        }
        for event in pending { emit(event) }
        let statistics = linkStatistics()
        state.withLockedValue { $0.latest = statistics }
        stopSink.yield()
        let record: SessionRecord
        do {
            record = try await recorder.finish(reason: endReason, endedAt: endTime, counts: counts)
        } catch {
            abandonSink.yield()
            let spilled = recorder.statistics.spilledSamples
            if spilled > 0 { metrics.storeSpilledSamples.increment(by: spilled) }
            withdrawStoreReport()
            // Spilled: the next start imports the end. Otherwise the rows wait here for a retry.
            state.withLockedValue { $0.pendingEnd = error.code == .spilled ? nil : (endReason, endTime) }
            throw error
        }
        state.withLockedValue { $0.pendingEnd = nil }
        withdrawStoreReport()
        logger.info("session ended", metadata: ["session.reason": "\(endReason)"])
        var info = self.info()
        info.isLive = false
        info.endedAt = record.endedAt
        info.endReason = endReason.rawValue
        // As the stored session reads: its own count of samples not kept (a retried end's
        // included), and no store state, which only a live session has.
        info.unsavedSamples = Int(clamping: record.unsavedSamples)
        info.storeDegraded = nil
        bus.publish(.session(info))
        return record
    }

    /// Samples in the recorder's memory: after a failed end, those neither saved nor spilled.
    public var unsavedSamples: Int { recorder.statistics.bufferedSamples }
}
