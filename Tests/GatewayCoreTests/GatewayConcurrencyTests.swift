// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import GatewayTesting
import SensorLinks
import Testing

/// Control requests that race: each state change is decided once, whatever the interleaving.
@Suite("Gateway under concurrent requests", .serialized, .timeLimit(.minutes(5)))
struct GatewayConcurrencyTests {
    /// The outcomes of `count` concurrent calls: successes and the failures.
    private static func race<T: Sendable>(
        _ count: Int, _ body: @escaping @Sendable () async throws -> T
    ) async -> (successes: [T], failures: [ControlError]) {
        await withTaskGroup(of: Result<T, ControlError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        return .success(try await body())
                    } catch let error as ControlError {
                        return .failure(error)
                    } catch {
                        return .failure(ControlError(.internal, "\(error)"))
                    }
                }
            }
            var successes: [T] = []
            var failures: [ControlError] = []
            for await result in group {
                switch result {
                case .success(let value): successes.append(value)
                case .failure(let error): failures.append(error)
                }
            }
            return (successes, failures)
        }
    }

    @Test("50 concurrent starts on one sensor: exactly one session, 49 conflicts, and it stops")
    func concurrentStarts() async throws {
        let bench = try GatewayBench(scripts: [.tableTennis])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        #expect(try await bench.connected(count: 1))
        let gateway = bench.gateway
        let (started, failures) = await Self.race(50) {
            try await gateway.startSession(StartSessionRequest(sensor: "virtual-1", athlete: "Ada"))
        }
        #expect(started.count == 1)
        #expect(failures.map(\.code) == Array(repeating: .conflict, count: 49))
        // Whether the loser came while the winner was being created or after: the real id.
        let id = try #require(started.first).id
        #expect(Set(failures.map(\.message)) == ["virtual-1 already records session \(id)"])
        #expect(Set(failures.map(\.fix)) == ["stop it first with `sportsensorctl stop \(id.prefix(8))`"])
        let live = try await gateway.sessions(athlete: nil, sensor: nil, profile: nil, live: true, limit: nil)
        #expect(live.map(\.id) == started.map(\.id))
        let stopped = try await gateway.stopSession(id: try #require(started.first).id)
        #expect(!stopped.isLive)
        #expect(try await gateway.status().liveSessions == 0)
        running.cancel()
        try await running.value
    }

    @Test("30 concurrent pairs of one address: one link, the rest 409; unpair leaves none")
    func concurrentPairs() async throws {
        let refusing = ClosureSensorConnector { _ in throw CancellationError() }
        let bench = try GatewayBench(scripts: [.rest], connectors: [refusing])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        let gateway = bench.gateway
        let (paired, failures) = await Self.race(30) {
            try await gateway.pair(PairRequest(address: "C4:05:FC:97:8B:75", athlete: "Bea"))
        }
        #expect(paired.count == 1)
        #expect(failures.map(\.code) == Array(repeating: .conflict, count: 29))
        // The fix names a command that exists (there is no `rename`), with the label to paste.
        let paste = "to pair it under another alias, unpair it first: `sportsensorctl unpair C4:05:FC:97:8B:75`"
        #expect(Set(failures.compactMap(\.fix)).isSubset(of: [paste, "wait for that pair to finish"]))
        #expect(try await gateway.sensors().filter { $0.address == "C4:05:FC:97:8B:75" }.count == 1)
        let (unpaired, unpairFailures) = await Self.race(10) { () async throws -> Bool in
            try await gateway.unpair(sensor: "C4:05:FC:97:8B:75")
            return true
        }
        #expect(unpaired.count == 1)
        #expect(unpairFailures.map(\.code) == Array(repeating: .notFound, count: 9))
        #expect(try await gateway.sensors().map(\.address) == ["CA:FE:00:00:00:01"])
        running.cancel()
        try await running.value
    }
}

@Suite("Gateway: names")
struct GatewayNameTests {
    @Test("aliases and athlete names with control characters or past 64 characters: 400 naming the field")
    func names() async throws {
        let bench = try GatewayBench(scripts: [.rest])
        let running = Task { try await bench.gateway.run() }
        await bench.gateway.waitUntilStarted()
        let gateway = bench.gateway
        let escape = await GatewayBench.expectControlError(.invalidRequest) {
            try await gateway.updateSensor("virtual-1", SensorUpdate(athlete: "\u{1B}[2JBob"))
        }
        #expect(escape?.message == "the athlete name contains the control character U+001B")
        let long = await GatewayBench.expectControlError(.invalidRequest) {
            try await gateway.updateSensor("virtual-1", SensorUpdate(alias: String(repeating: "a", count: 65)))
        }
        #expect(long?.message == "the alias is 65 characters long; the limit is 64")
        await GatewayBench.expectControlError(.invalidRequest) {
            try await gateway.startSession(StartSessionRequest(sensor: "virtual-1", athlete: "line\nbreak"))
        }
        #expect(try await bench.store.athletes().isEmpty, "no athlete was added")
        #expect(try await gateway.sensors().first?.alias == "virtual-1")
        running.cancel()
        try await running.value
    }
}
