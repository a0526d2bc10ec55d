// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import SessionStore

/// A session's summary: the live pipeline's so far, or the store's.
extension Gateway {
    /// `GET /v1/sessions/{id}/summary`.
    public func sessionSummary(id: String) async throws(ControlError) -> SessionSummary {
        let record = try await health.session(idPrefix: id, in: dependencies.store)
        if let live = livePipeline(record.idText) { return live.summary() }
        let store = dependencies.store
        let summary = try await health.mapStore { () async throws(StoreError) -> SessionSummary? in
            if let stored = try await store.summary(of: record.id) { return stored }
            // Stored before summaries were kept, or interrupted: computed now and kept.
            return try await store.computeSummary(of: record)
        }
        guard let summary else {
            throw ControlError(
                .notFound,
                "session \(record.idText) has the profile '\(record.profile)', which this build cannot summarise",
                fix:
                    "reanalyze it with a profile: `sportsensorctl reanalyze --save --profile P \(record.idText.prefix(8))`"
            )
        }
        return summary
    }

    /// The live pipeline recording session `id`, if any.
    func livePipeline(_ id: String) -> SessionPipeline<C>? {
        registry.all.compactMap(\.pipeline).first { $0.sessionID == id }
    }
}
