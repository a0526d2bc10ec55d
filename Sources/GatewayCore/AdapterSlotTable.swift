// SPDX-License-Identifier: GPL-2.0-or-later

/// Which adapter carries which sensor link, as a pure state machine: each adapter has a link
/// budget, a sensor asks for a slot before every connection attempt, and a sensor that finds
/// every usable adapter full waits, first come first served, until a slot frees or an adapter
/// appears. No I/O and no clock: ``AdapterPool`` performs what it decides.
///
/// **Why a budget.** A controller carries a fixed number of LE links (CSR dongles 5, Broadcom 7)
/// and its connection events share one radio: past what the adapter can carry, connects fail
/// with "connection limit" and every link's notifications get late. Waiting in `no-slot` costs
/// nothing; a connect loop against a full controller costs the links that work.
///
/// **Which adapter.** The usable adapter with the most free slots, so the load spreads evenly;
/// on a tie the adapter that heard the sensor strongest (where a scan reported it), then the
/// adapter's name. A sensor holds its slot from the grant until it asks again (its link went
/// down and it reconnects, possibly elsewhere), its attempt failed, or it is released.
///
/// **Adapters that go.** An adapter pulled or powered off takes its slots with it; its sensors'
/// links go down by themselves and ask again, landing on another adapter with room.
public struct AdapterSlotTable<Sensor: Hashable & Sendable>: Sendable {
    /// One adapter as the table sees it.
    public struct Adapter: Sendable, Hashable {
        /// `hci0`.
        public var name: String
        /// The most links it carries.
        public var budget: Int
        /// The sensors holding one of its slots, in grant order.
        public var holders: [Sensor]

        /// Slots not held.
        public var free: Int { max(0, budget - holders.count) }
    }

    /// A sensor that got a slot on an adapter.
    public struct Grant: Sendable, Hashable {
        /// The sensor.
        public var sensor: Sensor
        /// The adapter whose slot it holds.
        public var adapter: String

        /// Creates a grant.
        public init(sensor: Sensor, adapter: String) {
            self.sensor = sensor
            self.adapter = adapter
        }
    }

    /// The usable adapters, by name.
    public private(set) var adapters: [String: Adapter] = [:]
    /// Sensors waiting for a slot, first to be served first.
    public private(set) var waiting: [Sensor] = []
    /// The strongest signal (dBm) each adapter last reported for a sensor.
    private var signal: [Sensor: [String: Int]] = [:]

    /// An empty table: no adapter, nobody waiting.
    public init() {}

    /// The adapter whose slot `sensor` holds, if any.
    public func adapter(holding sensor: Sensor) -> String? {
        adapters.values.first { $0.holders.contains(sensor) }?.name
    }

    /// Whether `sensor` waits for a slot.
    public func isWaiting(_ sensor: Sensor) -> Bool { waiting.contains(sensor) }

    // MARK: - Events

    /// `sensor` is about to connect: gives back its slot, if it held one (the slot may go to a
    /// sensor that waited), then grants it the best adapter with room, or queues it behind those
    /// already waiting (slot nil).
    public mutating func request(_ sensor: Sensor) -> (slot: String?, grants: [Grant]) {
        let grants = release(sensor)
        guard waiting.isEmpty, let adapter = best(for: sensor) else {
            waiting.append(sensor)
            return (nil, grants)
        }
        adapters[adapter]?.holders.append(sensor)
        return (adapter, grants)
    }

    /// `sensor` gives up its slot or its place in the queue (its attempt failed, it was
    /// unpaired, or it stopped waiting); the slot goes to the first sensor waiting.
    public mutating func release(_ sensor: Sensor) -> [Grant] {
        waiting.removeAll { $0 == sensor }
        guard let name = adapter(holding: sensor) else { return [] }
        adapters[name]?.holders.removeAll { $0 == sensor }
        return serveWaiting()
    }

    /// Adapters became usable (plugged in, or powered on), each with its budget of links, or
    /// their budgets changed. Sensors waiting are served once all of them are in the table: a
    /// daemon that starts with paired sensors has them all waiting when the first listing brings
    /// every adapter at once, and serving after each one would put them all on the first.
    public mutating func adaptersUsable(_ budgets: [String: Int]) -> [Grant] {
        for (name, budget) in budgets {
            adapters[name, default: Adapter(name: name, budget: budget, holders: [])].budget = max(0, budget)
        }
        return serveWaiting()
    }

    /// An adapter can no longer be used (pulled, or powered off): the sensors that held its
    /// slots are returned; their links are down and will ask again.
    public mutating func adapterGone(_ name: String) -> [Sensor] {
        adapters.removeValue(forKey: name)?.holders ?? []
    }

    /// A scan on `adapter` heard `sensor` at `rssi` dBm.
    public mutating func heard(_ sensor: Sensor, on adapter: String, rssi: Int) {
        signal[sensor, default: [:]][adapter] = rssi
    }

    /// Forgets what was heard of `sensor` (it was unpaired).
    public mutating func forget(_ sensor: Sensor) -> [Grant] {
        signal[sensor] = nil
        return release(sensor)
    }

    // MARK: - Internals

    /// The adapter `sensor` should use: most free slots, then strongest signal, then name.
    private func best(for sensor: Sensor) -> String? {
        let heard = signal[sensor] ?? [:]
        return adapters.values.filter { $0.free > 0 }.min { a, b in
            if a.free != b.free { return a.free > b.free }
            let (left, right) = (heard[a.name] ?? Int.min, heard[b.name] ?? Int.min)
            if left != right { return left > right }
            return a.name < b.name
        }?.name
    }

    /// Grants slots to waiting sensors, first come first served, while any adapter has room.
    private mutating func serveWaiting() -> [Grant] {
        var grants: [Grant] = []
        while let sensor = waiting.first, let adapter = best(for: sensor) {
            waiting.removeFirst()
            adapters[adapter]?.holders.append(sensor)
            grants.append(Grant(sensor: sensor, adapter: adapter))
        }
        return grants
    }
}
