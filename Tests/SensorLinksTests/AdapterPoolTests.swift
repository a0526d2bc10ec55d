// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import ControlProtocol
import GATTClient
import GatewayTesting
import Logging
import NIOConcurrencyHelpers
import SensorLinks
import Testing

/// Connectors per adapter name that record which adapter each attempt went through.
final class AdapterConnectors: Sendable {
    struct Refused: Error {}

    private let attempts = NIOLockedValueBox<[(adapter: String, address: BluetoothAddress)]>([])
    private let refusing = NIOLockedValueBox<Set<String>>([])

    var log: [(adapter: String, address: BluetoothAddress)] { attempts.withLockedValue { $0 } }

    func refuse(on adapter: String) { _ = refusing.withLockedValue { $0.insert(adapter) } }

    func make(_ info: AdapterInfo) -> any SensorConnector {
        ClosureSensorConnector { address in
            self.attempts.withLockedValue { $0.append((info.name, address)) }
            if self.refusing.withLockedValue({ $0.contains(info.name) }) { throw Refused() }
            return LoopbackATTBearer.pair().0
        }
    }
}

@Suite("AdapterPool")
struct AdapterPoolTests {
    let sensors = (1...4).map { BluetoothAddress(string: "BC:05:00:00:00:0\($0)", kind: .random)! }

    static func adapter(_ name: String, up: Bool = true) -> AdapterInfo {
        AdapterInfo(name: name, address: "00:1A:7D:DA:71:1\(name.last!)", up: up)
    }

    func makePool(budget: Int, connectors: AdapterConnectors) -> AdapterPool {
        var logger = Logger(label: "test.pool")
        logger.logLevel = .critical
        return AdapterPool(linkBudget: budget, logger: logger, makeConnector: connectors.make)
    }

    @Test("a full adapter hands the next sensor to another; status shows budgets and holders")
    func spreadsAndReports() async throws {
        let connectors = AdapterConnectors()
        let pool = makePool(budget: 1, connectors: connectors)
        pool.adaptersChanged([Self.adapter("hci0"), Self.adapter("hci1")])
        _ = try await pool.connect(to: sensors[0])
        _ = try await pool.connect(to: sensors[1])
        #expect(connectors.log.map(\.adapter) == ["hci0", "hci1"])
        #expect(pool.adapters.map(\.linkBudget) == [1, 1])
        #expect(pool.adapters.map(\.sensors) == [["\(sensors[0])"], ["\(sensors[1])"]])
        #expect(pool.adapter(holding: sensors[1]) == "hci1")
    }

    @Test("sensors that waited for the first listing spread over every adapter it brings")
    func firstListingSpreadsTheWaiting() async throws {
        // A restarted daemon starts its paired sensors' links before the kernel's adapters are
        // listed: all four wait, then one listing brings hci0 and hci1 together.
        let connectors = AdapterConnectors()
        let pool = makePool(budget: 5, connectors: connectors)
        let links = sensors.map { sensor in Task { try await pool.connect(to: sensor) } }
        try await pollUntil { pool.waitingCount == sensors.count }
        pool.adaptersChanged([Self.adapter("hci0"), Self.adapter("hci1")])
        for link in links { _ = try await link.value }
        #expect(pool.adapters.map(\.sensors.count) == [2, 2])
        #expect(Set(connectors.log.map(\.adapter)) == ["hci0", "hci1"])
    }

    @Test("no slot anywhere: connect waits (no-slot) until a link goes down, then takes its slot")
    func waitsInNoSlot() async throws {
        let connectors = AdapterConnectors()
        let pool = makePool(budget: 1, connectors: connectors)
        pool.adaptersChanged([Self.adapter("hci0")])
        _ = try await pool.connect(to: sensors[0])
        let sensor = sensors[1]
        let waiting = Task { try await pool.connect(to: sensor) }
        try await pollUntil { pool.isWaiting(sensor) }
        #expect(pool.waitingCount == 1)
        #expect(connectors.log.count == 1, "no attempt is made without a slot")
        pool.release(sensors[0])
        _ = try await waiting.value
        #expect(!pool.isWaiting(sensor))
        #expect(connectors.log.map(\.address) == [sensors[0], sensor])
        #expect(pool.adapter(holding: sensor) == "hci0")
    }

    @Test("cancelled while waiting: CancellationError, and the sensor leaves the queue")
    func cancelWhileWaiting() async throws {
        let pool = makePool(budget: 1, connectors: AdapterConnectors())
        pool.adaptersChanged([Self.adapter("hci0")])
        _ = try await pool.connect(to: sensors[0])
        let sensor = sensors[1]
        let waiting = Task { try await pool.connect(to: sensor) }
        try await pollUntil { pool.isWaiting(sensor) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(!pool.isWaiting(sensor))
        pool.release(sensors[0])
        #expect(pool.adapters.first?.sensors == [])
    }

    @Test("a failed attempt gives its slot back")
    func failedAttemptFreesTheSlot() async throws {
        let connectors = AdapterConnectors()
        connectors.refuse(on: "hci0")
        let pool = makePool(budget: 1, connectors: connectors)
        pool.adaptersChanged([Self.adapter("hci0")])
        await #expect(throws: AdapterConnectors.Refused.self) { try await pool.connect(to: sensors[0]) }
        #expect(pool.adapter(holding: sensors[0]) == nil)
        #expect(pool.adapters.first?.sensors == [])
    }

    @Test("an adapter powered off or pulled: its sensors connect through the other, the waiting get a new one")
    func adapterGoesAndComes() async throws {
        let connectors = AdapterConnectors()
        let pool = makePool(budget: 2, connectors: connectors)
        pool.adaptersChanged([Self.adapter("hci0"), Self.adapter("hci1")])
        for sensor in sensors { _ = try await pool.connect(to: sensor) }
        #expect(pool.adapters.map(\.sensors.count) == [2, 2])
        pool.adaptersChanged([Self.adapter("hci0"), Self.adapter("hci1", up: false)])
        #expect(pool.adapters.map(\.up) == [true, false])
        #expect(pool.adapters.map(\.sensors.count) == [2, 0])
        // The two links of hci1 went down and reconnect: one fits on hci0 only after hci0 frees a slot.
        pool.release(sensors[0])
        _ = try await pool.connect(to: sensors[1])
        #expect(connectors.log.last?.adapter == "hci0")
        let waiting = Task { try await pool.connect(to: sensors[3]) }
        try await pollUntil { pool.isWaiting(sensors[3]) }
        // hci2 plugged in: the waiting sensor gets its slot there.
        pool.adaptersChanged([Self.adapter("hci0"), Self.adapter("hci1", up: false), Self.adapter("hci2")])
        _ = try await waiting.value
        #expect(pool.adapter(holding: sensors[3]) == "hci2")
        #expect(pool.adapters.map(\.name) == ["hci0", "hci1", "hci2"])
    }
}
