// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// Why a sensor link went down, why an attempt failed, or why the link gave up: a code to branch
/// on, a message that names the fix, and the underlying cause.
///
/// Two errors are equal when their codes and messages are; the cause is not compared.
public typealias SensorLinkError = CodedFailure<SensorLinkErrorCode>

/// What kind of failure a ``SensorLinkError`` is.
public enum SensorLinkErrorCode: String, NamedCode {
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
