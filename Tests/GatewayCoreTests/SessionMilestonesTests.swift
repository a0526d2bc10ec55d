// SPDX-License-Identifier: GPL-2.0-or-later
import ControlProtocol
import Detection
import Foundation
import GatewayCore
import SessionStore
import Testing

@Suite("Session milestones: records and targets (pure)")
struct SessionMilestonesTests {
    static let best = LeaderboardEntry(
        rank: 1, athleteID: 1, athlete: "anna", value: 10, sessionID: "old", at: Date(timeIntervalSince1970: 0))

    static func summary(jumps: Int, height: Double) -> SessionSummary {
        var summary = SessionSummary(profile: "jump")
        summary.jumps = jumps
        summary.bestHeightM = height
        return summary
    }

    @Test("a best beaten is a record once; equalling it is not; a target reached is announced once")
    func announcesOnce() {
        var milestones = SessionMilestones(bests: [.jumps: Self.best], targets: [.bestHeightM: 0.4])
        func due(_ jumps: Int, _ height: Double) -> [String] {
            milestones.due(Self.summary(jumps: jumps, height: height), session: "new", sensor: "s1", athlete: "anna")
                .map { $0.kind }
        }
        #expect(due(10, 0.3).isEmpty, "equal to the best, below the target")
        #expect(due(11, 0.3) == ["record"])
        #expect(due(12, 0.4) == ["target"], "the record is not repeated; the target is reached at equality")
        #expect(due(13, 0.5).isEmpty)
        let progress = milestones.progress(Self.summary(jumps: 13, height: 0.2))
        #expect(progress == [TargetProgress(metric: "best_height_m", target: 0.4, value: 0.2)])
        #expect(progress.first?.targetPct == 50)
    }

    @Test("the record names the value, the best and its session; without an athlete there is none")
    func recordPayload() {
        var milestones = SessionMilestones(bests: [.jumps: Self.best])
        let items = milestones.due(Self.summary(jumps: 12, height: 0), session: "new", sensor: "s1", athlete: "anna")
        guard case .record(let record)? = items.first else {
            Issue.record("expected a record, got \(items)")
            return
        }
        #expect(
            record
                == RecordPayload(
                    sessionId: "new", sensor: "s1", athlete: "anna", metric: "jumps", value: 12, previous: 10,
                    previousSessionId: "old"))
        var anonymous = SessionMilestones(bests: [.jumps: Self.best])
        #expect(anonymous.due(Self.summary(jumps: 99, height: 0), session: "x", sensor: "s", athlete: nil).isEmpty)
    }

    @Test("a flagged flight above the best is no record; the next trusted one above it is")
    func flaggedFlightIsNoRecord() {
        let best = LeaderboardEntry(
            rank: 1, athleteID: 1, athlete: "anna", value: FlightEvent.height(flightTime: 0.5), sessionID: "old",
            at: Date(timeIntervalSince1970: 0))
        var milestones = SessionMilestones(bests: [.bestHeightM: best])
        var live = SessionSummaryAccumulator(profile: .jump)
        func due(after flight: FlightEvent) -> [GatewayEvent] {
            live.add(.jump(flight))
            return milestones.due(live.summary(), session: "new", sensor: "s1", athlete: "anna")
        }
        // An arm movement taken for a 0.7 s flight, then a real 0.6 s one.
        #expect(due(after: FlightEvent(start: 1, end: 1.7, quality: .lowFloorMargin)).isEmpty)
        #expect(due(after: FlightEvent(start: 3, end: 3.6, quality: .sampleGap)).isEmpty)
        let items = due(after: FlightEvent(start: 5, end: 5.6))
        guard case .record(let record)? = items.first, items.count == 1 else {
            Issue.record("expected one record, got \(items)")
            return
        }
        #expect(record.metric == "best_height_m")
        #expect(abs(record.value - FlightEvent.height(flightTime: 0.6)) < 1e-9)
    }
}
