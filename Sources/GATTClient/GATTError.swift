// SPDX-License-Identifier: GPL-2.0-or-later
import BLEWire
import CodedErrors

/// Why a GATT operation failed: a code to branch on, a message that names the fix where there is
/// one, the ATT request it concerns, and the underlying cause.
public struct GATTError: CodedError, Sendable {
    /// What kind of failure this is.
    public enum Code: Hashable, Sendable, CustomStringConvertible {
        /// The peer did not answer a request within the transaction timeout (30 s by default).
        /// The link has been closed: the specification forbids further ATT PDUs on it.
        case timeout
        /// The peer answered with an ATT Error Response carrying this code.
        case attError(ATTErrorCode)
        /// The link is gone (closed by the peer, by this side, or failed).
        case disconnected
        /// The peer broke the ATT protocol (for example a response that does not answer the
        /// outstanding request). The link has been closed.
        case protocolViolation
        /// The attribute the operation needs does not exist on the peer (no such service,
        /// characteristic or descriptor).
        case notFound
        /// The peer's response could not be parsed or is inconsistent.
        case malformedResponse
        /// The caller passed an argument the operation cannot use (for example a value longer
        /// than the MTU allows).
        case invalidArgument

        /// `attError(Attribute Not Found)`.
        public var description: String {
            switch self {
            case .timeout: "timeout"
            case .attError(let code): "attError(\(code))"
            case .disconnected: "disconnected"
            case .protocolViolation: "protocolViolation"
            case .notFound: "notFound"
            case .malformedResponse: "malformedResponse"
            case .invalidArgument: "invalidArgument"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What happened and, where there is one, what to do about it.
    public var message: String
    /// The opcode of the ATT request that failed, when the failure concerns one.
    public var requestOpcode: ATTOpcode?
    /// The attribute handle concerned, when there is one.
    public var handle: UInt16?
    /// The underlying error (a `WireError`, a bearer error), when there is one.
    public var cause: (any Error)?

    /// A failure with `code` and `message`, optionally about a request, a handle and a cause.
    public init(
        _ code: Code, _ message: String, requestOpcode: ATTOpcode? = nil, handle: UInt16? = nil,
        cause: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.cause = cause
    }

    /// The request and handle, shown as `[request Read Request (0x0A), handle 0x3]`.
    public var details: [String] {
        var details: [String] = []
        if let requestOpcode { details.append("request \(requestOpcode)") }
        if let handle { details.append("handle 0x" + String(handle, radix: 16, uppercase: true)) }
        return details
    }

    /// The error for an ATT Error Response.
    static func attError(_ response: ATTErrorResponse) -> GATTError {
        GATTError(
            .attError(response.error), "the sensor refused the request: \(response.error)" + fix(for: response.error),
            requestOpcode: response.requestOpcode, handle: response.handle)
    }

    private static func fix(for code: ATTErrorCode) -> String {
        switch code {
        case .insufficientAuthentication, .insufficientEncryption, .insufficientEncryptionKeySize,
            .insufficientAuthorization:
            " (pair or bond with the sensor first)"
        case .invalidHandle, .attributeNotFound, .databaseOutOfSync:
            " (the attribute table changed or was never discovered: rediscover services)"
        case .insufficientResources:
            " (the sensor is busy: retry later or restart it)"
        default:
            ""
        }
    }

    /// The error every request fails with after a transaction timeout.
    static func timeout(requestOpcode: ATTOpcode?, handle: UInt16?) -> GATTError {
        GATTError(
            .timeout,
            "the sensor stopped answering (no ATT response within the transaction timeout; the link was closed): "
                + "move it closer or restart it, then reconnect",
            requestOpcode: requestOpcode, handle: handle)
    }
}
