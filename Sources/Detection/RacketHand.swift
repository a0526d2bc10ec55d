// SPDX-License-Identifier: GPL-2.0-or-later

/// The hand an athlete holds the racket in (the roster's `racket_hand`): what telling a
/// table-tennis stroke's side (`StrokeSide`) from the wrist needs; how the sensor is turned on the
/// strap does not matter. A table-tennis session takes it as `racket_hand` (`StrokeSideEstimator`).
public enum RacketHand: String, Hashable, Sendable, CaseIterable, Codable {
    case left
    case right
}
