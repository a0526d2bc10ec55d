// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import NIOConcurrencyHelpers
import SessionStore

/// What the roster's changes mean for the live sensors and sessions.
extension Gateway: RosterEffects {
    /// Paired sensors bound to athlete `id` now show `name`, or are unbound when nil.
    public func athleteChanged(id: Int64, name: String?) {
        for channel in registry.all {
            channel.state.withLockedValue { state in
                guard state.record.athleteID == id else { return }
                state.athleteName = name
                if name == nil { state.record.athleteID = nil }
            }
        }
    }

    /// Gives every live session the targets the store now holds for it.
    public func targetsChanged() async {
        let store = dependencies.store
        for pipeline in registry.all.compactMap(\.pipeline) {
            let session = pipeline.context.session
            if let targets = try? await store.effectiveTargets(session: session.id, athleteID: session.athleteID) {
                pipeline.setTargets(targets)
            }
        }
    }

    /// The control API's areas: this gateway for the live sensors and sessions; over the same
    /// store a `StoreRoster` for the roster and a `StoreAdministrator` for re-analysis, imports and
    /// pruning.
    public var services: GatewayServices {
        GatewayServices(
            live: self, roster: StoreRoster(store: dependencies.store, health: health, effects: self),
            administration: StoreAdministrator(
                store: dependencies.store, health: health, sessions: self,
                maximumShare: dependencies.configuration.retention.maximumShare, logger: logger))
    }
}
