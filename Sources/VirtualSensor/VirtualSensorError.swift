// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// A virtual sensor could not be set up: its configuration is out of range.
public typealias VirtualSensorError = CodedFailure<VirtualSensorErrorCode>

/// What kind of failure a ``VirtualSensorError`` is.
public enum VirtualSensorErrorCode: String, NamedCode {
    /// The sample rate is outside 25–400 Hz.
    case invalidSampleRate
    /// Samples per notification is below 1 or cannot fit the server MTU.
    case invalidSamplesPerNotification
    /// The server MTU is below 23 (the LE minimum) or above 517.
    case invalidMTU
    /// A fault fraction is outside 0–1, or a fault count is negative.
    case invalidFault
    /// The advertised name is empty or longer than 248 bytes.
    case invalidName
    /// `run(on:)` was called while the sensor already serves a connection.
    case alreadyRunning
    /// A connection was attempted while the sensor is (simulated) out of range.
    case outOfRange
}
