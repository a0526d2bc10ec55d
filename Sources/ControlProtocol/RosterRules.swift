// SPDX-License-Identifier: GPL-2.0-or-later
import Detection
import Foundation

/// What an athlete's fields may be: every entry point (the API and the CLI's direct store path)
/// checks them here, beside `NameRules`.
public enum RosterRules {
    /// Body masses accepted, kg (exclusive bounds; 0 in a request clears the mass).
    public static let massRange = 0.0...500.0
    /// Birth years accepted (0 in a request clears the year).
    public static let birthYears = 1900...2100

    /// Throws a 400 naming the first bad field and the fix.
    public static func check(_ request: AthleteRequest) throws(ControlError) {
        if let name = request.name {
            try NameRules.check(name, field: "athlete name")
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ControlError(.invalidRequest, "the athlete name is empty", fix: "give a name")
            }
        }
        if let mass = request.massKg, mass != 0, !(mass > massRange.lowerBound && mass < massRange.upperBound) {
            throw ControlError(
                .invalidRequest, "a body mass of \(mass) kg is not possible",
                fix: "give kilograms above 0 and below 500 (0 clears it)")
        }
        if let year = request.birthYear, year != 0, !birthYears.contains(year) {
            throw ControlError(
                .invalidRequest, "the birth year \(year) is not possible",
                fix: "give a year from \(birthYears.lowerBound) to \(birthYears.upperBound) (0 clears it)")
        }
        if let hand = request.racketHand, !hand.isEmpty, RacketHand(rawValue: hand) == nil {
            throw ControlError(
                .invalidRequest, "\(hand) is not a racket hand", fix: #"give "left" or "right" ("" clears it)"#)
        }
        for team in request.teams ?? [] { try NameRules.check(team, field: "team name") }
    }
}
