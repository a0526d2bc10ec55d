// SPDX-License-Identifier: GPL-2.0-or-later

/// A sensor link's state as the control plane names it (`SensorInfo.linkState`,
/// `SessionCounters.linkState`, `LinkPayload.state`): one list of the names on the wire, encoded
/// as the strings Docs/API.md gives.
public enum LinkStateName: String, Codable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Before the link's first state change: the first connection attempt.
    case connecting
    /// GATT setup finished: samples flow.
    case connected
    /// Waiting for an adapter: every adapter's link budget is in use.
    case noSlot = "no-slot"
    /// A streaming link went down.
    case lost
    /// Waiting for the next connection attempt.
    case retrying
    /// The reconnect policy gave up.
    case gaveUp = "gave-up"
    /// The link was stopped (the sensor was unpaired, or the daemon stops).
    case stopped

    /// The wire name.
    public var description: String { rawValue }

    /// Decodes a wire name strictly: a name that is none of the cases throws
    /// `LinkStateNameError` (naming it, where it was, and the fix), never another state.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let state = LinkStateName(rawValue: name) else {
            throw LinkStateNameError(unknown: name, at: decoder.codingPath)
        }
        self = state
    }
}
