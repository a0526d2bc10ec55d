// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayCore
import NIOConcurrencyHelpers

/// A `GatewayControl` for control API tests: it records every call with its arguments, answers
/// with canned models (``Fixtures`` by default), throws a chosen `ControlError` when told to,
/// and has an event stream the test feeds.
///
/// ```swift
/// let control = FakeGatewayControl()
/// control.failure = ControlError(.notFound, "no sensor is called anna")
/// // ... a request now answers 404 with that body
/// control.emit(.link(...))              // reaches every subscriber of events()
/// await control.waitForSubscribers(0)   // the subscription ended
/// ```
///
/// Thread-safe: all state sits behind one lock.
public final class FakeGatewayControl: GatewayControl, Sendable {
    /// One call the fake received, with its arguments.
    public enum Call: Hashable, Sendable {
        case status
        case adapters
        case scan(seconds: Double)
        case sensors
        case pair(PairRequest)
        case unpair(sensor: String)
        case updateSensor(String, SensorUpdate)
        case sessions(athlete: String?, sensor: String?, profile: String?, live: Bool?, limit: Int?)
        case session(id: String)
        case startSession(StartSessionRequest)
        case stopSession(id: String)
        case sessionSamplesCSV(id: String)
        case sessionEventPages(id: String)
        case reanalyze(id: String, ReanalyzeRequest)
        case importSession(ImportRequest)
        case prune(PruneRequest)
        case events
        case sessionSummary(id: String)
        case athletes
        case addAthlete(AthleteRequest)
        case updateAthlete(String, AthleteRequest)
        case removeAthlete(String, sessions: String?)
        case personalBests(athlete: String)
        case teams
        case addTeam(TeamRequest)
        case updateTeam(String, TeamRequest)
        case removeTeam(String)
        case leaderboard(metric: String, period: String?, team: String?)
        case targets
        case setTarget(TargetRequest)
        case removeTarget(id: String)
        case replicationStatus
    }

    /// The answers the fake gives.
    public struct Answers: Sendable {
        /// `status()`.
        public var status = Fixtures.status
        /// `adapters()`.
        public var adapters = [Fixtures.adapter]
        /// `scan(seconds:)`.
        public var discoveries = Fixtures.discoveries
        /// `sensors()`, and `pair`/`updateSensor` answer the first.
        public var sensors = [Fixtures.sensor]
        /// `sessions(...)`, and `session`/`startSession`/`stopSession` answer the first.
        public var sessions = [Fixtures.session]
        /// What `sessionEventPages(id:)` gives, in pages of `eventPageSize`.
        public var sessionEvents = Fixtures.events
        /// The chunks `sessionSamplesCSV(id:)` streams.
        public var csvChunks = Fixtures.csvChunks
        /// When set, the CSV stream fails with it after its chunks.
        public var csvStreamFailure: ControlError?
        /// `reanalyze(id:_:)` answers the first session with these events.
        public var reanalyzedEvents = Fixtures.events
        /// `prune(_:)`.
        public var pruneReport = PruneReport(
            sessionsDeleted: 2, sessionsAffected: 2, chunksDeleted: 5, samplesDeleted: 40_960, eventsDeleted: 31)
        /// `replicationStatus()`.
        public var replication = ReplicationStatusInfo(
            configured: true, state: "backing-off", gatewayId: "hall-a",
            target: "postgres://sportsensor:***@db:5432/club?sslmode=verify-full", outboxItems: 1200,
            outboxLimit: 5_000_000, lagSeconds: 42.5, sentItems: 10, sentSamples: 0,
            lastError: "cannot reach PostgreSQL at postgres://sportsensor:***@db:5432/club?sslmode=verify-full: check "
                + "the server runs", lastErrorCode: "unreachable")

        /// The default answers.
        public init() {}
    }

    private struct State {
        var calls: [Call] = []
        var answers = Answers()
        var failure: ControlError?
        var subscribers: [UUID: AsyncStream<PublishedEvent>.Continuation] = [:]
        var subscriptionsEnded = 0
    }

    private let state = NIOLockedValueBox(State())

    /// A fake with the default answers.
    public init() {}

    /// Events a page of `sessionEventPages(id:)` holds.
    public static let eventPageSize = 100

    /// Every call so far, in order.
    public var calls: [Call] { state.withLockedValue { $0.calls } }

    /// The answers; change them before the request.
    public var answers: Answers {
        get { state.withLockedValue { $0.answers } }
        set { state.withLockedValue { $0.answers = newValue } }
    }

    /// When set, every method (but `events()`) records its call and throws this.
    public var failure: ControlError? {
        get { state.withLockedValue { $0.failure } }
        set { state.withLockedValue { $0.failure = newValue } }
    }

    /// Open subscriptions of `events()`.
    public var subscriberCount: Int { state.withLockedValue { $0.subscribers.count } }

    /// Subscriptions that ended (the subscriber stopped iterating or dropped the stream).
    public var subscriptionsEnded: Int { state.withLockedValue { $0.subscriptionsEnded } }

    /// Sends `event` to every open subscription.
    public func emit(_ event: GatewayEvent) {
        let published = PublishedEvent(event)
        let continuations = state.withLockedValue { Array($0.subscribers.values) }
        for continuation in continuations { continuation.yield(published) }
    }

    /// Ends every open subscription from the gateway's side.
    public func finishEvents() {
        let continuations = state.withLockedValue { Array($0.subscribers.values) }
        for continuation in continuations { continuation.finish() }
    }

    /// Waits (polling every 5 ms, at most `timeout`) until exactly `count` subscriptions are
    /// open; returns whether that happened.
    @discardableResult
    public func waitForSubscribers(_ count: Int, timeout: Duration = .seconds(300)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if subscriberCount == count { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return subscriberCount == count
    }

    func record<T>(_ call: Call, _ answer: (Answers) -> T) throws(ControlError) -> T {
        let (failure, answers) = state.withLockedValue { state in
            state.calls.append(call)
            return (state.failure, state.answers)
        }
        if let failure { throw failure }
        return answer(answers)
    }

    /// Every area of the control API served by this fake.
    public var services: GatewayServices { GatewayServices(self) }

    // MARK: GatewayControl

    public func status() async throws(ControlError) -> GatewayStatus { try record(.status) { $0.status } }

    public func adapters() async throws(ControlError) -> [AdapterInfo] { try record(.adapters) { $0.adapters } }

    public func scan(seconds: Double) async throws(ControlError) -> [DiscoveryInfo] {
        try record(.scan(seconds: seconds)) { $0.discoveries }
    }

    public func sensors() async throws(ControlError) -> [SensorInfo] { try record(.sensors) { $0.sensors } }

    public func pair(_ request: PairRequest) async throws(ControlError) -> SensorInfo {
        try record(.pair(request)) { $0.sensors[0] }
    }

    public func unpair(sensor: String) async throws(ControlError) { try record(.unpair(sensor: sensor)) { _ in () } }

    public func updateSensor(_ sensor: String, _ update: SensorUpdate) async throws(ControlError) -> SensorInfo {
        try record(.updateSensor(sensor, update)) { $0.sensors[0] }
    }

    public func sessions(
        athlete: String?, sensor: String?, profile: String?, live: Bool?, limit: Int?
    ) async throws(ControlError) -> [SessionInfo] {
        try record(.sessions(athlete: athlete, sensor: sensor, profile: profile, live: live, limit: limit)) {
            $0.sessions
        }
    }

    public func session(id: String) async throws(ControlError) -> SessionInfo {
        try record(.session(id: id)) { $0.sessions[0] }
    }

    public func startSession(_ request: StartSessionRequest) async throws(ControlError) -> SessionInfo {
        try record(.startSession(request)) { $0.sessions[0] }
    }

    public func stopSession(id: String) async throws(ControlError) -> SessionInfo {
        try record(.stopSession(id: id)) { $0.sessions[0] }
    }

    public func sessionSamplesCSV(id: String) async throws(ControlError) -> AsyncThrowingStream<String, any Error> {
        let answers = try record(.sessionSamplesCSV(id: id)) { $0 }
        return AsyncThrowingStream { continuation in
            for chunk in answers.csvChunks { continuation.yield(chunk) }
            continuation.finish(throwing: answers.csvStreamFailure)
        }
    }

    public func sessionEventPages(
        id: String
    ) async throws(ControlError)
        -> AsyncThrowingStream<[EventRecord], any Error>
    {
        let events = try record(.sessionEventPages(id: id)) { $0.sessionEvents }
        return AsyncThrowingStream { continuation in
            for start in stride(from: 0, to: events.count, by: Self.eventPageSize) {
                continuation.yield(Array(events[start..<min(start + Self.eventPageSize, events.count)]))
            }
            continuation.finish()
        }
    }

    public func reanalyze(id: String, _ request: ReanalyzeRequest) async throws(ControlError) -> ReanalyzeResult {
        try record(.reanalyze(id: id, request)) {
            ReanalyzeResult(session: $0.sessions[0], events: $0.reanalyzedEvents, previousCount: 3)
        }
    }

    public func importSession(_ request: ImportRequest) async throws(ControlError) -> ImportResult {
        try record(.importSession(request)) { ImportResult(session: $0.sessions[0], addedAthlete: false) }
    }

    public func prune(_ request: PruneRequest) async throws(ControlError) -> PruneReport {
        try record(.prune(request)) { $0.pruneReport }
    }

    public func replicationStatus() async throws(ControlError) -> ReplicationStatusInfo {
        try record(.replicationStatus) { $0.replication }
    }

    public func events() throws(ControlError) -> AsyncStream<PublishedEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<PublishedEvent>.makeStream()
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { state in
                if state.subscribers.removeValue(forKey: id) != nil { state.subscriptionsEnded += 1 }
            }
        }
        state.withLockedValue { state in
            state.calls.append(.events)
            state.subscribers[id] = continuation
        }
        return stream
    }

    /// Canned models with every field set, so a round trip checks each one.
    public enum Fixtures {
        /// A fixed instant (2025-03-01T10:00:00Z).
        public static let startedAt = Date(timeIntervalSince1970: 1_740_823_200)
        /// `hci0`, up.
        public static let adapter = AdapterInfo(name: "hci0", address: "00:1A:7D:DA:71:13", up: true)
        /// A status with one adapter.
        public static let status = GatewayStatus(
            version: "0.1.0-test", uptimeSeconds: 42.5, stateDirectory: "/var/lib/sportsensord", storeHealthy: true,
            adapters: [adapter], sensorsPaired: 2, sensorsConnected: 1, liveSessions: 1)
        /// An SDU sensor and a phone.
        public static let discoveries = [
            DiscoveryInfo(
                address: "FC:97:8B:75:10:AB", addressType: "random", name: "BC05FC978B7510AB", rssi: -61,
                isSduSensor: true),
            DiscoveryInfo(
                address: "4C:11:22:33:44:55", addressType: "public", name: nil, rssi: nil, isSduSensor: false),
        ]
        /// A paired, connected sensor with a live session.
        public static let sensor = SensorInfo(
            address: "FC:97:8B:75:10:AB", addressType: "random", alias: "anna-left", name: "BC05FC978B7510AB",
            athlete: "anna", linkState: .connected, lastSeen: startedAt, isVirtual: false,
            liveSessionId: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        /// A live jump session.
        public static let session = SessionInfo(
            id: "6F9619FF-8B86-D011-B42D-00C04FC964FF", sensor: "FC:97:8B:75:10:AB", alias: "anna-left",
            athlete: "anna", profile: "jump", startedAt: startedAt, endedAt: nil, endReason: nil, isLive: true,
            eventCounts: ["jump": 3], samples: 12_000, lostSamples: 6, malformedNotifications: 1, sampleRate: 100.2)
        /// A jump and a hit (values at the record's decimals, so they survive encoding unchanged).
        public static let events = [
            EventRecord(
                type: "jump", t: 12.31, takeoff: 12.31, landing: 12.83, flightS: 0.52, heightM: 0.332),
            EventRecord(type: "hit", t: 14.02, peakG: 1.999, saturated: true, intensityG: 2.7),
        ]
        /// The same events as the event stream carries them.
        public static let detections = events.map {
            DetectionPayload(sessionId: session.id, sensor: "anna-left", event: $0)
        }
        /// A CSV in three chunks.
        public static let csvChunks = [
            "t,x_g,y_g,z_g\n", "0.000,0.01,-0.98,0.12\n0.010,0.02,-0.97,0.11\n", "0.020,0.02,-0.99,0.10\n",
        ]
        /// Counters of the live session.
        public static let counters = SessionCounters(
            sessionId: session.id, sensor: "anna-left", athlete: "anna", profile: "jump", count: 3, lastPeakG: nil,
            maxPeakG: nil, ratePerMinute: 4.5, bestHeightM: 0.3316, cadence: nil, linkState: .connected,
            elapsedSeconds: 40)
        /// A link that is retrying.
        public static let link = LinkPayload(
            sensor: "anna-left", address: "FC:97:8B:75:10:AB", state: .retrying, detail: "in 4 s, attempt 3")
    }
}
