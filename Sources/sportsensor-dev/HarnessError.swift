// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// A benchmark or harness of `sportsensor-dev` that could not run or finish: what failed and what to do.
/// A bad option stays a `ValidationError` (the usage follows it); this is a failure at run time, printed
/// alone with its code.
typealias HarnessError = CodedFailure<HarnessErrorCode>

enum HarnessErrorCode: String, NamedCode {
    /// A file, directory, socket or `/proc` entry could not be made or read.
    case systemCall = "system-call"
    /// The gateway under test did not answer, or refused a request.
    case gatewayFailed = "gateway-failed"
    /// A figure the run waits for did not arrive in time.
    case timeout
    /// A peer program (`flac`, `xz`, `zstd`) is missing or failed.
    case peerFailed = "peer-failed"
    /// This kernel or file system cannot measure what was asked.
    case unsupported
    /// Replication into the throw-away PostgreSQL failed.
    case replicationFailed = "replication-failed"
}
