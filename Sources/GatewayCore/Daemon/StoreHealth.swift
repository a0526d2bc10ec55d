// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import SessionStore
import Synchronization

/// Whether the store's last writes worked (`status.store_healthy`), and how its errors read to a
/// control client.
final class StoreHealth: Sendable {
    private let healthy = Atomic(true)
    private let damaged = Atomic(false)

    /// False while the last store call failed with an error of the store itself (not of the
    /// request), and for good once the integrity check found damage.
    var isHealthy: Bool { healthy.load(ordering: .relaxed) && !damaged.load(ordering: .relaxed) }

    /// The integrity check found the file damaged: no later successful write makes it healthy.
    func recordDamage() {
        damaged.store(true, ordering: .relaxed)
    }

    /// Notes the outcome of a store call.
    func record(healthy value: Bool) {
        healthy.store(value, ordering: .relaxed)
    }

    /// Runs a store call; its error becomes the control API's, and a failure of the store itself
    /// marks it unhealthy.
    func mapStore<T: Sendable>(_ body: () async throws(StoreError) -> T) async throws(ControlError) -> T {
        do {
            return try await body()
        } catch {
            throw controlError(error)
        }
    }

    /// The session `idPrefix` names in `store` (`sportsensorctl show 1a2b`), a failure reported
    /// as any store call's: every control request that names a session looks it up here.
    func session(idPrefix: String, in store: SessionStore) async throws(ControlError) -> SessionRecord {
        try await mapStore { () async throws(StoreError) in try await store.session(idPrefix: idPrefix) }
    }

    /// A store error as the control API reports it.
    func controlError(_ error: StoreError) -> ControlError {
        switch error.code {
        case .notFound: return ControlError(.notFound, error.message, fix: "list them with `sportsensorctl sessions`")
        case .ambiguousPrefix: return ControlError(.conflict, error.message, fix: "give more digits of the id")
        case .invalidArgument: return ControlError(.invalidRequest, error.message)
        case .sessionLive:
            return ControlError(.conflict, error.message, fix: "stop the session first with `sportsensorctl stop`")
        case .diskFull, .permission, .busy, .corrupt, .newerSchema, .notOurDatabase:
            record(healthy: false)
            return ControlError(.unavailable, error.message, fix: "check the state directory and the daemon's log")
        default:
            record(healthy: false)
            return ControlError(.internal, error.description)
        }
    }
}
