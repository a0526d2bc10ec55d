// SPDX-License-Identifier: GPL-2.0-or-later
import Detection

/// What the control API asks of the live gateway: adapters, sensors and their links, sessions
/// (live and stored, with their samples, events and summaries), the event stream, replication.
/// `ControlAPI` maps each HTTP route to one method (Docs/API.md); methods throw `ControlError`,
/// whose code decides the HTTP status.
public protocol LiveControl: Sendable {
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
    /// `GET /v1/events`: every event from now on, until the subscriber stops iterating. A slow
    /// subscriber loses the oldest buffered items, never blocks the gateway. Each item carries its
    /// payload encoded once, when it was published.
    func events() throws(ControlError) -> AsyncStream<PublishedEvent>
    /// `GET /v1/sessions/{id}/summary`: the stored summary (computed when the session ended, or
    /// by `reanalyze`); a live session's summary so far.
    func sessionSummary(id: String) async throws(ControlError) -> SessionSummary
    /// `GET /v1/replication`: replication's state, lag and last error.
    func replicationStatus() async throws(ControlError) -> ReplicationStatusInfo
}
