// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import Detection
import Foundation
import NIOConcurrencyHelpers
import SessionStore

/// The control API over the gateway: requests become calls on the registry and the session
/// manager, answers become wire models. Sensors here; sessions in `Gateway+SessionControl.swift`.
extension Gateway: LiveControl {
    /// `GET /v1/status`.
    public func status() async throws(ControlError) -> GatewayStatus {
        let degraded = registry.all.filter { $0.pipeline?.storeDegraded == true }.count
        return GatewayStatus(
            version: dependencies.version, uptimeSeconds: Date().timeIntervalSince(startedAt),
            stateDirectory: dependencies.stateDirectory, storeHealthy: health.isHealthy && degraded == 0,
            adapters: adapterPool?.adapters ?? [], sensorsPaired: registry.all.count,
            sensorsConnected: registry.connectedCount, liveSessions: registry.liveCount,
            sensorsWaitingForSlot: adapterPool?.waitingCount ?? 0, storeDegradedSessions: degraded)
    }

    /// `GET /v1/adapters`.
    public func adapters() async throws(ControlError) -> [AdapterInfo] {
        adapterPool?.adapters ?? []
    }

    /// `POST /v1/scan`.
    public func scan(seconds: Double) async throws(ControlError) -> [DiscoveryInfo] {
        guard seconds.isFinite, (1...60).contains(seconds) else {
            throw ControlError(.invalidRequest, "cannot scan for \(seconds) s", fix: "scan for 1 to 60 seconds")
        }
        // Virtual sensors are always in range of the gateway that emulates them.
        let virtual = (dependencies.virtualSensors?.members ?? []).map { member in
            DiscoveryInfo(
                address: "\(member.address)", addressType: "\(member.address.kind)", name: member.alias, rssi: -40,
                isSduSensor: true)
        }
        guard let scan = dependencies.bluetooth?.scan, let pool = adapterPool else {
            guard !virtual.isEmpty else {
                throw ControlError(
                    .unavailable, "this gateway uses no Bluetooth adapter",
                    fix: "start sportsensord with --adapter hciN (and without only --virtual-sensors)")
            }
            try? await dependencies.clock.sleep(for: .milliseconds(Int64(seconds * 1000)))
            return virtual
        }
        do {
            let heard = try await scan(seconds)
            // Where two adapters have room, a sensor goes to the one that hears it better.
            for discovery in heard {
                guard let adapter = discovery.adapter, let rssi = discovery.rssi,
                    let address = BluetoothAddress(
                        string: discovery.address, kind: discovery.addressType == "public" ? .public : .random)
                else { continue }
                pool.heard(address, on: adapter, rssi: rssi)
            }
            let found = heard + virtual
            return found.sorted { ($0.isSduSensor ? 0 : 1, $0.address) < ($1.isSduSensor ? 0 : 1, $1.address) }
        } catch {
            throw ControlError(.unavailable, "the scan failed: \(error)", fix: "check the adapter with `hciconfig`")
        }
    }

    /// `GET /v1/sensors`.
    public func sensors() async throws(ControlError) -> [SensorInfo] {
        registry.all.map { $0.info() }.sorted { ($0.alias ?? $0.address) < ($1.alias ?? $1.address) }
    }

    /// `POST /v1/sensors`.
    public func pair(_ request: PairRequest) async throws(ControlError) -> SensorInfo {
        let address = try Self.address(of: request)
        if let alias = request.alias { try checkAlias(alias, for: nil) }
        let member = dependencies.virtualSensors?.members.first { $0.address.octets == address.octets }
        guard member != nil || adapterPool != nil else {
            throw ControlError(
                .unavailable, "this gateway uses no Bluetooth adapter, so it cannot link to \(address)",
                fix: "start sportsensord with --adapter hciN")
        }
        switch registry.reserve(address) {
        case .paired(let existing):
            throw ControlError(
                .conflict, "\(address) is already paired as \(existing.label)",
                // An alias holds no spaces, so the label pastes as one shell word.
                fix: "to pair it under another alias, unpair it first: `sportsensorctl unpair \(existing.label)`")
        case .pairing:
            throw ControlError(.conflict, "\(address) is being paired", fix: "wait for that pair to finish")
        case .reserved:
            break
        }
        do throws(ControlError) {
            var record = SensorRecord(
                address: member?.address ?? address, advertisedName: member?.alias, alias: request.alias?.nilIfEmpty,
                paired: member == nil)
            let store = dependencies.store
            let stored = try await health.mapStore { () async throws(StoreError) in try await store.sensors() }
            if let known = stored.first(where: { $0.address.octets == address.octets }) {
                record.advertisedName = known.advertisedName
                record.lastSeen = known.lastSeen
                record.athleteID = known.athleteID
                if record.alias == nil { record.alias = known.alias }
            }
            if let athlete = request.athlete?.nilIfEmpty { record.athleteID = try await findOrAddAthlete(athlete).id }
            let saved = record
            try await health.mapStore { () async throws(StoreError) in try await store.saveSensor(saved) }
            if let member {
                await attach(record: record, connector: member.connector, isVirtual: true)
            } else if let adapterPool {
                await attach(record: record, connector: adapterPool, isVirtual: false)
            }
        } catch {
            registry.release(address)
            throw error
        }
        logger.info(member == nil ? "sensor paired" : "virtual sensor paired", metadata: ["ble.address": "\(address)"])
        return try channel(named: "\(address)").info()
    }

    /// The address a pair request names, with its type.
    private static func address(of request: PairRequest) throws(ControlError) -> BluetoothAddress {
        let kind: BluetoothAddress.Kind
        switch request.addressType ?? "random" {
        case "random": kind = .random
        case "public": kind = .public
        default:
            throw ControlError(
                .invalidRequest, "unknown address type '\(request.addressType ?? "")'", fix: "use public or random")
        }
        guard let address = BluetoothAddress(string: request.address, kind: kind) else {
            throw ControlError(
                .invalidRequest, "'\(request.address)' is not a Bluetooth address",
                fix: "write it as AA:BB:CC:DD:EE:FF (see `sportsensorctl scan`)")
        }
        return address
    }

    private func checkAlias(_ alias: String, for address: BluetoothAddress?) throws(ControlError) {
        guard !alias.isEmpty else { return }
        try NameRules.check(alias, field: "alias")
        guard !alias.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw ControlError(
                .invalidRequest, "'\(alias)' cannot be an alias",
                fix: "use up to 64 characters without spaces or slashes, e.g. anna-left")
        }
        if BluetoothAddress(string: alias) != nil {
            throw ControlError(.invalidRequest, "an alias cannot look like an address", fix: "choose a name")
        }
        if let other = registry.holder(ofAlias: alias, except: address) {
            throw ControlError(
                .conflict, "the alias \(alias) is taken by \(other.address)",
                fix: "choose another alias, or rename that sensor first")
        }
    }

    /// `DELETE /v1/sensors/{sensor}`.
    public func unpair(sensor: String) async throws(ControlError) {
        let found = try channel(named: sensor)
        // Whoever removes the channel unpairs; a concurrent unpair of the same sensor finds none.
        guard let channel = registry.remove(found.address) else { throw notPaired(sensor) }
        await sessions.end(on: channel, reason: .stopped)
        channel.link.stop()
        channel.adapterPool?.forget(channel.address)
        var record = channel.record
        // A virtual sensor stays available: `scan` lists it and `pair` links it again (until the
        // daemon restarts, which pairs every virtual sensor afresh).
        record.paired = false
        let saved = record
        try await health.mapStore { () async throws(StoreError) in try await self.dependencies.store.saveSensor(saved) }
        bus.publish(
            .link(
                LinkPayload(sensor: channel.label, address: "\(channel.address)", state: .stopped, detail: "unpaired"))
        )
        logger.info("sensor unpaired", metadata: ["ble.address": "\(channel.address)"])
    }

    /// `PATCH /v1/sensors/{sensor}`.
    public func updateSensor(_ sensor: String, _ update: SensorUpdate) async throws(ControlError) -> SensorInfo {
        let channel = try channel(named: sensor)
        var record = channel.record
        var athleteName = channel.state.withLockedValue { $0.athleteName }
        if let alias = update.alias {
            try checkAlias(alias, for: channel.address)
            record.alias = alias.nilIfEmpty
        }
        if let athlete = update.athlete {
            var found: Athlete?
            if let name = athlete.nilIfEmpty { found = try await findOrAddAthlete(name) }
            record.athleteID = found?.id
            athleteName = found?.name
        }
        let saved = record
        try await health.mapStore { () async throws(StoreError) in try await self.dependencies.store.saveSensor(saved) }
        channel.state.withLockedValue { state in
            state.record = saved
            state.athleteName = athleteName
        }
        return channel.info()
    }

    /// `GET /v1/events`.
    ///
    /// - Throws: `unavailable` (503) when ``EventBus/maximumSubscribers`` streams are open.
    public func events() throws(ControlError) -> AsyncStream<PublishedEvent> {
        guard let stream = bus.subscribeIfRoom() else {
            throw ControlError(
                .unavailable, "\(bus.maximumSubscribers) live event streams are open already",
                fix: "close a `sportsensorctl tail` or a board tab, then try again")
        }
        return stream
    }

    // MARK: Shared by the routes

    /// The channel called `name` (alias or address).
    func channel(named name: String) throws(ControlError) -> SensorChannel<C> {
        guard let channel = registry.channel(named: name) else { throw notPaired(name) }
        return channel
    }

    private func notPaired(_ name: String) -> ControlError {
        ControlError(
            .notFound, "no paired sensor is called \(name)",
            fix: "list them with `sportsensorctl sensors`, or pair it with `sportsensorctl pair ADDRESS`")
    }

    /// The athlete called `name` (trimmed), added when new. Two requests adding one name at once
    /// both get the athlete: the loser of the insert finds the winner's row.
    func findOrAddAthlete(_ name: String) async throws(ControlError) -> Athlete {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        try NameRules.check(trimmed, field: "athlete name")
        let store = dependencies.store
        return try await health.mapStore { () async throws(StoreError) in
            if let existing = try await store.athlete(named: trimmed) { return existing }
            do throws(StoreError) {
                return try await store.addAthlete(name: trimmed)
            } catch {
                if let existing = try await store.athlete(named: trimmed) { return existing }
                throw error
            }
        }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
