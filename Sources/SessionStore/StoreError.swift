// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors
import GRDB

/// Something the session store could not do, with what to do about it.
public struct StoreError: CodedError, Sendable {
    /// What kind of failure.
    public struct Code: NamedCode {
        public let name: String
        /// The disk (or the database's size cap) is full; nothing was lost that was committed.
        public static let diskFull = Code(name: "diskFull")
        /// The file is not a SQLite database, or SQLite found damage in it. It is left untouched.
        public static let corrupt = Code(name: "corrupt")
        /// The database was written by a newer sportsensord with a schema this build does not know.
        public static let newerSchema = Code(name: "newerSchema")
        /// The file is a SQLite database of another application.
        public static let notOurDatabase = Code(name: "notOurDatabase")
        /// The state directory or the database file cannot be created, opened or written.
        public static let permission = Code(name: "permission")
        /// Another connection held a lock for longer than the busy timeout.
        public static let busy = Code(name: "busy")
        /// No session matches the id or prefix.
        public static let notFound = Code(name: "notFound")
        /// A session id prefix matches more than one session.
        public static let ambiguousPrefix = Code(name: "ambiguousPrefix")
        /// An argument is out of its domain (an unknown athlete, a duplicate alias, ...).
        public static let invalidArgument = Code(name: "invalidArgument")
        /// A stored sample chunk could not be decoded.
        public static let badChunk = Code(name: "badChunk")
        /// The session is still recording, and the change needs it finished.
        public static let sessionLive = Code(name: "sessionLive")
        /// The store was opened read-only and asked to write.
        public static let readOnly = Code(name: "readOnly")
        /// The recorder was used after `finish(reason:)`.
        public static let finished = Code(name: "finished")
        /// Any other SQLite failure.
        public static let database = Code(name: "database")
        /// The database could not take a session's end (disk full, I/O error): the rows not in it
        /// were spilled to a recovery file (`path`) that the next start imports. Nothing is lost,
        /// but it is not in the database yet.
        public static let spilled = Code(name: "spilled")
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and how to fix it.
    public var message: String
    /// The database file concerned, when there is one.
    public var path: String?
    /// The underlying error (a GRDB `DatabaseError`, a codec error, an errno), if any.
    public var cause: (any Error)?

    /// An error of kind `code`, explained by `message`.
    public init(_ code: Code, _ message: String, path: String? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }

    /// The advice every disk-full message ends with.
    static func diskFull(path: String, cause: (any Error)?) -> StoreError {
        StoreError(
            .diskFull,
            "the disk holding \(path) is full: free space or prune old sessions (`sportsensorctl prune --older-than 90d`)",
            path: path, cause: cause)
    }

    /// Maps any error thrown inside a GRDB access to a `StoreError`, keeping one that already is.
    static func wrap(_ error: any Error, path: String, doing action: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? DatabaseError else {
            return StoreError(.database, "\(action) failed for \(path)", path: path, cause: error)
        }
        switch error.resultCode {
        case .SQLITE_FULL:
            return diskFull(path: path, cause: error)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return corrupt(path: path, detail: error.message ?? "\(error.resultCode)", cause: error)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return StoreError(
                .busy,
                "\(action): the database \(path) stayed locked by another process; retry, or stop the other writer",
                path: path, cause: error)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return StoreError(
                .permission,
                "\(action): cannot write \(path): check its permissions or point --state-dir elsewhere",
                path: path, cause: error)
        case .SQLITE_CONSTRAINT:
            return StoreError(
                .invalidArgument, "\(action): \(error.message ?? "constraint violated")", path: path, cause: error)
        default:
            return StoreError(
                .database, "\(action) failed for \(path): \(error.message ?? "\(error.resultCode)")", path: path,
                cause: error)
        }
    }

    /// The refusal to change session `id` while it records.
    public static func sessionLive(_ id: String) -> StoreError {
        StoreError(
            .sessionLive,
            "session \(id) is still recording: stop it first (`sportsensorctl stop \(id.prefix(8))`), then retry")
    }

    /// The message for a damaged file: it is reported, never repaired in place.
    static func corrupt(path: String, detail: String, cause: (any Error)?) -> StoreError {
        StoreError(
            .corrupt,
            "the database \(path) is damaged (\(detail)): sportsensord leaves it untouched; move it aside and "
                + "restore a backup, or point --state-dir elsewhere to start a new store",
            path: path, cause: cause)
    }
}
