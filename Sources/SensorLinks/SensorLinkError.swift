// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// Why a sensor link went down, why an attempt failed, or why the link gave up: a code to branch
/// on, a message that names the fix, and the underlying cause.
///
/// Two errors are equal when their codes and messages are; the cause is not compared.
public struct SensorLinkError: CodeAndMessageHashable, Sendable {
    /// What kind of failure this is.
    public enum Code: String, NamedCode {
        /// The connector could not open a bearer to the sensor.
        case connectFailed
        /// The bearer opened but GATT setup (MTU exchange, discovery, enabling notifications)
        /// failed.
        case setupFailed
        /// The link ended: the peer closed it, the socket failed, or the GATT client gave up.
        case disconnected
        /// No notification arrived within the watchdog timeout although the bearer was open.
        case silent
        /// The reconnect policy's maximum number of attempts was used up.
        case attemptsExhausted
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
