// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire

/// A change of a sensor link's state, as published on `SensorLink.events`.
public enum LinkState: Hashable, Sendable, CustomStringConvertible {
    /// GATT setup finished and notifications are enabled: samples flow.
    case connected(BluetoothAddress)
    /// A streaming link went down (the bearer ended, or the watchdog found it silent).
    case lost(SensorLinkError)
    /// The next connection attempt, number `attempt` since the last stable link, starts in `in`.
    case retrying(in: Duration, attempt: Int)
    /// The reconnect policy gave up; the link is over.
    case gaveUp(SensorLinkError)
    /// The link was stopped (`stop()` or cancellation); the bearer is closed.
    case stopped

    /// `retrying in 1.5 seconds (attempt 2)`.
    public var description: String {
        switch self {
        case .connected(let address): "connected to \(address)"
        case .lost(let reason): "lost (\(reason))"
        case .retrying(let delay, let attempt): "retrying in \(delay) (attempt \(attempt))"
        case .gaveUp(let reason): "gave up (\(reason))"
        case .stopped: "stopped"
        }
    }
}
