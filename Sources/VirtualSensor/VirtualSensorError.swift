// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// A virtual sensor could not be set up: its configuration is out of range.
public struct VirtualSensorError: CodedError, Sendable {
    /// What was wrong.
    public struct Code: NamedCode {
        public let name: String
        /// The sample rate is outside 25–400 Hz.
        public static let invalidSampleRate = Code(name: "invalidSampleRate")
        /// Samples per notification is below 1 or cannot fit the server MTU.
        public static let invalidSamplesPerNotification = Code(name: "invalidSamplesPerNotification")
        /// The server MTU is below 23 (the LE minimum) or above 517.
        public static let invalidMTU = Code(name: "invalidMTU")
        /// A fault fraction is outside 0–1, or a fault count is negative.
        public static let invalidFault = Code(name: "invalidFault")
        /// The advertised name is empty or longer than 248 bytes.
        public static let invalidName = Code(name: "invalidName")
        /// `run(on:)` was called while the sensor already serves a connection.
        public static let alreadyRunning = Code(name: "alreadyRunning")
        /// A connection was attempted while the sensor is (simulated) out of range.
        public static let outOfRange = Code(name: "outOfRange")
    }

    /// What was wrong.
    public var code: Code
    /// What was wrong and how to fix it.
    public var message: String
    /// The underlying error, if any.
    public var cause: (any Error)?

    /// An error of kind `code`, explained by `message`.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
