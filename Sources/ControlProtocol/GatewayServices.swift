// SPDX-License-Identifier: GPL-2.0-or-later

/// One object serving every area of the control API (a test's fake).
public typealias GatewayControl = LiveControl & RosterControl & StoreAdministration

/// What the control API and the web dashboard serve, by area: each route reaches only the one it
/// needs. The daemon serves the live area and store administration with its `Gateway` and the
/// roster with a `StoreRoster` over the same store.
public struct GatewayServices: Sendable {
    /// Adapters, sensors, sessions, the event stream, replication.
    public var live: any LiveControl
    /// Athletes, teams, bests, leaderboards, targets.
    public var roster: any RosterControl
    /// Re-analysis, imports, pruning.
    public var administration: any StoreAdministration

    /// The areas served by these objects.
    public init(live: any LiveControl, roster: any RosterControl, administration: any StoreAdministration) {
        self.live = live
        self.roster = roster
        self.administration = administration
    }

    /// Every area served by one object.
    public init(_ all: any GatewayControl) {
        self.init(live: all, roster: all, administration: all)
    }
}
