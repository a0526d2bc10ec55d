// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import SessionStore

/// Store writes a client asks of the running daemon: it is the only writer of its store.
extension Gateway {
    /// `POST /v1/sessions/{id}/reanalyze`.
    public func reanalyze(id: String, _ request: ReanalyzeRequest) async throws(ControlError) -> ReanalyzeResult {
        let profile = try DetectionProfile.requested(request.profile)
        var rules: DetectionRules?
        if let name = request.rules {
            guard let chosen = DetectionRules(rawValue: name) else {
                throw ControlError(.invalidRequest, "unknown rules '\(name)'", fix: "use standard or baseline")
            }
            rules = chosen
        }
        let store = dependencies.store
        let record = try await health.mapStore { () async throws(StoreError) in try await store.session(idPrefix: id) }
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
            session: try await session(id: record.idText), events: result.events.map(EventRecord.init),
            previousCount: result.previousCount)
    }

    /// `POST /v1/prune`.
    public func prune(_ request: PruneRequest) async throws(ControlError) -> PruneReport {
        let store = dependencies.store
        let result = try await health.mapStore { () async throws(StoreError) in
            try await store.prune(
                olderThan: request.startedBefore, samplesOnly: request.samplesOnly, vacuum: request.vacuum)
        }
        logger.notice(
            "pruned through the API",
            metadata: [
                "prune.started_before": "\(request.startedBefore)", "prune.samples_only": "\(request.samplesOnly)",
                "prune.sessions_deleted": "\(result.sessionsDeleted)",
                "prune.samples_deleted": "\(result.samplesDeleted)",
            ])
        return PruneReport(
            sessionsDeleted: result.sessionsDeleted, sessionsAffected: result.sessionsAffected,
            chunksDeleted: result.chunksDeleted, samplesDeleted: result.samplesDeleted,
            eventsDeleted: result.eventsDeleted)
    }
}
