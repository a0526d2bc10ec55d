// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import ControlProtocol
import Foundation

/// A request to `sportsensord` that failed. The message says what happened and what to do;
/// `exitCode` follows sysexits(3).
struct ClientError: CodedError {
    /// What kind of failure.
    struct Code: NamedCode {
        /// The stable name.
        let name: String
        /// The daemon is not there: no socket file, or nobody accepts on it (69 EX_UNAVAILABLE).
        static let unreachable = Code(name: "unreachable")
        /// The socket is there but this user may not use it (77 EX_NOPERM).
        static let permissionDenied = Code(name: "permission-denied")
        /// The daemon went away in the middle of an answer or a stream (69 EX_UNAVAILABLE).
        static let connectionLost = Code(name: "connection-lost")
        /// The daemon answered with an error body (exit code by the body's code).
        static let daemon = Code(name: "daemon")
        /// The answer was not what the API promises (76 EX_PROTOCOL).
        static let protocolViolation = Code(name: "protocol")
        /// An option or argument is not valid (64 EX_USAGE).
        static let invalidOption = Code(name: "invalid-option")
    }

    /// What kind of failure.
    var code: Code
    /// What went wrong.
    var message: String
    /// What to do about it.
    var fix: String?
    /// The daemon's error body, for `.daemon`.
    var body: ControlErrorBody?
    /// The underlying error.
    var cause: (any Error)?

    /// sysexits(3): 69 when the daemon is not there, 77 without permission, 76 for a broken
    /// answer, 64 for a bad option; a daemon error by its code: `not-found`, `conflict` and
    /// `invalid-request` 65 (EX_DATAERR: what was asked is wrong), `unavailable` 69, `forbidden`
    /// 77, anything else (`internal`, unknown codes) 1.
    var exitCode: Int32 {
        switch code {
        case .unreachable, .connectionLost: return 69
        case .permissionDenied: return 77
        case .protocolViolation: return 76
        case .invalidOption: return 64
        default: break
        }
        switch body?.code {
        case "not-found", "conflict", "invalid-request": return 65
        case "unavailable": return 69
        case "unauthorized", "forbidden": return 77
        default: return 1
        }
    }

    /// The error for a connection that could not be made, from its errno.
    static func connecting(to endpoint: ControlEndpoint, errno: Int32?, cause: (any Error)?) -> ClientError {
        switch (endpoint, errno) {
        case (.unixSocket(let path), EACCES), (.unixSocket(let path), EPERM):
            return ClientError(
                code: .permissionDenied, message: "permission denied on \(path)",
                fix:
                    "add yourself to the `sportsensor` group (`sudo usermod -aG sportsensor $USER`, then log in again)",
                cause: cause)
        case (.unixSocket(let path), _):
            return ClientError(
                code: .unreachable, message: "cannot reach sportsensord at \(path)",
                fix: "is the service running? `systemctl status sportsensord`", cause: cause)
        case (.tcp(let url, _), _):
            let reason = errno.map { ": " + String(cString: strerror($0)) } ?? ""
            return ClientError(
                code: .unreachable, message: "cannot reach sportsensord at \(url)\(reason)",
                fix: "is the service running and its TCP listener configured? `systemctl status sportsensord`",
                cause: cause)
        }
    }

    /// The error for an HTTP error answer: the daemon's `ControlErrorBody` when the body is one,
    /// else the status line.
    static func answer(status: Int, reason: String, body: [UInt8]) -> ClientError {
        if let decoded = try? JSONDecoder.controlAPI.decode(ControlErrorBody.self, from: Data(body)) {
            return ClientError(code: .daemon, message: decoded.error, fix: decoded.fix, body: decoded)
        }
        let code: String =
            switch status {
            case 400: "invalid-request"
            case 401: "unauthorized"
            case 403: "forbidden"
            case 404: "not-found"
            case 409: "conflict"
            case 503: "unavailable"
            default: "internal"
            }
        let fix: String? =
            switch status {
            case 401, 403: "pass the token from the daemon's config with --token"
            case 404: "is sportsensord older than this sportsensorctl? compare `sportsensorctl status` versions"
            default: nil
            }
        return ClientError(
            code: .daemon, message: "sportsensord answered \(status) \(reason)", fix: fix,
            body: ControlErrorBody(code: code, error: "\(status) \(reason)", fix: fix))
    }
}
