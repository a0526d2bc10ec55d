// SPDX-License-Identifier: GPL-2.0-or-later
import CodedErrors

/// A users-file operation that failed; the message names the fix.
public typealias DashboardUsersError = CodedFailure<DashboardUsersErrorCode>

/// What kind of failure a ``DashboardUsersError`` is.
public enum DashboardUsersErrorCode: String, NamedCode {
    /// No account of that name.
    case notFound = "user-not-found"
    /// The name is taken.
    case exists = "user-exists"
    /// The name breaks the rules.
    case invalidName = "invalid-user-name"
    /// The password is too short or too long.
    case weakPassword = "weak-password"
    /// The file cannot be read or is not a users file.
    case unreadable = "users-file-unreadable"
    /// The file cannot be written.
    case unwritable = "users-file-unwritable"
    /// The disk is full or failed while writing the file; the old file is left as it was.
    case diskFull = "users-file-disk-full"
}
