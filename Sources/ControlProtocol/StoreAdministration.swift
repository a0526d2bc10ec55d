// SPDX-License-Identifier: GPL-2.0-or-later

/// Store writes a client asks of the daemon, which is the only writer of its store: re-analysis,
/// imports, pruning.
public protocol StoreAdministration: Sendable {
    /// `POST /v1/sessions/{id}/reanalyze`: detection again over the stored samples, saved; a live
    /// session is refused (409).
    func reanalyze(id: String, _ request: ReanalyzeRequest) async throws(ControlError) -> ReanalyzeResult
    /// `POST /v1/sessions/import`: store a recording the client decoded as a finished session.
    func importSession(_ request: ImportRequest) async throws(ControlError) -> ImportResult
    /// `POST /v1/prune`: delete finished sessions started before a time, or only their samples.
    func prune(_ request: PruneRequest) async throws(ControlError) -> PruneReport
}
