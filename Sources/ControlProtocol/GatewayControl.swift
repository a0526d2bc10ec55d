// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import Detection

/// What the control API can ask of the running gateway. `ControlAPI` maps each HTTP route to one
/// method (Docs/API.md); the daemon implements it over its services; tests implement it with
/// fakes. Methods throw `ControlError`, whose code decides the HTTP status.
public protocol GatewayControl: Sendable {
    /// `GET /v1/status`.
    func status() async throws(ControlError) -> GatewayStatus
    /// `GET /v1/adapters`.
    func adapters() async throws(ControlError) -> [AdapterInfo]
    /// `POST /v1/scan?seconds=N`: scan for `seconds` (1–60) and return what was seen, SDU sensors first.
    func scan(seconds: Double) async throws(ControlError) -> [DiscoveryInfo]
    /// `GET /v1/sensors`.
    func sensors() async throws(ControlError) -> [SensorInfo]
    /// `POST /v1/sensors`: pair a sensor (the daemon starts its link).
    func pair(_ request: PairRequest) async throws(ControlError) -> SensorInfo
    /// `DELETE /v1/sensors/{sensor}` (alias or address): unpair; a live session on it ends first.
    func unpair(sensor: String) async throws(ControlError)
    /// `PATCH /v1/sensors/{sensor}`: rename or bind an athlete.
    func updateSensor(_ sensor: String, _ update: SensorUpdate) async throws(ControlError) -> SensorInfo
    /// `GET /v1/sessions?athlete=&sensor=&profile=&live=true|false&limit=N`.
    func sessions(
        athlete: String?, sensor: String?, profile: String?, live: Bool?, limit: Int?
    )
        async throws(ControlError) -> [SessionInfo]
    /// `GET /v1/sessions/{id}` (UUID or unique prefix).
    func session(id: String) async throws(ControlError) -> SessionInfo
    /// `POST /v1/sessions`: start a session.
    func startSession(_ request: StartSessionRequest) async throws(ControlError) -> SessionInfo
    /// `POST /v1/sessions/{id}/stop` (UUID or unique prefix).
    func stopSession(id: String) async throws(ControlError) -> SessionInfo
    /// `GET /v1/sessions/{id}/samples.csv`: the samples in the interchange CSV, as text chunks.
    func sessionSamplesCSV(id: String) async throws(ControlError) -> AsyncThrowingStream<String, any Error>
    /// `GET /v1/sessions/{id}/events`: the detected events in time order (ties in recording
    /// order), a page at a time; the API's JSON and the dashboard's downloads are written from it
    /// as the client reads.
    func sessionEventPages(id: String) async throws(ControlError) -> AsyncThrowingStream<[EventRecord], any Error>
    /// `POST /v1/sessions/{id}/reanalyze`: detection again over the stored samples, saved; a live
    /// session is refused (409).
    func reanalyze(id: String, _ request: ReanalyzeRequest) async throws(ControlError) -> ReanalyzeResult
    /// `POST /v1/sessions/import`: store a recording the client decoded as a finished session.
    func importSession(_ request: ImportRequest) async throws(ControlError) -> ImportResult
    /// `POST /v1/prune`: delete finished sessions started before a time, or only their samples.
    func prune(_ request: PruneRequest) async throws(ControlError) -> PruneReport
    /// `GET /v1/events`: every event from now on, until the subscriber stops iterating. A slow
    /// subscriber loses the oldest buffered items, never blocks the gateway. Each item carries its
    /// payload encoded once, when it was published.
    func events() throws(ControlError) -> AsyncStream<PublishedEvent>
    /// `GET /v1/sessions/{id}/summary`: the stored summary (computed when the session ended, or
    /// by `reanalyze`); a live session's summary so far.
    func sessionSummary(id: String) async throws(ControlError) -> SessionSummary
    /// `GET /v1/athletes`.
    func athletes() async throws(ControlError) -> [AthleteInfo]
    /// `POST /v1/athletes`.
    func addAthlete(_ request: AthleteRequest) async throws(ControlError) -> AthleteInfo
    /// `PATCH /v1/athletes/{athlete}` (name).
    func updateAthlete(_ athlete: String, _ request: AthleteRequest) async throws(ControlError) -> AthleteInfo
    /// `DELETE /v1/athletes/{athlete}?sessions=keep|delete`: an athlete with sessions needs one.
    func removeAthlete(_ athlete: String, sessions: String?) async throws(ControlError) -> AthleteRemoval
    /// `GET /v1/athletes/{athlete}/bests`.
    func personalBests(athlete: String) async throws(ControlError) -> [PersonalBest]
    /// `GET /v1/teams`.
    func teams() async throws(ControlError) -> [TeamInfo]
    /// `POST /v1/teams`.
    func addTeam(_ request: TeamRequest) async throws(ControlError) -> TeamInfo
    /// `PATCH /v1/teams/{team}` (name).
    func updateTeam(_ team: String, _ request: TeamRequest) async throws(ControlError) -> TeamInfo
    /// `DELETE /v1/teams/{team}`: the athletes stay.
    func removeTeam(_ team: String) async throws(ControlError)
    /// `GET /v1/leaderboards/{metric}?period=&team=`.
    func leaderboard(metric: String, period: String?, team: String?) async throws(ControlError) -> [LeaderboardRow]
    /// `GET /v1/targets`.
    func targets() async throws(ControlError) -> [TargetInfo]
    /// `POST /v1/targets`.
    func setTarget(_ request: TargetRequest) async throws(ControlError) -> TargetInfo
    /// `DELETE /v1/targets/{id}`.
    func removeTarget(id: String) async throws(ControlError)
    /// `GET /v1/replication`: replication's state, lag and last error.
    func replicationStatus() async throws(ControlError) -> ReplicationStatusInfo
}

/// A control request that failed: the code picks the HTTP status, the message and fix go to
/// the client verbatim.
public struct ControlError: CodedError, Hashable, Sendable {
    /// What kind of failure, with its HTTP status.
    public struct Code: NamedCode {
        /// The stable name in error bodies.
        public let name: String
        /// The HTTP status it maps to.
        public let httpStatus: Int

        /// 404: no such sensor or session.
        public static let notFound = Code(name: "not-found", httpStatus: 404)
        /// 409: the state forbids it (already paired, session already live, ambiguous prefix).
        public static let conflict = Code(name: "conflict", httpStatus: 409)
        /// 400: the request itself is wrong.
        public static let invalidRequest = Code(name: "invalid-request", httpStatus: 400)
        /// 401: the TCP listener needs a bearer token and the request has none, or a wrong one.
        public static let unauthorized = Code(name: "unauthorized", httpStatus: 401)
        /// 403: the request is understood and authenticated but not allowed.
        public static let forbidden = Code(name: "forbidden", httpStatus: 403)
        /// 503: a dependency is unavailable (no adapter, store full or broken).
        public static let unavailable = Code(name: "unavailable", httpStatus: 503)
        /// 500: a bug.
        public static let `internal` = Code(name: "internal", httpStatus: 500)
    }

    /// What kind of failure.
    public var code: Code
    /// What went wrong.
    public var message: String
    /// What to do about it.
    public var fix: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, fix: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
    }

    /// The error body sent to the client.
    public var body: ControlErrorBody { ControlErrorBody(code: code.name, error: message, fix: fix) }

    /// `message: fix`, the two fields of the error body, in place of the shared `code: message`
    /// form (the fix travels apart from the message on the wire).
    public var description: String { fix.map { "\(message): \($0)" } ?? message }
}
