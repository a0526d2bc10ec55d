// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import NIOConcurrencyHelpers

/// The paired sensors: one `SensorChannel` per address.
///
/// Sensors are keyed by their six octets, since a client may name one with either address type.
/// Every check-then-change happens under one lock, so two concurrent pairs of one address cannot
/// both get through (``reserve(_:)`` holds the address while the store is written).
final class SensorRegistry<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        var channels: [[UInt8]: SensorChannel<C>] = [:]
        var reserved: Set<[UInt8]> = []
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    /// Every channel.
    var all: [SensorChannel<C>] { state.withLockedValue { Array($0.channels.values) } }

    /// How many sensors have a link up.
    var connectedCount: Int { all.filter(\.isConnected).count }

    /// How many sessions record.
    var liveCount: Int { all.filter { $0.pipeline != nil }.count }

    /// The channel of `address` (either address type).
    func channel(at address: BluetoothAddress) -> SensorChannel<C>? {
        state.withLockedValue { $0.channels[address.octets] }
    }

    /// The channel called `name`: an address, else an alias.
    func channel(named name: String) -> SensorChannel<C>? {
        if let address = BluetoothAddress(string: name), let channel = channel(at: address) { return channel }
        return all.first { $0.record.alias == name }
    }

    /// The channel that holds `alias`, other than the one of `address`.
    func holder(ofAlias alias: String, except address: BluetoothAddress?) -> SensorChannel<C>? {
        all.first { $0.record.alias == alias && $0.address.octets != address?.octets }
    }

    /// Holds `address` for a pair in progress; the channel already there, or nil when the address
    /// is now held (or was held by another pair in progress: `.pairing`).
    func reserve(_ address: BluetoothAddress) -> Reservation {
        state.withLockedValue { state in
            if let existing = state.channels[address.octets] { return .paired(existing) }
            guard state.reserved.insert(address.octets).inserted else { return .pairing }
            return .reserved
        }
    }

    /// What ``reserve(_:)`` found.
    enum Reservation {
        /// The address is now held for the caller.
        case reserved
        /// Another pair of this address is in progress.
        case pairing
        /// The address is paired already.
        case paired(SensorChannel<C>)
    }

    /// Releases a reservation without adding a channel (the pair failed).
    func release(_ address: BluetoothAddress) {
        _ = state.withLockedValue { $0.reserved.remove(address.octets) }
    }

    /// Adds a channel (and releases its address's reservation).
    func add(_ channel: SensorChannel<C>) {
        state.withLockedValue { state in
            state.reserved.remove(channel.address.octets)
            state.channels[channel.address.octets] = channel
        }
    }

    /// Removes and returns the channel of `address`.
    func remove(_ address: BluetoothAddress) -> SensorChannel<C>? {
        state.withLockedValue { $0.channels.removeValue(forKey: address.octets) }
    }
}
