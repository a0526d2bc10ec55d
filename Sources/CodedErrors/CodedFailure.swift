// SPDX-License-Identifier: GPL-2.0-or-later

/// The ``CodedError`` that is only a code, a message and a cause, equal to another when their
/// codes and messages are. A target names its own by its code type, so that catching one target's
/// failures never catches another's:
///
/// ```swift
/// public typealias SensorLinkError = CodedFailure<SensorLinkErrorCode>
/// public enum SensorLinkErrorCode: String, NamedCode { case connectFailed, silent }
/// ```
///
/// An error that carries more (a request, a file and line) is a struct of its own.
public struct CodedFailure<Code: Hashable & Sendable & CustomStringConvertible>: CodeAndMessageHashable, Sendable {
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
