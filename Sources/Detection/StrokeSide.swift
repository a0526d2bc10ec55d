// SPDX-License-Identifier: GPL-2.0-or-later

/// Which side of the body a stroke was played on, as a coach names it.
///
/// Raw values are the wire names of the event record's `side` key (Docs/FORMATS.md).
public enum StrokeSide: String, Hashable, Sendable, CaseIterable, Codable {
    /// Played on the side of the racket hand.
    case forehand
    /// Played across the body.
    case backhand
}
