// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import SessionStore
import Testing

/// A virtual sensor at 400 Hz (three samples a notification) recorded by a real daemon: every
/// sample's time is distinct and increasing in the store, in `export --format csv` and in the
/// API's samples CSV.
@Suite("End to end: sample times at 400 Hz", .serialized, .timeLimit(.minutes(3)))
struct SampleRateEndToEndTests {
    static func times(csv text: String) -> [String] {
        text.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != "," }) }
    }

    static func strictlyIncreasing(_ times: [String]) -> Bool {
        let values = times.compactMap(Double.init)
        return values.count == times.count && zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
    }

    @Test("400 Hz → store → export CSV and API CSV: times strictly increase")
    func fourHundredHertz() async throws {
        try await RunningGateway.with(config: "[virtual]\nsensors = 1\nrate = 400\n") { gateway in
            #expect(try await gateway.waitForLink("virtual-1"))
            let started = try await gateway.controlJSON(["start", "--sensor", "virtual-1", "--json"]) as? [String: Any]
            let id = try #require(started?["id"] as? String)
            // Seconds of samples, as the session counts them, rather than seconds of waiting.
            #expect(try await gateway.waitForSamples(of: id, atLeast: 1_200) >= 1_200, "\(gateway.log)")
            #expect(try await gateway.control(["stop", id]).status == 0)

            let exported = try await gateway.control(["export", id, "--format", "csv"])
            #expect(exported.status == 0, "\(exported)")
            let times = Self.times(csv: exported.standardOutput)
            #expect(times.count > 1000, "seconds of samples at 400 Hz")
            let repeats = zip(times, times.dropFirst()).filter { $0 == $1 }.count
            #expect(repeats == 0, "\(repeats) repeated times, e.g. \(times.prefix(12))")
            #expect(Self.strictlyIncreasing(times))

            let api = try RawHTTPClient.connect(unixSocket: gateway.socketPath)
            let answer = try await api.exchange("GET", "/v1/sessions/\(id)/samples.csv")
            #expect(answer.status == 200)
            #expect(Self.times(csv: answer.text) == times, "the API's CSV has the same times")

            let store = try SessionStore.openReadOnly(at: StateDirectory(path: gateway.directory + "/state"))
            defer { try? store.close() }
            let stored = try await store.samples(of: try #require(UUID(uuidString: id))).map(\.t)
            #expect(stored.count == times.count)
            #expect(zip(stored, stored.dropFirst()).allSatisfy { $0 < $1 }, "the store's times strictly increase")
        }
    }
}
