// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Foundation
import GatewayCore
import Testing

/// `POST /v1/sessions/import` takes only values within `StoredRanges`: each field out of range is
/// a 400 naming the field and its range, and nothing is stored.
@Suite("Gateway: import ranges")
struct ImportRangeTests {
    static func request(
        lost: Int64 = 0, malformed: Int64 = 0, rate: Double? = 100, startedAt: Date? = nil,
        samples: [[Double]] = [[0, 0, 0, 0, 16384], [1, 0.01, 0, 0, 16384]]
    ) -> ImportRequest {
        ImportRequest(
            profile: "steps", rules: "standard", set: [], athlete: nil, sensor: nil, startedAt: startedAt,
            captureStart: nil, lostSamples: lost, malformedNotifications: malformed, sampleRate: rate,
            samples: ImportSamples(samples.compactMap(ImportSample.init(row:))))
    }

    @Test("lost_samples, malformed_notifications, sample_rate, started_at, t and index out of range: 400s naming each")
    func outOfRange() async throws {
        let bench = try GatewayBench(scripts: [])
        let cases: [(ImportRequest, String)] = [
            (Self.request(lost: .max), "lost_samples is 9223372036854775807; it must be 0 to 1000000000000"),
            (Self.request(lost: -5), "lost_samples is -5; it must be 0 to 1000000000000"),
            (Self.request(malformed: -1), "malformed_notifications is -1; it must be 0 to 1000000000000"),
            (Self.request(rate: 1e300), "sample_rate is 1e+300 Hz; it must be 0.1 Hz to 10000 Hz"),
            (Self.request(rate: 0), "sample_rate is 0 Hz; it must be 0.1 Hz to 10000 Hz"),
            (
                Self.request(startedAt: Date(timeIntervalSince1970: -1)),
                "started_at is 1969-12-31T23:59:59Z; it must be 1970-01-01T00:00:00Z to 2100-01-01T00:00:00Z"
            ),
            (
                Self.request(samples: [[0, 0, 0, 0, 0], [1, 1e300, 0, 0, 0]]),
                "samples[1].t is 1e+300 s; it must be 0 s to 604800 s"
            ),
            (
                Self.request(samples: [[-3, 0, 0, 0, 0]]),
                "samples[0].index is -3; it must be 0 to 9007199254740992"
            ),
        ]
        for (request, message) in cases {
            let error = await GatewayBench.expectControlError(.invalidRequest) {
                try await bench.gateway.services.administration.importSession(request)
            }
            #expect(error?.message == message)
            #expect(error?.fix == "send values in the ranges Docs/API.md lists for the import route")
        }
        // Year 1 (the case), whatever calendar the formatter shows it in.
        let yearOne = await GatewayBench.expectControlError(.invalidRequest) {
            try await bench.gateway.services.administration.importSession(
                Self.request(startedAt: Date(timeIntervalSince1970: -62_135_596_800)))
        }
        #expect(yearOne?.message.hasPrefix("started_at is 000") == true, "\(String(describing: yearOne))")
        #expect(yearOne?.message.hasSuffix("it must be 1970-01-01T00:00:00Z to 2100-01-01T00:00:00Z") == true)
        #expect(try await bench.store.sessions().isEmpty, "nothing out of range was stored")
    }

    @Test("unknown rules are a 400 naming them and the choices, for an import and a re-analysis alike")
    func unknownRules() async throws {
        let bench = try GatewayBench(scripts: [])
        let administration = bench.gateway.services.administration
        var request = Self.request()
        request.rules = "strict"
        let refused = await GatewayBench.expectControlError(.invalidRequest) {
            try await administration.importSession(request)
        }
        #expect(refused?.message == "unknown rules 'strict'")
        #expect(refused?.fix == "use standard or baseline")
        let imported = try await administration.importSession(Self.request())
        let again = await GatewayBench.expectControlError(.invalidRequest) {
            try await administration.reanalyze(
                id: imported.session.id, ReanalyzeRequest(profile: nil, rules: "strict", set: []))
        }
        #expect(again?.message == "unknown rules 'strict'")
        #expect(again?.fix == "use standard or baseline")
        #expect(try await bench.store.sessions().count == 1, "only the valid import was stored")
    }

    @Test("the bounds themselves are accepted")
    func bounds() async throws {
        let bench = try GatewayBench(scripts: [])
        let imported = try await bench.gateway.services.administration.importSession(
            Self.request(
                lost: 1_000_000_000_000, malformed: 1_000_000_000_000, rate: 10_000,
                startedAt: Date(timeIntervalSince1970: 4_102_444_800),
                samples: [[0, 0, 0, 0, 0], [9_007_199_254_740_992, 604_800, 0, 0, 0]]))
        #expect(imported.session.lostSamples == 1_000_000_000_000)
        #expect(imported.session.sampleRate == 10_000)
    }
}
