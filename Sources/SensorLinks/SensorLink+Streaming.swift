// SPDX-License-Identifier: GPL-2.0-or-later
import NIOConcurrencyHelpers
import SDUSensor

/// The streaming phase: waiting for the link to end or the watchdog to fire, whichever comes
/// first, and counting a lost link. The notifications themselves take the path in
/// SensorLink+Notifications.swift.
extension SensorLink {
    func stream() async -> [Action] {
        guard let connection = core.withLockedValue({ $0.connection }) else {
            let error = SensorLinkError(.disconnected, "no GATT client (internal error)")
            return core.withLockedValue { $0.machine.bearerEnded(error, at: clock.now) }
        }
        return await withTaskGroup(of: [Action].self) { group in
            group.addTask {
                // The notifications themselves go to `handle`, from the reading thread.
                let error = await connection.ended()
                guard !Task.isCancelled else { return [] }
                return self.streamEnded(error)
            }
            group.addTask { await self.watch() }
            var actions = await group.next() ?? []
            group.cancelAll()
            for await more in group { actions += more }
            return actions
        }
    }

    func streamEnded(_ error: (any Error)?) -> [Action] {
        let reason = SensorLinkError(
            .disconnected,
            "the link to \(address) ended: the sensor went out of range, was switched off or closed the "
                + "connection; reconnecting",
            cause: error)
        return core.withLockedValue { core in
            let actions = core.machine.bearerEnded(reason, at: clock.now)
            if !actions.isEmpty { linkLost(reason, counters: &core.counters) }
            return actions
        }
    }

    /// Sleeps until the watchdog's deadline, again and again while notifications move it.
    func watch() async -> [Action] {
        while let deadline = core.withLockedValue({ $0.machine.watchdogDeadline }) {
            do {
                try await clock.sleep(until: deadline, tolerance: nil)
            } catch {
                return []
            }
            let actions = core.withLockedValue { core in
                let actions = core.machine.watchdogFired(at: clock.now)
                if !actions.isEmpty {
                    core.counters.watchdogTrips += 1
                    if case .lost(let reason) = core.machine.phase { linkLost(reason, counters: &core.counters) }
                }
                return actions
            }
            if !actions.isEmpty { return actions }
        }
        return []
    }

    func linkLost(_ reason: SensorLinkError, counters: inout SensorLinkStatistics) {
        counters.linksLost += 1
        counters.lastFailure = reason
        logger.warning("sensor link lost", metadata: ["error": "\(reason)"])
    }

    /// The rate the watchdog assumes: the decoder clock's once locked, nominal before.
    static func watchdogRate(_ gate: SensorSampleGate) -> Double {
        LinkWatchdog<C.Instant>.sampleRate(of: gate.decoder.clock)
    }
}
