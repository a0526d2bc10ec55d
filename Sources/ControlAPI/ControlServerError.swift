// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// Why the control server could not start: a code to branch on, a message that names the fix,
/// and the underlying cause.
///
/// Two errors are equal when their codes and messages are; the cause is not compared.
public typealias ControlServerError = CodedFailure<ControlServerErrorCode>

/// What kind of failure a ``ControlServerError`` is.
public enum ControlServerErrorCode: String, NamedCode {
    /// Another process (most likely another `sportsensord`) accepts connections on the socket.
    case socketInUse
    /// Something that is not a socket sits where the socket should be.
    case socketPathOccupied
    /// The socket's directory could not be created or the stale socket not removed.
    case socketPathUnusable
    /// The configuration is unusable (an empty bearer token, a bad port).
    case invalidConfiguration
}
