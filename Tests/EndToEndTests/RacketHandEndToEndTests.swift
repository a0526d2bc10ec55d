// SPDX-License-Identifier: GPL-2.0-or-later
import Foundation
import GatewayTesting
import Testing

/// An athlete's racket hand through the real processes: set and cleared with `athletes`, checked
/// before anything is sent, and carried into the settings of a table-tennis session started for
/// the athlete.
@Suite("End to end: an athlete's racket hand", .serialized, .timeLimit(.minutes(4)))
struct RacketHandEndToEndTests {
    static let oneTableTennisSensor = """
        [virtual]
        sensors = 1
        scripts = ["table-tennis"]

        """

    @Test("athletes add/edit --racket-hand; a table-tennis session for the athlete starts with racket_hand")
    func racketHand() async throws {
        try await RunningGateway.with(config: Self.oneTableTennisSensor) { gateway in
            #expect(try await gateway.control(["athletes", "add", "ana", "--racket-hand", "left"]).status == 0)
            #expect(try await gateway.control(["athletes", "add", "ben"]).status == 0)
            let bad = try await gateway.control(["athletes", "add", "eve", "--racket-hand", "both"])
            #expect(bad.status == 64 && bad.standardError.contains("left or right"), "\(bad)")
            let listed = try await gateway.controlJSON(["athletes", "list", "--json"]) as? [[String: Any]] ?? []
            #expect(listed.map { $0["racket_hand"] as? String } == ["left", nil])
            let table = try await gateway.control(["athletes", "list"])
            #expect(table.standardOutput.contains("HAND") && table.standardOutput.contains(" left "), "\(table)")

            #expect(try await gateway.control(["athletes", "edit", "ben", "--racket-hand", "right"]).status == 0)
            #expect(try await gateway.control(["athletes", "edit", "ana", "--racket-hand", "none"]).status == 0)
            #expect(try await gateway.control(["athletes", "edit", "ana", "--racket-hand", "left"]).status == 0)
            let edited = try await gateway.controlJSON(["athletes", "list", "--json"]) as? [[String: Any]] ?? []
            #expect(edited.map { $0["racket_hand"] as? String } == ["left", "right"])
            let cleared = try await gateway.control(["athletes", "edit", "ben", "--racket-hand", "none", "--json"])
            #expect(cleared.status == 0 && !cleared.standardOutput.contains("racket_hand"), "\(cleared)")
        }
    }
}
