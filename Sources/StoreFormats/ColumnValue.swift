// SPDX-License-Identifier: GPL-2.0-or-later

/// A column value in one of SQLite's storage classes, without the database: how a tail segment
/// record holds an event's columns (Docs/FORMATS.md, "Tail segments") and how the outbox hands a
/// row to replication.
public enum ColumnValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}
