// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// A control request that failed: the code picks the HTTP status, the message and fix go to
/// the client verbatim.
public struct ControlError: CodedError, Hashable, Sendable {
    /// What kind of failure, with its HTTP status.
    public struct Code: NamedCode {
        /// The stable name in error bodies.
        public let name: String
        /// The HTTP status it maps to.
        public let httpStatus: Int

        /// 404: no such sensor or session.
        public static let notFound = Code(name: "not-found", httpStatus: 404)
        /// 409: the state forbids it (already paired, session already live, ambiguous prefix).
        public static let conflict = Code(name: "conflict", httpStatus: 409)
        /// 400: the request itself is wrong.
        public static let invalidRequest = Code(name: "invalid-request", httpStatus: 400)
        /// 401: the TCP listener needs a bearer token and the request has none, or a wrong one.
        public static let unauthorized = Code(name: "unauthorized", httpStatus: 401)
        /// 403: the request is understood and authenticated but not allowed.
        public static let forbidden = Code(name: "forbidden", httpStatus: 403)
        /// 503: a dependency is unavailable (no adapter, store full or broken).
        public static let unavailable = Code(name: "unavailable", httpStatus: 503)
        /// 500: a bug.
        public static let `internal` = Code(name: "internal", httpStatus: 500)
    }

    /// What kind of failure.
    public var code: Code
    /// What went wrong.
    public var message: String
    /// What to do about it.
    public var fix: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, fix: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
    }

    /// The error body sent to the client.
    public var body: ControlErrorBody { ControlErrorBody(code: code.name, error: message, fix: fix) }
}
