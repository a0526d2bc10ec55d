// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CodedErrors
import ControlProtocol
import GATTClient
import Logging
import NIOConcurrencyHelpers

/// The connector every Bluetooth sensor link uses: before each attempt it takes a slot on the
/// adapter ``AdapterSlotTable`` picks (waiting in `no-slot` while every adapter is full), then
/// connects through that adapter's own connector (its one-at-a-time queue). Adapters come and go
/// with ``adaptersChanged(_:)``; links on an adapter that went come back on another one by
/// themselves, since their next attempt asks for a slot again.
public final class AdapterPool: SensorConnector, Sendable {
    /// Makes the connector of an adapter that became usable.
    public typealias ConnectorFactory = @Sendable (AdapterInfo) -> any SensorConnector

    private struct State {
        var table = AdapterSlotTable<BluetoothAddress>()
        var listing: [AdapterInfo] = []
        var connectors: [String: any SensorConnector] = [:]
        var waiters: [BluetoothAddress: CheckedContinuation<String, any Error>] = [:]
    }

    /// The most links one adapter carries.
    public let linkBudget: Int
    private let makeConnector: ConnectorFactory
    private let onWaiting: @Sendable (BluetoothAddress) -> Void
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    /// A waiting sensor's continuation and the adapter it was granted.
    private typealias Resumption = (CheckedContinuation<String, any Error>, String)

    /// A pool without adapters; ``adaptersChanged(_:)`` brings them. `onWaiting` hears of every
    /// sensor that starts waiting for a slot (for the event stream).
    public init(
        linkBudget: Int, logger: Logger, makeConnector: @escaping ConnectorFactory,
        onWaiting: @escaping @Sendable (BluetoothAddress) -> Void = { _ in }
    ) {
        self.linkBudget = linkBudget
        self.logger = logger
        self.makeConnector = makeConnector
        self.onWaiting = onWaiting
    }

    // MARK: - SensorConnector

    /// Waits for a slot, then connects through its adapter; the slot is given back when the
    /// attempt fails, so a sensor out of range does not keep one from a sensor that is there.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting, ``AdapterPoolError``
    ///   when the adapter went between the grant and the attempt, or the adapter connector's error.
    public func connect(to address: BluetoothAddress) async throws -> any ATTBearer {
        let adapter = try await slot(for: address)
        guard let connector = state.withLockedValue({ $0.connectors[adapter] }) else {
            release(address)
            throw AdapterPoolError(
                code: .adapterGone,
                message: "\(adapter) went away before \(address) could connect through it: the link retries on another")
        }
        do {
            return try await connector.connect(to: address)
        } catch {
            release(address)
            throw error
        }
    }

    // MARK: - Adapters

    /// The kernel's adapters now (the executable reports every change: plugged, pulled, powered
    /// on or off). Powered adapters become usable with a fresh connector; the slots of those that
    /// went are dropped, and their sensors reconnect elsewhere.
    public func adaptersChanged(_ listing: [AdapterInfo]) {
        let usable = Set(listing.filter(\.up).map(\.name))
        let (added, removed, grants) = state.withLockedValue { state in
            state.listing = listing.sorted { $0.name < $1.name }
            var removed: [(String, [BluetoothAddress])] = []
            for name in state.connectors.keys.sorted() where !usable.contains(name) {
                state.connectors[name] = nil
                removed.append((name, state.table.adapterGone(name)))
            }
            var added: [String] = []
            for adapter in state.listing where adapter.up && state.connectors[adapter.name] == nil {
                state.connectors[adapter.name] = makeConnector(adapter)
                added.append(adapter.name)
            }
            // All of the listing's new adapters at once, so the waiting spread over them.
            let grants = state.table.adaptersUsable(Dictionary(uniqueKeysWithValues: added.map { ($0, linkBudget) }))
            return (added, removed, take(grants, in: &state))
        }
        for (name, sensors) in removed {
            logger.warning(
                "adapter \(name) went away; its sensors reconnect through another adapter",
                metadata: ["ble.adapter": "\(name)", "sensors.moving": "\(sensors.map(\.description))"])
        }
        for name in added {
            logger.info("adapter \(name) in use", metadata: ["ble.adapter": "\(name)", "ble.budget": "\(linkBudget)"])
        }
        resume(grants)
    }

    /// A scan on `adapter` heard `address` at `rssi` dBm: a tie between adapters goes to the stronger.
    public func heard(_ address: BluetoothAddress, on adapter: String, rssi: Int) {
        state.withLockedValue { $0.table.heard(address, on: adapter, rssi: rssi) }
    }

    /// The sensor's link went down: its slot goes to whoever waits (its next attempt asks again).
    public func release(_ address: BluetoothAddress) {
        resume(state.withLockedValue { state in take(state.table.release(address), in: &state) })
    }

    /// The sensor was unpaired: its slot, its place in the queue and what was heard of it go.
    public func forget(_ address: BluetoothAddress) {
        resume(state.withLockedValue { state in take(state.table.forget(address), in: &state) })
    }

    // MARK: - What status shows

    /// The adapters with their budgets and the sensors holding their slots.
    public var adapters: [AdapterInfo] {
        state.withLockedValue { state in
            state.listing.map { adapter in
                var info = adapter
                info.linkBudget = linkBudget
                info.sensors = state.table.adapters[adapter.name]?.holders.map(\.description) ?? []
                return info
            }
        }
    }

    /// The adapter whose slot `address` holds.
    public func adapter(holding address: BluetoothAddress) -> String? {
        state.withLockedValue { $0.table.adapter(holding: address) }
    }

    /// Whether `address` waits for a slot.
    public func isWaiting(_ address: BluetoothAddress) -> Bool {
        state.withLockedValue { $0.table.isWaiting(address) }
    }

    /// How many sensors wait for a slot.
    public var waitingCount: Int { state.withLockedValue { $0.table.waiting.count } }

    // MARK: - Internals

    private enum Turn {
        case granted(String)
        case waiting
        case cancelled
    }

    /// The adapter whose slot `address` may use, once there is one; every decision is made under
    /// the lock so a cancellation and a grant cannot both resume the waiter.
    private func slot(for address: BluetoothAddress) async throws -> String {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                let (turn, grants) = state.withLockedValue { state -> (Turn, [Resumption]) in
                    guard !Task.isCancelled else { return (.cancelled, take(state.table.release(address), in: &state)) }
                    let (slot, grants) = state.table.request(address)
                    if slot == nil { state.waiters[address] = continuation }
                    return (slot.map(Turn.granted) ?? .waiting, take(grants, in: &state))
                }
                resume(grants)
                switch turn {
                case .granted(let adapter):
                    continuation.resume(returning: adapter)
                case .cancelled:
                    continuation.resume(throwing: CancellationError())
                case .waiting:
                    onWaiting(address)
                    logger.notice(
                        "every adapter's link budget is in use: \(address) waits for a free slot (no-slot)",
                        metadata: ["ble.address": "\(address)", "ble.budget": "\(linkBudget)"])
                }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<String, any Error>? in
                guard let waiter = state.waiters.removeValue(forKey: address) else { return nil }
                _ = state.table.release(address)
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Pairs grants with the continuations of the sensors that waited for them.
    private func take(_ grants: [AdapterSlotTable<BluetoothAddress>.Grant], in state: inout State) -> [Resumption] {
        grants.compactMap { grant in
            state.waiters.removeValue(forKey: grant.sensor).map { ($0, grant.adapter) }
        }
    }

    private func resume(_ grants: [Resumption]) {
        for (waiter, adapter) in grants { waiter.resume(returning: adapter) }
    }
}

/// A failure of the adapter pool itself.
public struct AdapterPoolError: CodedError, Sendable {
    /// What kind of failure.
    public enum Code: String, NamedCode {
        /// The granted adapter went away before the attempt started.
        case adapterGone
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}
