// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// Something replication could not do, with the fix. Never carries the password.
public struct ReplicationError: CodedError, Sendable {
    /// What kind of failure.
    public struct Code: NamedCode {
        public let name: String
        /// `[replication]` is malformed (URL, gateway id, sizes).
        public static let badConfiguration = Code(name: "badConfiguration")
        /// PostgreSQL cannot be reached (refused, timed out, DNS, TLS).
        public static let unreachable = Code(name: "unreachable")
        /// PostgreSQL refused the role or password, or the role lacks a privilege.
        public static let refused = Code(name: "refused")
        /// Another gateway already replicates under this gateway id.
        public static let gatewayIDClash = Code(name: "gatewayIdClash")
        /// The central schema is newer than this build.
        public static let newerSchema = Code(name: "newerSchema")
        /// The server failed a statement.
        public static let server = Code(name: "server")
        /// The local store could not be read or written (the outbox).
        public static let store = Code(name: "store")
    }

    /// What kind of failure.
    public var code: Code
    /// What went wrong and what to do.
    public var message: String
    /// The underlying error, if any.
    public var cause: (any Error)?

    /// Creates an error whose message ends with the fix.
    public init(_ code: Code, _ problem: String, fix: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = "\(problem): \(fix)"
        self.cause = cause
    }
}
