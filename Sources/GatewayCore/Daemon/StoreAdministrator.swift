// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import Foundation
import Logging
import SDUSensor
import SessionStore
import StoreFormats

/// Store writes a client asks of the running daemon (it is the only writer of its store), served
/// from the store: re-analysis, imports and pruning. The store refuses a live session's writes
/// itself; `sessions` only presents the session a write touched as `GET /v1/sessions/{id}` would.
public final class StoreAdministrator: StoreAdministration {
    let store: SessionStore
    let health: StoreHealth
    let sessions: any LiveControl
    /// `[retention] max_share`: the share of the store a prune may take without `force`.
    let maximumShare: Double
    let logger: Logger

    init(
        store: SessionStore, health: StoreHealth, sessions: any LiveControl, maximumShare: Double, logger: Logger
    ) {
        self.store = store
        self.health = health
        self.sessions = sessions
        self.maximumShare = maximumShare
        self.logger = logger
    }

    /// `POST /v1/sessions/{id}/reanalyze`.
    public func reanalyze(id: String, _ request: ReanalyzeRequest) async throws(ControlError) -> ReanalyzeResult {
        let profile = try DetectionProfile.requested(request.profile)
        let rules = try request.rules.map { name throws(ControlError) in try DetectionRules.requested(name) }
        let record = try await health.session(idPrefix: id, in: store)
        let result = try await health.mapStore { () async throws(StoreError) in
            try await store.reanalyze(record, profile: profile, rules: rules, assignments: request.set, save: true)
        }
        logger.info(
            "session re-analysed",
            metadata: [
                "session.id": "\(record.idText)", "session.events": "\(result.events.count)",
                "session.previous_events": "\(result.previousCount)",
            ])
        return ReanalyzeResult(
            session: try await sessions.session(id: record.idText), events: result.events.map(EventRecord.init),
            previousCount: result.previousCount)
    }

    /// `POST /v1/sessions/import`.
    public func importSession(_ request: ImportRequest) async throws(ControlError) -> ImportResult {
        guard let profile = try DetectionProfile.requested(request.profile) else { preconditionFailure() }
        if let athlete = request.athlete?.trimmingCharacters(in: .whitespaces), !athlete.isEmpty {
            try NameRules.check(athlete, field: "athlete name")
        }
        if let problem = request.rangeProblem {
            throw ControlError(
                .invalidRequest, problem, fix: "send values in the ranges Docs/API.md lists for the import route")
        }
        let rules = try DetectionRules.requested(request.rules)
        var settings = DetectionSettings(profile: profile, rules: rules)
        for assignment in request.set {
            do {
                try settings.set(assignment)
            } catch {
                throw ControlError(.invalidRequest, "set \(assignment): \(error.message)", fix: error.fix)
            }
        }
        var sensor: BluetoothAddress?
        if let text = request.sensor {
            let kind: BluetoothAddress.Kind = request.sensorAddressType == "random" ? .random : .public
            guard let address = BluetoothAddress(string: text, kind: kind) else {
                throw ControlError(
                    .invalidRequest, "'\(text)' is not a Bluetooth address", fix: "write AA:BB:CC:DD:EE:FF")
            }
            sensor = address
        }
        let recording = SessionStore.Recording(
            samples: Self.samples(request.samples), sensor: nil,
            counts: SessionCounts(
                received: Int64(request.samples.count), lost: request.lostSamples,
                malformed: request.malformedNotifications, sampleRate: request.sampleRate),
            captureStart: request.captureStart)
        let imported = try await health.mapStore { () async throws(StoreError) in
            try await store.importRecording(
                recording, settings: settings, athlete: request.athlete, sensor: sensor, startedAt: request.startedAt)
        }
        logger.info(
            "session imported through the API",
            metadata: [
                "session.id": "\(imported.session.idText)", "session.samples": "\(request.samples.count)",
                "session.events": "\(imported.events.count)",
            ])
        return ImportResult(
            session: try await sessions.session(id: imported.session.idText), addedAthlete: imported.addedAthlete)
    }

    /// The imported samples as stored samples (their rows were checked as they were parsed).
    private static func samples(_ rows: ImportSamples) -> [IndexedSample] {
        rows.map { IndexedSample(index: $0.index, t: $0.t, raw: RawAcceleration(x: $0.x, y: $0.y, z: $0.z)) }
    }

    /// `POST /v1/prune`.
    public func prune(_ request: PruneRequest) async throws(ControlError) -> PruneReport {
        let options = SessionStore.PruneOptions(
            samplesOnly: request.samplesOnly, dryRun: request.dryRun, vacuum: request.vacuum,
            maximumShare: request.force ? nil : maximumShare)
        let result = try await health.mapStore { () async throws(StoreError) in
            try await store.prune(storedBefore: request.storedBefore, options)
        }
        return PruneReport(
            sessionsDeleted: result.sessionsDeleted, sessionsAffected: result.sessionsAffected,
            chunksDeleted: result.chunksDeleted, samplesDeleted: result.samplesDeleted,
            eventsDeleted: result.eventsDeleted, sessionIds: result.sessionIDs.map { $0.uuidString.lowercased() },
            sampleBytes: result.sampleBytes, finishedSessions: result.finishedSessions, dryRun: request.dryRun)
    }
}
