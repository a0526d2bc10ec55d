// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Testing

@testable import sportsensor_dev

@Suite("sportsensor-dev validate: false flights in movement without any")
struct ValidationFalseFlightTests {
    @Test("the Poisson upper limit: the rule of three for none, the tabled limits for one and two")
    func poissonLimit() throws {
        // One-sided 95 % limits of a Poisson mean for 0, 1, 2 events: 2.996, 4.744, 6.296.
        #expect(abs(try #require(poissonUpperLimit(count: 0, exposure: 1)) - 2.996) < 0.001)
        #expect(abs(try #require(poissonUpperLimit(count: 1, exposure: 1)) - 4.744) < 0.001)
        #expect(abs(try #require(poissonUpperLimit(count: 2, exposure: 0.5)) - 2 * 6.296) < 0.002)
        #expect(poissonUpperLimit(count: 0, exposure: 0) == nil)
    }

    @Test("rows without a jump or throw label pool per split, rate and profile; flight recordings stay out")
    func pooling() {
        // Each row is 30 minutes of one recording.
        func row(_ dataset: String, _ profile: DetectionProfile, falses: Int, flightLabels: Int) -> ValidationRow {
            var row = ValidationRow(
                dataset: dataset, split: "held-out", placement: "wrist", rate: 50, profile: profile)
            row.recordings = 1
            row.hours = 0.5
            row.flightLabels = flightLabels
            row.standard.detections = falses
            row.baseline.detections = 2 * falses
            return row
        }
        let table = validationFalseFlightTable([
            row("walk", .jump, falses: 1, flightLabels: 0),
            row("arm", .jump, falses: 0, flightLabels: 0),
            row("plates", .jump, falses: 5, flightLabels: 3),
            row("plates", .throw, falses: 5, flightLabels: 3),
            row("walk", .steps, falses: 9, flightLabels: 0),
        ])
        // One false jump in an hour: 1.0 per hour, at most 4.7 per hour at 95 %; baseline two.
        #expect(table.contains("| held-out | 50 | jump | walk, arm | 2 | 60.0 | 1 | 1.0 | 4.7 | 2 | 2.0 |"), "\(table)")
        #expect(!table.contains("plates") && !table.contains("| throw |") && !table.contains("steps"))
    }
}
