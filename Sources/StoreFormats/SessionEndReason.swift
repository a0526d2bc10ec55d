// SPDX-License-Identifier: GPL-2.0-or-later

/// Why a session ended. Stored as text, so new reasons need no migration.
public struct SessionEndReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stored text.
    public var rawValue: String
    /// Creates a reason from its stored text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The user stopped the session.
    public static let stopped = SessionEndReason(rawValue: "stopped")
    /// The daemon shut down in an orderly way.
    public static let shutdown = SessionEndReason(rawValue: "shutdown")
    /// The process died while recording; closed when the store was next opened.
    public static let interrupted = SessionEndReason(rawValue: "interrupted")
    /// The Bluetooth link to the sensor was lost and not regained.
    public static let linkLost = SessionEndReason(rawValue: "link-lost")
    /// Imported from a file in one go.
    public static let imported = SessionEndReason(rawValue: "imported")

    /// The stored text.
    public var description: String { rawValue }
}
