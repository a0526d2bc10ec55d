// SPDX-License-Identifier: GPL-2.0-or-later

/// The hand an athlete holds the racket in (the roster's `racket_hand`): a table-tennis stroke's
/// side (`StrokeSide`) is told from the wrist's movement relative to it.
public enum RacketHand: String, Hashable, Sendable, CaseIterable, Codable {
    case left
    case right

    /// The table-tennis detection parameter that carries the hand into a session's settings.
    public static let parameterKey = "racket_hand"

    /// The parameter's value: -1 left, 1 right (0, the default, is a hand not known).
    public var parameterValue: Int { self == .left ? -1 : 1 }
}
