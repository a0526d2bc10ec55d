// SPDX-License-Identifier: GPL-2.0-or-later

/// The hand an athlete holds the racket in (the roster's `racket_hand`): what telling a
/// table-tennis stroke's side (`StrokeSide`) from the wrist needs, with how the sensor sits on the
/// strap. No detector takes it yet (Docs/DETECTION.md).
public enum RacketHand: String, Hashable, Sendable, CaseIterable, Codable {
    case left
    case right
}
