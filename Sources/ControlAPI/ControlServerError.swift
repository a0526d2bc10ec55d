// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// Why the control server could not start: a code to branch on, a message that names the fix,
/// and the underlying cause.
///
/// Two errors are equal when their codes and messages are; the cause is not compared.
public struct ControlServerError: CodeAndMessageHashable, Sendable {
    /// What kind of failure this is.
    public enum Code: String, NamedCode {
        /// Another process (most likely another `sportsensord`) accepts connections on the socket.
        case socketInUse
        /// Something that is not a socket sits where the socket should be.
        case socketPathOccupied
        /// The socket's directory could not be created or the stale socket not removed.
        case socketPathUnusable
        /// The configuration is unusable (an empty bearer token, a bad port).
        case invalidConfiguration
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened and what to do about it.
    public var message: String
    /// The underlying error, when there is one.
    public var cause: (any Error)?

    /// A failure with `code`, `message` and an optional cause.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
