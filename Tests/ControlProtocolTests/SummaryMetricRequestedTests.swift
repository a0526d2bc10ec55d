// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Testing

@Suite("The metric a request names")
struct SummaryMetricRequestedTests {
    @Test("a known name is its metric")
    func known() throws {
        #expect(try SummaryMetric.requested("hits") == .hits)
        #expect(try SummaryMetric.requested("playerload") == .playerload)
    }

    @Test("an unknown name is a 400 naming it, with every name that works as the fix, as the CLI's error says it")
    func unknown() {
        let error = #expect(throws: ControlError.self) { try SummaryMetric.requested("golf") }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message == "unknown metric golf")
        let names = SummaryMetric.allCases.map(\.rawValue)
        #expect(error?.fix == "use one of " + names.joined(separator: ", "))
        guard case .failure(let offline) = SummaryMetric.named("golf") else {
            Issue.record("golf is no metric")
            return
        }
        #expect(offline.message == error?.message && offline.fix == error?.fix, "one wording for both")
    }
}
